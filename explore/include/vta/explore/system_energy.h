// SystemEnergy: the energy of a run of a system of several VTA cores (a config with CORES,
// docs/multicore.md): each core's estimate from its own counters (core 0's are the Stats' own,
// core K's the "coreK.*" counters the backends report) on its own config, plus the
// interconnect's energy per byte it carried. Without CORES it is estimate_energy.
#pragma once

#include <vector>

#include "vta/explore/energy_model.h"
#include "vta/sim/hw_config.h"
#include "vta/sim/stats.h"

namespace vta::explore {

// Energy of one byte through the interconnect (the multiplexers, one register slice and the
// wires to the DRAM port): an assumption, 1 pJ per byte (explore/README.md, "Several cores").
constexpr double kInterconnectPjPerByte = 1.0;

// Core k's counters out of a system run's Stats: core 0's own fields; for k >= 1 the
// "coreK.<counter>" mirrors (upstream counters, runs, unit and memory counters), its instruction
// fetch counted from "coreK.mem.fetch.read_bytes" when the backend reports it. `cycles` is the
// system's ("system.cycles" when present, else the Stats' own), as every core is powered for the
// whole run.
Stats core_counters(const HwConfig& cfg, const Stats& system, int k);

struct SystemEnergy {
  EnergyEstimate total;             // every core's parts summed by name, plus "interconnect"
  std::vector<double> core_joules;  // core k's total
  double interconnect_bytes = 0;    // DRAM bytes every core moved (each crosses it once)
};

SystemEnergy estimate_system_energy(const HwConfig& cfg, const Stats& s);

}  // namespace vta::explore
