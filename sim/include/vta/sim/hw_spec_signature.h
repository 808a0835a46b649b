// What a program built against vta/hw_spec_const.h assumes of the hardware: the upstream model
// string (batch, block, data widths, buffer sizes) and the bus width, which together fix every
// constant and field width of that header. The header carries it as VTA_HW_SPEC_SIGNATURE; the
// runtime compares it with the device's config before a program runs.
#pragma once

#include <string>

#include <fmt/format.h>

#include "vta/sim/hw_config.h"

namespace vta {

inline std::string hw_spec_signature(const HwConfig& c) {
  return fmt::format("{}_bus{}", c.model_name, 1 << c.log_bus_width);
}

}  // namespace vta
