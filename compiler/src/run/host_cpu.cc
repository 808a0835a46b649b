#include "vta/compiler/run/host_cpu.h"

#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "vta/sim/board_facts.h"

namespace vta::compiler {

namespace {

// Sustained rates are half the peaks: the host operators are plain loops the compiler
// vectorises, not hand-tuned kernels. Peaks: NEON is a 64-bit datapath on both cores (8 int8
// multiply-accumulates per cycle; 4 simple 16-bit operations); the cores, clock and DRAM peak
// of each board are in the board table (sim/board_data/boards.json, docs/host_cpu.md).
constexpr double kSustained = 0.5;

}  // namespace

HostCpu host_cpu_for(const std::string& target) {
  const nlohmann::json& h = board_section(target, "host_cpu");
  HostCpu c;
  c.cores = h.at("cores").get<int>();
  c.clock_mhz = h.at("clock_mhz").get<double>();
  c.name = fmt::format("{}x {} @ {:g} MHz, {}", c.cores, h.at("core").get<std::string>(),
                       c.clock_mhz, h.at("simd").get<std::string>());
  c.int8_macs_per_cycle = 8 * kSustained;
  c.ops_per_cycle = 4 * kSustained;
  c.dram_gb_per_s = h.at("dram_peak_gb_per_s").get<double>() * kSustained;
  c.layer_overhead_us = 5;
  return c;
}

double host_layer_us(const HostCpu& cpu, HostWork work, uint64_t ops, uint64_t bytes) {
  const double per_cycle = work == HostWork::kInt8Mac ? cpu.int8_macs_per_cycle : cpu.ops_per_cycle;
  const double compute_us = double(ops) / (per_cycle * cpu.cores * cpu.clock_mhz);
  const double memory_us = double(bytes) / (cpu.dram_gb_per_s * 1e3);
  return cpu.layer_overhead_us + std::max(compute_us, memory_us);
}

}  // namespace vta::compiler
