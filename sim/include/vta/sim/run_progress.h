// Progress of the simulations running in this process, for a progress display (vtasim
// --progress): simulated cycles (fsim: its work units) and instructions retired, summed over
// every backend since the process started. Backends add to it as they go (fsim per
// instruction, cycle every 2^20 cycles, rtl every 4096 cycles); any thread may read it while
// a run executes. It is process-wide on purpose: a display needs no handle on the backend a
// runtime or a compiler built somewhere below it.
#pragma once

#include <atomic>
#include <cstdint>

namespace vta {

struct RunProgress {
  std::atomic<uint64_t> cycles{0};
  std::atomic<uint64_t> insns{0};

  void add(uint64_t cycle_count, uint64_t insn_count) {
    cycles.fetch_add(cycle_count, std::memory_order_relaxed);
    insns.fetch_add(insn_count, std::memory_order_relaxed);
  }
};

RunProgress& run_progress();

}  // namespace vta
