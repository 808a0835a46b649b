// Time of one area and one energy estimate (explore/area_model.h, energy_model.h), the figures
// every sweep row gets: the median over repeated estimates of every preset config.
// Usage: bench_area [repetitions]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "vta/explore/area_model.h"
#include "vta/explore/energy_model.h"
#include "vta/sim/config_source.h"

int main(int argc, char** argv) {
  const int reps = argc > 1 ? std::max(1, std::atoi(argv[1])) : 20000;
  vta::Stats stats;
  stats.gemm_counter = 1000;
  stats.timed = true;
  stats.cycles = 5000;
  for (const std::string& name : vta::preset_config_names()) {
    const vta::HwConfig cfg = vta::resolve_config(name, {}).config;
    std::vector<double> area_us, energy_us;
    double sink = 0;
    for (int r = 0; r < reps; ++r) {
      auto t0 = std::chrono::steady_clock::now();
      sink += vta::explore::estimate_area(cfg).total.lut;
      auto t1 = std::chrono::steady_clock::now();
      sink += vta::explore::estimate_energy(cfg, stats).total_joules();
      auto t2 = std::chrono::steady_clock::now();
      area_us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
      energy_us.push_back(std::chrono::duration<double, std::micro>(t2 - t1).count());
    }
    std::nth_element(area_us.begin(), area_us.begin() + reps / 2, area_us.end());
    std::nth_element(energy_us.begin(), energy_us.begin() + reps / 2, energy_us.end());
    std::printf("%-14s area %.2f us  energy %.2f us  (median of %d; %g)\n", name.c_str(),
                area_us[reps / 2], energy_us[reps / 2], reps, sink > 0 ? 1.0 : 0.0);
  }
  return 0;
}
