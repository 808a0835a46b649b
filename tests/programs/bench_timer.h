// Benchmark stopwatch: this thread's CPU time (the fair figure on a shared machine) and wall
// time since construction. Benchmarks print these figures; no test asserts on them.
#pragma once

#include <time.h>

#include <chrono>

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

}  // namespace vta::testprog
