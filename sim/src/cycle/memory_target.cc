#include "vta/sim/cycle/memory_target.h"

#include <fmt/format.h>

#include "vta/sim/error.h"

namespace vta::cycle {

const MemoryModelEntry& find_memory_model(const std::string& name) {
  link_fixed_memory_model();
  link_dram_memory_model();
  const MemoryModelEntry* e = MemoryModelRegistry::instance().find(name);
  if (e == nullptr) {
    throw Error(fmt::format("cycle backend: no memory model named '{}' (registered: {})", name,
                            fmt::join(MemoryModelRegistry::instance().names(), ", ")));
  }
  return *e;
}

}  // namespace vta::cycle
