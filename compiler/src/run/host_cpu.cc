#include "vta/compiler/run/host_cpu.h"

#include <algorithm>

#include <fmt/format.h>

namespace vta::compiler {

namespace {

// Sustained rates are half the peaks: the host operators are plain loops the compiler
// vectorises, not hand-tuned kernels. Peaks: NEON is a 64-bit datapath on both cores (8 int8
// multiply-accumulates per cycle; 4 simple 16-bit operations), DRAM bandwidth from the width
// and rate of each board's memory (docs/host_cpu.md).
constexpr double kSustained = 0.5;

HostCpu make(const char* core, int cores, double mhz, double dram_peak_gb_per_s) {
  HostCpu c;
  c.name = fmt::format("{}x {} @ {:g} MHz, NEON", cores, core, mhz);
  c.cores = cores;
  c.clock_mhz = mhz;
  c.int8_macs_per_cycle = 8 * kSustained;
  c.ops_per_cycle = 4 * kSustained;
  c.dram_gb_per_s = dram_peak_gb_per_s * kSustained;
  c.layer_overhead_us = 5;
  return c;
}

}  // namespace

HostCpu host_cpu_for(const std::string& target) {
  if (target == "de10nano") {
    return make("Cortex-A9", 2, 800, 3.2);  // DDR3, 32 bits at 800 MT/s
  }
  if (target == "ultra96") {
    return make("Cortex-A53", 4, 1200, 8.5);  // LPDDR4, 32 bits at 2133 MT/s
  }
  if (target == "zcu104") {
    return make("Cortex-A53", 4, 1333, 19.2);  // -2 speed grade; DDR4, 64 bits at 2400 MT/s
  }
  return make("Cortex-A9", 2, 650, 2.1);  // pynq: DDR3, 16 bits at 1050 MT/s
}

double host_layer_us(const HostCpu& cpu, HostWork work, uint64_t ops, uint64_t bytes) {
  const double per_cycle = work == HostWork::kInt8Mac ? cpu.int8_macs_per_cycle : cpu.ops_per_cycle;
  const double compute_us = double(ops) / (per_cycle * cpu.cores * cpu.clock_mhz);
  const double memory_us = double(bytes) / (cpu.dram_gb_per_s * 1e3);
  return cpu.layer_overhead_us + std::max(compute_us, memory_us);
}

}  // namespace vta::compiler
