// The memory model "dram": a DRAM device and controller timed from JEDEC parameters (DramSpec,
// DramController; the cycle plugin's DramMemory puts them behind the memory port). Its analytic
// side, for the bound: the sustained bandwidth of long streams on the DRAM's one data bus and
// the latency of a read to a closed bank (sim/DRAM.md).
#include <algorithm>

#include "vta/sim/hw_config.h"
#include "vta/sim/memory_model.h"

namespace vta {

namespace {

// Core cycles per DRAM clock.
double dram_clocks_per_core_cycle(const HwConfig& cfg) {
  return 1e6 / (double(cfg.memory.dram.tck_ps) * cfg.clock_mhz);
}

// The core's channels move one beat per cycle each; the DRAM's one data bus carries both, at
// the share of its peak that refreshes leave (dram_stream_efficiency).
MemoryTransferRates dram_transfer_rates(const HwConfig& cfg) {
  const DramSpec& d = cfg.memory.dram;
  const double peak =  // bytes per core cycle
      2.0 * d.channels * d.bus_bytes() * dram_clocks_per_core_cycle(cfg);
  MemoryTransferRates r;
  r.channel_bytes_per_cycle = double(cfg.bus_bytes);
  r.shared_read_bytes_per_cycle = peak * std::max(1e-9, dram_stream_efficiency(d, false));
  r.shared_write_bytes_per_cycle = peak * std::max(1e-9, dram_stream_efficiency(d, true));
  return r;
}

// The interconnect both ways plus ACT, READ and one burst.
double dram_read_latency(const HwConfig& cfg) {
  const DramSpec& d = cfg.memory.dram;
  const double interconnect = 2.0 * d.interconnect_ns * cfg.clock_mhz / 1e3;
  return interconnect + double(d.rcd + d.cl + d.burst_ck()) / dram_clocks_per_core_cycle(cfg);
}

}  // namespace

VTA_REGISTER_MEMORY_MODEL(dram, 10,
                          "a DRAM device and controller from JEDEC timings (banks, rows, "
                          "refresh, its own clock), behind an interconnect latency: DRAM_PRESET "
                          "and the DRAM_* keys",
                          &dram_spec_keys, "DramSpec (sim/src/dram_spec.cc)", &dram_transfer_rates,
                          &dram_read_latency);

}  // namespace vta
