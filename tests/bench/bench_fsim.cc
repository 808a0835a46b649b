// fsim throughput: simulated GEMM MAC/s on the ResNet-18 C8-shaped convolution (14x14,
// 256 -> 256, 3x3) per GEMM kernel variant, and simulated DMA bytes/s on a memory-bound stream.
// Usage: bench_fsim [config-name-or-path] [repetitions]. Prints figures per run: this thread's
// CPU time (the fair figure on a shared machine) and wall time. Asserts nothing about time.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>

#include "bench_programs.h"
#include "bench_timer.h"
#include "test_paths.h"
#include "vta/sim/error.h"
#include "vta/sim/fsim.h"

using namespace vta;
using namespace vta::testprog;

int main(int argc, char** argv) {
  try {
    const std::string config = argc > 1 ? argv[1] : "pynq";
    const int reps = argc > 2 ? std::max(1, std::atoi(argv[2])) : 5;
    const HwConfig cfg = HwConfig::from_file(config_arg_path(config));
    std::printf("config %s (%s), %d repetitions per figure\n", config.c_str(),
                cfg.model_name.c_str(), reps);
    const GemmShape shape{cfg.batch, cfg.block_in, cfg.block_out};
    for (GemmKernelKind kind : {GemmKernelKind::kAvx512Int8, GemmKernelKind::kAvx512,
                                GemmKernelKind::kAvx2, GemmKernelKind::kGeneric}) {
      if (!gemm_kernel_available(kind, shape)) {
        std::printf("kernel %s: not available on this CPU/config\n", gemm_kernel_kind_name(kind));
        continue;
      }
      Dram dram;
      FsimBackend fsim(cfg, dram);
      fsim.set_gemm_kernel(kind);
      ProgramBuilder pb(cfg, dram);
      std::mt19937 rng(2024);
      const ConvProgram conv = build_conv3x3_program(pb, ConvSpec{}, rng);
      const DeviceBuffer insns = pb.emit();
      const uint32_t count = static_cast<uint32_t>(pb.insns().size());
      fsim.run(insns.phys, count, 0);  // warm-up, checked once against the C++ reference
      const std::vector<int8_t> ref = reference_conv3x3(cfg, conv);
      const bool ok = std::memcmp(ref.data(), conv.out.host, ref.size()) == 0;
      fsim.clear_stats();
      const auto [cpu, wall] = time_runs(fsim, insns.phys, count, reps);
      const double uops = static_cast<double>(fsim.stats().gemm_counter) / reps;
      std::printf(
          "conv3x3 14x14 256->256 (%u insns, %.1f M MACs, %.0f GEMM uops) kernel %-11s: "
          "%.3f ms/run CPU (%.3f wall): %.2f G MAC/s, %.1f M uop/s; output %s\n",
          count, static_cast<double>(conv.macs) / 1e6, uops, fsim.gemm_kernel_name(), cpu * 1e3,
          wall * 1e3, static_cast<double>(conv.macs) / cpu / 1e9, uops / cpu / 1e6,
          ok ? "matches reference" : "MISMATCH");
      if (!ok) {
        return 1;
      }
    }
    Dram dram;
    FsimBackend fsim(cfg, dram);
    ProgramBuilder pb(cfg, dram);
    const MemoryBoundProgram m = build_memory_bound_program(pb, 16);
    const DeviceBuffer insns = pb.emit();
    const uint32_t count = static_cast<uint32_t>(pb.insns().size());
    fsim.run(insns.phys, count, 0);
    const auto [cpu, wall] = time_runs(fsim, insns.phys, count, reps);
    const double bytes = static_cast<double>(m.bytes_loaded + m.bytes_stored);
    std::printf(
        "memory-bound stream (%.1f MB loaded, %.1f MB stored): %.3f ms/run CPU (%.3f wall): "
        "%.2f GB/s\n",
        static_cast<double>(m.bytes_loaded) / 1e6, static_cast<double>(m.bytes_stored) / 1e6,
        cpu * 1e3, wall * 1e3, bytes / cpu / 1e9);
    return 0;
  } catch (const Error& e) {
    std::fprintf(stderr, "bench_fsim: error: %s\n", e.what());
    return 1;
  }
}
