// The host CPU beside VTA on each board, as a time model for the layers that run on the host:
// a layer's time is a fixed per-layer overhead plus the larger of its compute time (its
// operations over the cores' NEON throughput) and its memory time (the bytes it reads and
// writes over the DRAM bandwidth). The boards' CPUs are in the board table
// (sim/board_data/boards.json, "host_cpu"); the model and its sources: docs/host_cpu.md.
#pragma once

#include <cstdint>
#include <string>

namespace vta::compiler {

enum class HostWork {
  kInt8Mac,     // int8 multiply-accumulates (grouped and depthwise convolutions)
  kElementwise  // one operation per value (pools, adds, products, concats, activations)
};

struct HostCpu {
  std::string name;  // "2x Cortex-A9 @ 650 MHz, NEON"
  int cores = 1;
  double clock_mhz = 0;
  double int8_macs_per_cycle = 0;  // per core, sustained
  double ops_per_cycle = 0;        // elementwise operations per core and cycle, sustained
  double dram_gb_per_s = 0;        // sustained bandwidth the cores see
  double layer_overhead_us = 0;    // dispatch and cache warm-up per host layer
};

// The host of board `target` (a configuration's TARGET; one without a host CPU in the board
// table, e.g. "sim", gets the default board's, pynq's).
HostCpu host_cpu_for(const std::string& target);

// Microseconds of one host layer: `ops` of kind `work`, `bytes` read and written.
double host_layer_us(const HostCpu& cpu, HostWork work, uint64_t ops, uint64_t bytes);

}  // namespace vta::compiler
