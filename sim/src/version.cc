#include "vta/sim/version.h"

namespace vta {

const char* simulator_version() {
  return VTA_VERSION_STRING;  // set by sim/core.cmake at configure time
}

}  // namespace vta
