#include "vta/sim/memory_model.h"

#include "vta/sim/hw_config.h"

namespace vta {

// Each model's file defines its description (VTA_REGISTER_MEMORY_MODEL).
#define VTA_MEMORY_MODEL(name) MemoryModelDescription name##_memory_model_description();
#include "vta/sim/memory_models.inc"
#undef VTA_MEMORY_MODEL

namespace {

// The registry, filled on the first call (thread-safe, whatever the static initialisation order).
const MemoryModelDescriptions& descriptions() {
  static const bool filled = [] {
#define VTA_MEMORY_MODEL(name) \
  MemoryModelDescriptions::instance().add(name##_memory_model_description());
#include "vta/sim/memory_models.inc"
#undef VTA_MEMORY_MODEL
    return true;
  }();
  (void)filled;
  return MemoryModelDescriptions::instance();
}

}  // namespace

const MemoryModelDescription* find_memory_model_description(const std::string& name) {
  return descriptions().find(name);
}

std::vector<std::string> memory_model_names() {
  return descriptions().names();
}

const MemoryModelDescription& memory_model_description_of(const HwConfig& cfg) {
  if (cfg.memory.description != nullptr) {
    return *cfg.memory.description;
  }
  // A config built in code rather than read: look its model up.
  const MemoryModelDescription* m = find_memory_model_description(cfg.memory.model);
  if (m == nullptr) {
    throw ConfigError("MEMORY_MODEL = \"" + cfg.memory.model + "\" is not a registered model");
  }
  return *m;
}

}  // namespace vta
