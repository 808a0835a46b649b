// Benchmark stopwatch: this thread's CPU time (the fair figure on a shared machine) and wall
// time since construction, and per-run timing of an instruction stream. Benchmarks print these
// figures; no test asserts on them.
#pragma once

#include <time.h>

#include <chrono>
#include <cstdint>

#include "vta/sim/backend.h"

namespace vta::testprog {

struct BenchTimer {
  std::chrono::steady_clock::time_point wall0 = std::chrono::steady_clock::now();
  double cpu0 = cpu_now();
  static double cpu_now() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
  }
  double wall() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  }
  double cpu() const { return cpu_now() - cpu0; }
};

struct BenchTiming {
  double cpu = 0, wall = 0;  // seconds per run
};

// Runs the `count` instructions at `insn_phys` `reps` times on `be` (warm up before calling).
inline BenchTiming time_runs(Backend& be, uint32_t insn_phys, uint32_t count, int reps) {
  const BenchTimer t;
  for (int r = 0; r < reps; ++r) {
    be.run(insn_phys, count, 0);
  }
  return BenchTiming{t.cpu() / reps, t.wall() / reps};
}

}  // namespace vta::testprog
