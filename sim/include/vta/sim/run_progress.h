// Progress of the simulations running in this process, for a progress display (vtasim
// --progress): simulated cycles (fsim: its work units) and instructions retired, summed over
// every backend since the process started. Backends add to it as they go (fsim per
// instruction, cycle every 2^20 cycles, rtl every 4096 cycles); any thread may read it while
// a run executes. It is process-wide on purpose: a display needs no handle on the backend a
// runtime or a compiler built somewhere below it.
#pragma once

#include <atomic>
#include <cstdint>

#include "vta/sim/error.h"

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

// A run stopped from outside (a host program's Ctrl-C) by the calling thread's stop check.
class RunInterrupted : public Error {
 public:
  RunInterrupted() : Error("run interrupted") {}
};

// The calling thread's stop check (nullptr: none, the default). Long loops of the backends call
// poll_stop(work) as they go; once per kStopPollUnits work units it asks the check, and throws
// RunInterrupted when the check says stop. Per thread, so each caller (a Python thread) stops
// only its own runs; the check may be slow (it takes a lock), hence the batching.
using StopCheck = bool (*)();
constexpr uint64_t kStopPollUnits = uint64_t{1} << 20;
void set_stop_check(StopCheck check);
void poll_stop(uint64_t work);

// Installs a stop check for the lifetime of the object.
class ScopedStopCheck {
 public:
  explicit ScopedStopCheck(StopCheck check) { set_stop_check(check); }
  ~ScopedStopCheck() { set_stop_check(nullptr); }
  ScopedStopCheck(const ScopedStopCheck&) = delete;
  ScopedStopCheck& operator=(const ScopedStopCheck&) = delete;
};

}  // namespace vta
