// fsim throughput: simulated GEMM MAC/s on the ResNet-18 C8-shaped convolution (14x14,
// 256 -> 256, 3x3) and simulated DMA bytes/s on a memory-bound stream, per GEMM kernel variant.
// Usage: bench_fsim [config-name-or-path] [repetitions]. Prints figures; asserts nothing timed.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>

#include "bench_programs.h"
#include "test_paths.h"
#include "vta/sim/error.h"
#include "vta/sim/fsim.h"

using namespace vta;
using namespace vta::testprog;

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const std::string config = argc > 1 ? argv[1] : "pynq";
    const int reps = argc > 2 ? std::max(1, std::atoi(argv[2])) : 5;
    const HwConfig cfg =
        config.find('/') != std::string::npos || config.find(".json") != std::string::npos
            ? HwConfig::from_file(config)
            : HwConfig::from_file(config_path(config));
    std::printf("config %s (%s), %d repetitions per figure\n", config.c_str(),
                cfg.model_name.c_str(), reps);
    for (GemmKernelKind kind : {GemmKernelKind::kAuto, GemmKernelKind::kGeneric}) {
      Dram dram;
      FsimBackend fsim(cfg, dram);
      fsim.set_gemm_kernel(kind);
      ProgramBuilder pb(cfg, dram);
      std::mt19937 rng(2024);
      const ConvProgram conv = build_conv3x3_program(pb, ConvSpec{}, rng);
      const DeviceBuffer insns = pb.emit();
      const uint32_t count = static_cast<uint32_t>(pb.insns().size());
      fsim.run(insns.phys, count, 0);  // warm-up, then check once against the C++ reference
      const std::vector<int8_t> ref = reference_conv3x3(cfg, conv);
      const bool ok = std::memcmp(ref.data(), conv.out.host, ref.size()) == 0;
      fsim.clear_stats();
      const auto t0 = std::chrono::steady_clock::now();
      for (int r = 0; r < reps; ++r) {
        fsim.run(insns.phys, count, 0);
      }
      const double s = seconds_since(t0) / reps;
      std::printf(
          "conv3x3 14x14 256->256 (%u insns, %.1f M MACs, %llu GEMM uops) kernel %-7s: %.3f "
          "ms/run, "
          "%.2f G MAC/s, %.1f M uop/s, output %s\n",
          count, conv.macs / 1e6, static_cast<unsigned long long>(fsim.stats().gemm_counter / reps),
          fsim.gemm_kernel_name(), s * 1e3, conv.macs / s / 1e9,
          fsim.stats().gemm_counter / reps / s / 1e6, ok ? "matches reference" : "MISMATCH");
      if (!ok) {
        return 1;
      }
    }
    {
      Dram dram;
      FsimBackend fsim(cfg, dram);
      ProgramBuilder pb(cfg, dram);
      const MemoryBoundProgram m = build_memory_bound_program(pb, 16);
      const DeviceBuffer insns = pb.emit();
      const uint32_t count = static_cast<uint32_t>(pb.insns().size());
      fsim.run(insns.phys, count, 0);
      const auto t0 = std::chrono::steady_clock::now();
      for (int r = 0; r < reps; ++r) {
        fsim.run(insns.phys, count, 0);
      }
      const double s = seconds_since(t0) / reps;
      std::printf("memory-bound stream (%.1f MB loaded, %.1f MB stored): %.3f ms/run, %.2f GB/s\n",
                  m.bytes_loaded / 1e6, m.bytes_stored / 1e6, s * 1e3,
                  (m.bytes_loaded + m.bytes_stored) / s / 1e9);
    }
    return 0;
  } catch (const Error& e) {
    std::fprintf(stderr, "bench_fsim: error: %s\n", e.what());
    return 1;
  }
}
