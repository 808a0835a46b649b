// RTL backend speed: simulated cycles per wall second of the Verilated core on a small
// conv2d-like program (3x3 convolution, 14x14 pixels, 128 -> 128 channels by default, values
// computed and checked against the C++ reference), and of the cycle backend on the same program
// (ratio), plus the memory-bound stream. Also prints whether both backends agree on the cycles.
// Usage: bench_rtl [config-name-or-path] [repetitions] [channels]. Asserts nothing about time.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>

#include "bench_programs.h"
#include "bench_timer.h"
#include "test_paths.h"
#include "vta/hw/rtl_backend.h"
#include "vta/sim/cycle/cycle_backend.h"
#include "vta/sim/error.h"

using namespace vta;
using namespace vta::testprog;

namespace {

struct Result {
  uint64_t cycles = 0;  // per run
  double wall = 0;      // wall seconds per run
  double cpu = 0;       // CPU seconds of this thread per run (robust on a loaded machine)
  bool values_ok = true;
};

template <class B>
Result time_backend(const HwConfig& cfg, int reps,
                    const std::function<bool(ProgramBuilder&, Backend&, bool)>& run_once) {
  Dram dram;
  B be(cfg, dram);
  ProgramBuilder pb(cfg, dram);
  Result r;
  r.values_ok = run_once(pb, be, true);  // build, warm up and check
  be.clear_stats();
  const BenchTimer t;
  for (int k = 0; k < reps; ++k) {
    run_once(pb, be, false);
  }
  r.cpu = t.cpu() / reps;
  r.wall = t.wall() / reps;
  r.cycles = be.stats().cycles / static_cast<uint64_t>(reps);
  return r;
}

void report(const char* what, const Result& rtl, const Result& cyc) {
  // simulated cycles per CPU second (per wall second in parentheses)
  const double rtl_cps = static_cast<double>(rtl.cycles) / rtl.cpu;
  const double cyc_cps = static_cast<double>(cyc.cycles) / cyc.cpu;
  std::printf("%s\n", what);
  std::printf("  rtl:   %10llu cycles  %8.3f s CPU  %8.3f M cycles/s (wall %.3f)  values %s\n",
              static_cast<unsigned long long>(rtl.cycles), rtl.cpu, rtl_cps / 1e6,
              static_cast<double>(rtl.cycles) / rtl.wall / 1e6, rtl.values_ok ? "ok" : "WRONG");
  std::printf("  cycle: %10llu cycles  %8.3f s CPU  %8.3f M cycles/s (wall %.3f)  values %s\n",
              static_cast<unsigned long long>(cyc.cycles), cyc.cpu, cyc_cps / 1e6,
              static_cast<double>(cyc.cycles) / cyc.wall / 1e6, cyc.values_ok ? "ok" : "WRONG");
  std::printf("  cycle counts %s; rtl is %.1fx slower than the cycle model\n",
              rtl.cycles == cyc.cycles ? "equal" : "DIFFER", cyc_cps / rtl_cps);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const std::string name = argc > 1 ? argv[1] : "pynq";
    const HwConfig cfg = HwConfig::from_file(config_arg_path(name));
    const int reps = argc > 2 ? std::atoi(argv[2]) : 3;
    const uint32_t ch = argc > 3 ? static_cast<uint32_t>(std::atoi(argv[3])) : 128;
    std::printf("bench_rtl: config %s (%s), %d repetitions, RTL models built: ", name.c_str(),
                cfg.model_name.c_str(), reps);
    for (const auto& m : RtlBackend::built_configs()) {
      std::printf("%s ", m.c_str());
    }
    std::printf("\n");

    ConvSpec spec;
    spec.ic = spec.oc = ch;
    ConvProgram conv;
    DeviceBuffer conv_insns;
    uint32_t conv_count = 0;
    const auto run_conv = [&](ProgramBuilder& pb, Backend& be, bool first) {
      if (first) {
        std::mt19937 rng(1234);
        conv = build_conv3x3_program(pb, spec, rng);
        conv_insns = pb.emit();
        conv_count = static_cast<uint32_t>(pb.insns().size());
      }
      be.run(conv_insns.phys, conv_count, 0);
      if (!first) {
        return true;
      }
      const std::vector<int8_t> ref = reference_conv3x3(pb.cfg(), conv);
      return std::memcmp(conv.out.host, ref.data(), ref.size()) == 0;
    };
    char title[160];
    std::snprintf(title, sizeof(title), "conv3x3 %ux%u, %u -> %u channels", spec.h, spec.w, spec.ic,
                  spec.oc);
    report(title, time_backend<RtlBackend>(cfg, reps, run_conv),
           time_backend<CycleBackend>(cfg, reps, run_conv));

    DeviceBuffer mem_insns;
    uint32_t mem_count = 0;
    const auto run_mem = [&](ProgramBuilder& pb, Backend& be, bool first) {
      if (first) {
        build_memory_bound_program(pb, 8);
        mem_insns = pb.emit();
        mem_count = static_cast<uint32_t>(pb.insns().size());
      }
      be.run(mem_insns.phys, mem_count, 0);
      return true;
    };
    report("memory-bound stream, 8 rounds", time_backend<RtlBackend>(cfg, reps, run_mem),
           time_backend<CycleBackend>(cfg, reps, run_mem));
  } catch (const Error& e) {
    std::fprintf(stderr, "bench_rtl: %s\n", e.what());
    return 1;
  }
  return 0;
}
