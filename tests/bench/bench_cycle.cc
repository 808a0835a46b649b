// Cycle-model speed: simulated cycles per wall second on the GEMM-bound ResNet-18 C8-shaped
// convolution (14x14, 256 -> 256, 3x3, values computed) and on a memory-bound stream, and the
// wall-time ratio to fsim on the same programs. Also prints the model's cycle breakdown.
// Usage: bench_cycle [config-name-or-path] [repetitions]. Asserts nothing about time.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>

#include "bench_programs.h"
#include "bench_timer.h"
#include "software_backends.h"
#include "test_paths.h"
#include "vta/sim/cycle/cycle_backend.h"
#include "vta/sim/error.h"

using namespace vta;
using namespace vta::testprog;

namespace {

double counter(const Stats& s, const char* name) {
  const NamedCounter* c = s.find(name);
  return c != nullptr ? c->value : 0;
}

// Builds the program with `build` on a fresh DRAM for each backend and times both.
void bench(const char* what, const HwConfig& cfg, int reps,
           const std::function<void(ProgramBuilder&)>& build) {
  BenchTiming t[2];
  Stats cycle_stats;
  uint64_t run_cycles = 0;
  for (int which = 0; which < 2; ++which) {
    Dram dram;
    const std::unique_ptr<Backend> be = make_fsim_or_cycle(which == 1, cfg, dram);
    ProgramBuilder pb(cfg, dram);
    build(pb);
    const DeviceBuffer insns = pb.emit();
    const uint32_t count = static_cast<uint32_t>(pb.insns().size());
    be->run(insns.phys, count, 0);  // warm-up
    t[which] = time_runs(*be, insns.phys, count, reps);
    if (which == 1) {
      be->clear_stats();
      be->run(insns.phys, count, 0);
      cycle_stats = be->stats();
      run_cycles = static_cast<CycleBackend&>(*be).last_run_cycles();
    }
  }
  const double c = static_cast<double>(run_cycles);
  std::printf("%s\n", what);
  std::printf(
      "  cycle: %llu cycles/run (%.3f ms at %.0f MHz), %.3f ms/run CPU (%.3f wall): "
      "%.1f M cycles/s CPU, %.1f M cycles/s wall\n",
      static_cast<unsigned long long>(run_cycles), c / cfg.clock_mhz / 1e3, cfg.clock_mhz,
      t[1].cpu * 1e3, t[1].wall * 1e3, c / t[1].cpu / 1e6, c / t[1].wall / 1e6);
  std::printf("  fsim : %.3f ms/run CPU (%.3f wall); cycle/fsim wall-time ratio %.2f\n",
              t[0].cpu * 1e3, t[0].wall * 1e3, t[1].wall / t[0].wall);
  std::printf(
      "  gemm utilization %.3f; busy load %.0f compute %.0f store %.0f; mem stall "
      "load %.0f compute %.0f store %.0f; read %.2f B/cycle, write %.2f B/cycle\n",
      counter(cycle_stats, "gemm.utilization"), counter(cycle_stats, "load.busy_cycles"),
      counter(cycle_stats, "compute.busy_cycles"), counter(cycle_stats, "store.busy_cycles"),
      counter(cycle_stats, "load.mem_stall_cycles"),
      counter(cycle_stats, "compute.mem_stall_cycles"),
      counter(cycle_stats, "store.mem_stall_cycles"), counter(cycle_stats, "mem.read_bandwidth"),
      counter(cycle_stats, "mem.write_bandwidth"));
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const std::string config = argc > 1 ? argv[1] : "pynq";
    const int reps = argc > 2 ? std::max(1, std::atoi(argv[2])) : 3;
    const HwConfig cfg = HwConfig::from_file(config_arg_path(config));
    std::printf("config %s (%s), %d repetitions per figure\n", config.c_str(),
                cfg.model_name.c_str(), reps);
    bench("conv3x3 14x14 256->256 (ResNet-18 C8 shape, GEMM-bound)", cfg, reps,
          [](ProgramBuilder& pb) {
            std::mt19937 rng(2024);
            build_conv3x3_program(pb, ConvSpec{}, rng);
          });
    bench("memory-bound stream (16 rounds of full-buffer loads and stores)", cfg, reps,
          [](ProgramBuilder& pb) { build_memory_bound_program(pb, 16); });
    return 0;
  } catch (const Error& e) {
    std::fprintf(stderr, "bench_cycle: error: %s\n", e.what());
    return 1;
  }
}
