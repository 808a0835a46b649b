// The constants a C program was built with (vta/hw_spec_const.h, declared through
// VTASimDeclareHwSpec before main) against the device it runs on. Process-wide: a program is
// built once, with one header.
#pragma once

#include "vta/sim/hw_config.h"

namespace vta {

// Throws vta::Error naming both configurations when a program declared constants that do not
// match `device`; does nothing when none were declared (programs that build their streams
// through the runtime need no header).
void check_declared_hw_spec(const HwConfig& device);

}  // namespace vta
