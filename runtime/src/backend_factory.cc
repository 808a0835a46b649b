#include "vta/backend_factory.h"

#include <cstdlib>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "vta/sim/cycle/cycle_backend.h"
#include "vta/sim/error.h"
#include "vta/sim/fsim.h"
#ifdef VTA_HAVE_RTL
#include "vta/hw/rtl_backend.h"
#endif

namespace vta {

std::vector<std::string> available_backends() {
  std::vector<std::string> names = {"fsim", "cycle"};  // the last one is the default
#ifdef VTA_HAVE_RTL
  names.insert(names.end() - 1, "rtl");  // before the last entry, which is the default
#endif
  return names;
}

std::unique_ptr<Backend> make_backend(const std::string& name, const HwConfig& cfg, Dram& dram) {
  if (name == "fsim") {
    return std::make_unique<FsimBackend>(cfg, dram);
  }
  if (name == "cycle") {
    return std::make_unique<CycleBackend>(cfg, dram);
  }
#ifdef VTA_HAVE_RTL
  if (name == "rtl") {
    return std::make_unique<RtlBackend>(cfg, dram);
  }
#endif
  throw Error(fmt::format("unknown backend '{}' (available: {})", name,
                          fmt::join(available_backends(), ", ")));
}

std::string backend_name_from_env() {
  const char* v = std::getenv("VTA_BACKEND");
  if (v != nullptr && *v != '\0') {
    return v;
  }
  return available_backends().back();
}

}  // namespace vta
