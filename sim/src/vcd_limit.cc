#include "vta/sim/vcd_limit.h"

#include <fmt/format.h>

#include "vta/sim/error.h"

namespace vta {

[[noreturn]] void throw_vcd_over_limit(const VcdOverLimit& v) {
  const double mib = 1024.0 * 1024.0;
  const std::string window = v.window_end == UINT64_MAX
                                 ? fmt::format("cycles {} to the end of the run", v.window_start)
                                 : fmt::format("cycles [{}, {})", v.window_start, v.window_end);
  throw Error(fmt::format(
      "VCD '{}' would be about {:.3g} MiB ({} bytes) for {} ({}), above the limit of {:.3g} MiB "
      "(--vcd-max-mb): the file stops at cycle {}; narrow --vcd-window, or raise --vcd-max-mb "
      "(0 = no limit) to write it all",
      v.path, static_cast<double>(v.estimate_bytes) / mib, v.estimate_bytes, window,
      v.how_estimated, static_cast<double>(v.limit_bytes) / mib, v.cut_cycle));
}

}  // namespace vta
