#include "vta/backend_factory.h"

#include <cstdlib>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "vta/sim/backend_registry.h"
#include "vta/sim/error.h"

namespace vta {

// Every backend linked into libvta registered itself (VTA_REGISTER_BACKEND in its source file);
// nothing here knows the list.

std::vector<std::string> available_backends() {
  return BackendRegistry::instance().names();
}

std::unique_ptr<Backend> make_backend(const std::string& name, const HwConfig& cfg, Dram& dram) {
  if (const BackendEntry* e = BackendRegistry::instance().find(name)) {
    return e->make(cfg, dram);
  }
  throw Error(fmt::format("unknown backend '{}' (available: {})", name,
                          fmt::join(available_backends(), ", ")));
}

std::string backend_name_from_env() {
  const char* v = std::getenv("VTA_BACKEND");
  if (v != nullptr && *v != '\0') {
    return v;
  }
  const std::vector<std::string> names = available_backends();
  if (names.empty()) {
    throw Error("no backend is linked into this build");
  }
  return names.back();  // the default: the last in order
}

}  // namespace vta
