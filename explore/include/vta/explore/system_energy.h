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

// How a system run's Stats hold core 0's counts. kOwn: its upstream fields are core 0's own (a
// run of the backend, Backend::stats(): the sweep's replicated mode). kSummed: every core's
// counts are added into them, as the compiler reports a layer split over the cores
// (layer_runner.cc); core 0's are then those fields less the other cores' "coreK.*" ones. A layer
// that ran on core 0 alone has no other core's counts, so it reads the same either way.
enum class CoreCounts { kOwn, kSummed };

// Core k's counters out of a system run's Stats: core 0's own fields (kSummed: less the other
// cores'); for k >= 1 the
// "coreK.<counter>" mirrors (upstream counters, runs, unit and memory counters), its instruction
// fetch counted from "coreK.mem.fetch.read_bytes" when the backend reports it. `cycles` is the
// system's ("system.cycles" when present, else the Stats' own), as every core is powered for the
// whole run.
Stats core_counters(const HwConfig& cfg, const Stats& system, int k,
                    CoreCounts counts = CoreCounts::kOwn);

struct SystemEnergy {
  EnergyEstimate total;             // every core's parts summed by name, plus "interconnect"
  std::vector<double> core_joules;  // core k's total
  double interconnect_bytes = 0;    // DRAM bytes every core moved (each crosses it once)
};

SystemEnergy estimate_system_energy(const HwConfig& cfg, const Stats& s,
                                    CoreCounts counts = CoreCounts::kOwn);

}  // namespace vta::explore
