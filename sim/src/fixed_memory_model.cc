// The memory model "fixed": the memory port of the timing contract (sim/README.md section 2),
// which the cycle plugin times with DramTiming (sim/src/cycle/dram_timing.cc, fixed_memory.cc):
// a read's first beat DRAM_READ_LATENCY_CYCLES after its request, one beat every
// DRAM_CYCLES_PER_BEAT cycles on each of the separate read and write data channels.
#include <algorithm>

#include "vta/sim/hw_config.h"
#include "vta/sim/memory_model.h"

namespace vta {

// Defined here so that every program that uses the default also links this registration.
const char* const kDefaultMemoryModel = "fixed";

namespace {

std::vector<std::string> fixed_keys() {
  return {"DRAM_READ_LATENCY_CYCLES", "DRAM_WRITE_LATENCY_CYCLES", "DRAM_CYCLES_PER_BEAT"};
}

// One bus beat per DRAM_CYCLES_PER_BEAT on each channel; reads and writes overlap.
MemoryTransferRates fixed_transfer_rates(const HwConfig& cfg) {
  MemoryTransferRates r;
  r.channel_bytes_per_cycle = double(cfg.bus_bytes) / double(std::max(1, cfg.dram_cycles_per_beat));
  return r;
}

double fixed_read_latency(const HwConfig& cfg) {
  return double(cfg.dram_read_latency_cycles);
}

}  // namespace

VTA_REGISTER_MEMORY_MODEL(fixed, 0,
                          "the timing contract's DRAM: fixed read/write latencies, "
                          "DRAM_CYCLES_PER_BEAT, one read and one write data channel",
                          &fixed_keys, "HwConfig (sim/src/hw_config.cc)", &fixed_transfer_rates,
                          &fixed_read_latency);

}  // namespace vta
