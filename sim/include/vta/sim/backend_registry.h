// The backends a build contains, by the name users give them (VTA_BACKEND, vtasim --backend).
// Each backend registers itself with one line at the end of its own source file:
//
//   VTA_REGISTER_BACKEND(fsim, vta::FsimBackend, /*order=*/10, /*timed=*/false);
//
// and its library is declared with vta_add_backend() in CMake, which links it whole into libvta
// or, for a PLUGIN (cycle, rtl), into a shared library of its own that libvta loads on first use
// (a registration is a static object that the linker would otherwise drop). The runtime's
// make_backend() / available_backends() (vta/backend_factory.h) ask this registry and that
// list of plugins.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "vta/sim/backend.h"
#include "vta/sim/registry.h"

namespace vta {

struct BackendEntry {
  std::string name;    // "fsim", "cycle", "rtl"
  int order = 0;       // position in available_backends(); the last one is the default
  bool timed = false;  // runs report cycles (Stats::timed)
  std::function<std::unique_ptr<Backend>(const HwConfig&, Dram&)> make;
};
using BackendRegistry = Registry<BackendEntry>;

// The factory of a backend class constructible from (config, DRAM).
template <class B>
std::unique_ptr<Backend> make_backend_of(const HwConfig& cfg, Dram& dram) {
  return std::make_unique<B>(cfg, dram);
}

}  // namespace vta

// Registers backend class `Class` under the name `name` (an identifier, also the registration
// tag). At namespace scope, outside any namespace.
#define VTA_REGISTER_BACKEND(name, Class, order, timed) \
  VTA_REGISTER(::vta::BackendEntry, backend_##name,     \
               {#name, order, timed, &::vta::make_backend_of<Class>})
