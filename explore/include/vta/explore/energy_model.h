// EnergyModel: an estimate of the energy a run took, from the counters every backend already
// reports (the seven upstream counters, the instruction counts and the cycles) and the design's
// config. Each event has one energy per occurrence from the table in energy_model.cc, whose
// sources explore/README.md lists; a config may override each entry (ENERGY_* keys).
//
// What it is: a first-order, technology-normalised account (45 nm figures) that ranks designs
// and shows where energy goes. What it is not: a power-analysis of the synthesized netlist.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "vta/sim/hw_config.h"
#include "vta/sim/stats.h"

namespace vta::explore {

// Energies per event, in picojoules (static power in milliwatts).
struct EnergyParams {
  double mac_pj = 0;                 // one inp x wgt multiply + one add at the acc width
  double alu_op_pj = 0;              // one ALU lane operation (an add at the acc width)
  double sram_pj_per_byte_8kib = 0;  // SRAM access energy per byte for an 8 KiB array
  double dram_pj_per_byte = 0;       // DRAM read or write per byte, including I/O
  double static_mw = 0;              // static power of the accelerator's share of the device
  std::string dram_type;             // the DRAM standard the default DRAM energy is for

  // The defaults for this design (MAC and ALU energies by its element widths, DRAM energy by the
  // board's DRAM standard), with any ENERGY_* override of the config applied.
  static EnergyParams for_config(const HwConfig& cfg);
};

// Energy of one signed a_bits x b_bits multiply and of one bits-wide add (45 nm, Horowitz
// ISSCC 2014: the multiply scales with a_bits x b_bits, the add linearly in its width; the
// rules and their error against the source are in explore/README.md).
double multiply_pj(int a_bits, int b_bits);
double add_pj(int bits);

// SRAM energy per byte of an array of `bytes`: grows with the square root of its size, the
// shape of Horowitz's 8 KiB / 32 KiB / 1 MiB figures.
double sram_pj_per_byte(const EnergyParams& p, double bytes);

// One component of the estimate.
struct EnergyPart {
  std::string name;  // "gemm.mac", "sram.wgt", "dram.read", "static", ...
  double joules = 0;
};

struct EnergyEstimate {
  std::vector<EnergyPart> parts;
  double total_joules() const;
  // {"total_j": ..., "parts": {"gemm.mac": ..., ...}, "params": {...}}
  nlohmann::ordered_json to_json() const;
  EnergyParams params;
  // Where the estimate leaves the range of its sources ("sram.uop 4 KiB outside 8 KiB..1 MiB").
  std::vector<std::string> extrapolated;
};

// The energy of everything counted in `stats`, on design `cfg`. Untimed stats (fsim) get no
// static energy (there is no time).
EnergyEstimate estimate_energy(const HwConfig& cfg, const Stats& stats);

}  // namespace vta::explore
