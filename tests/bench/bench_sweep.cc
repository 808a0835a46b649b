// Sweep throughput: ResNet-18 design points per minute through the exploration layer (worker
// processes, SQLite database, reference check on), on the cycle backend.
// Usage: bench_sweep [POINTS] [WORKERS] [no-check]    (defaults 8 and 2; no-check: without the
// reference check, to see the simulation alone)
// The points vary DRAM latency and bus width around pynq, so every one is valid and runs the
// whole network (21 VTA layers).
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "vta/explore/sweep_runner.h"
#include "vta/explore/sweep_spec.h"

int main(int argc, char** argv) {
  const int points = argc > 1 ? std::atoi(argv[1]) : 8;
  const int workers = argc > 2 ? std::atoi(argv[2]) : 2;
  const bool check = !(argc > 3 && std::string(argv[3]) == "no-check");
  if (points < 1 || workers < 1) {
    std::fprintf(stderr, "usage: bench_sweep [POINTS >= 1] [WORKERS >= 1] [no-check]\n");
    return 2;
  }
  nlohmann::ordered_json spec;
  spec["name"] = "bench";
  spec["base"] = "pynq";
  spec["axes"]["LOG_BUS_WIDTH"] = {6, 7};
  spec["axes"]["DRAM_READ_LATENCY_CYCLES"] = {
      {"from", 8}, {"step", 8}, {"to", 8 * ((points + 1) / 2)}};
  spec["sample"] = {{"count", points}, {"seed", 1}};
  spec["workloads"] = {"network:resnet18"};
  spec["backend"] = "cycle";
  spec["check"] = check;
  const vta::explore::SweepSpec s = vta::explore::SweepSpec::from_json(spec, "bench spec", "");
  const std::string db =
      (std::filesystem::temp_directory_path() / fmt::format("bench_sweep_{}.sqlite", ::getpid()))
          .string();
  vta::explore::SweepOptions opt;
  opt.db_path = db;
  opt.workers = static_cast<size_t>(workers);
  opt.progress = false;
  const auto t0 = std::chrono::steady_clock::now();
  const vta::explore::SweepSummary sum = vta::explore::run_sweep(s, opt);
  const double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::filesystem::remove(db);
  std::printf("%s\n", sum.line(s, opt).c_str());
  std::printf(
      "ResNet-18 design points: %zu in %.2f s with %d workers, %.1f points/minute "
      "(cycle backend, reference check %s)\n",
      sum.ran, sec, workers, 60.0 * double(sum.ran) / sec, check ? "on" : "off");
  return sum.exit_status();
}
