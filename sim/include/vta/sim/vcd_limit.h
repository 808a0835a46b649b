// The VCD size limit every timed backend enforces (the CLI's --vcd-max-mb). How long a run is
// cannot be known before it ends, so the size is counted while the VCD is written: once it
// passes the limit, recording stops (the file is cut there, memory stays bounded) and the run's
// end throws the error below with the size the whole window would have had.
#pragma once

#include <cstdint>
#include <string>

namespace vta {

struct VcdOverLimit {
  std::string path;
  uint64_t limit_bytes = 0;
  uint64_t estimate_bytes = 0;                // the size the VCD of the whole window would have had
  uint64_t cut_cycle = 0;                     // the first cycle the file no longer shows
  uint64_t window_start = 0, window_end = 0;  // window_end = UINT64_MAX: up to the run's end
  const char* how_estimated = "";             // "counted" or "extrapolated from the rate"
};

// Throws Error: "VCD 'P' would be about X MiB (n bytes) for cycles [A, B), above the limit of N MiB
// (--vcd-max-mb): the file stops at cycle C; narrow --vcd-window or raise --vcd-max-mb (0 = no
// limit)".
[[noreturn]] void throw_vcd_over_limit(const VcdOverLimit& v);

}  // namespace vta
