#include "hw_spec_check.h"

#include <mutex>
#include <string>

#include <fmt/format.h>

#include "vta/runtime.h"
#include "vta/sim/error.h"
#include "vta/sim/hw_spec_signature.h"

namespace vta {

namespace {

std::mutex& declared_mutex() {
  static std::mutex m;
  return m;
}

std::string& declared() {
  static std::string s;  // empty: nothing declared
  return s;
}

}  // namespace

void check_declared_hw_spec(const HwConfig& device) {
  std::string program;
  {
    const std::lock_guard<std::mutex> lock(declared_mutex());
    program = declared();
  }
  const std::string hardware = hw_spec_signature(device);
  if (!program.empty() && program != hardware) {
    throw Error(fmt::format(
        "this program was built with vta/hw_spec_const.h for {} but the device is {}: rebuild "
        "it with the header of the device's config (VTA_HW_SPEC_CONFIG) or run it on its own "
        "config (VTA_CONFIG)",
        program, hardware));
  }
}

}  // namespace vta

extern "C" void VTASimDeclareHwSpec(const char* signature) {
  const std::lock_guard<std::mutex> lock(vta::declared_mutex());
  vta::declared() = signature != nullptr ? signature : "";
}
