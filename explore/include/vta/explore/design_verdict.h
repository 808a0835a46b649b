// DesignVerdict: whether a design can be built on a device, judged three ways: its resources
// (area model) within the device's budget, its memory bus no wider than one of the device's
// memory ports, and its clock no faster than the device can be expected to reach for a GEMM
// array of its size (the clock model, calibrated on the published VTA board builds).
#pragma once

#include <string>

#include <nlohmann/json_fwd.hpp>

#include "vta/explore/fpga_device.h"
#include "vta/sim/hw_config.h"

namespace vta::explore {

struct FitVerdict {
  bool fits = false;
  double lut = 0, ff = 0, dsp = 0, bram36 = 0;  // utilisation, used / budget
  std::string binding;                          // the resource with the highest utilisation
};
// Resources only: every one within the device's budget (LUT-RAM cells count against the LUTs).
FitVerdict check_fit(const FpgaResources& used, const FpgaDevice& device);

// The rule: VTA's core has one AXI master, so its bus must fit one port of the device; a wider
// bus would need a splitting interconnect the RTL does not have, and is not buildable.
struct PortVerdict {
  bool fits = false;
  int bus_bits = 0;
  int port_width_bits = 0;
};
PortVerdict check_ports(int bus_bits, const FpgaDevice& device);

// The clock the device can be expected to reach with a GEMM array of `macs` MACs per cycle:
// the published build's clock at the reference array (1x16x16), the period growing by a fixed
// share per doubling beyond it, never faster than the published clock for smaller arrays.
double achievable_clock_mhz(const FpgaDevice& device, double macs);
// True when `macs` differs from the arrays of the published builds the model rests on.
bool clock_estimate_extrapolated(double macs);

// What the verdicts need of a design; every field is stored in a sweep row.
struct DesignTraits {
  FpgaResources used;
  int bus_bits = 0;
  double macs = 0;  // GEMM MACs per cycle (BATCH x BLOCK_IN x BLOCK_OUT)
  double clock_mhz = 0;
};

DesignTraits design_traits(const HwConfig& cfg, const FpgaResources& used);
// From a sweep row's columns (area_*, bus_bits, gemm_macs, CLOCK_MHZ); false when the row lacks
// one (a job that did not resolve its config, or a database from before these columns).
bool design_traits_of_row(const nlohmann::json& row, DesignTraits& out);

struct DesignVerdict {
  std::string device;  // the part judged against
  FitVerdict resources;
  PortVerdict port;
  double clock_estimate_mhz = 0;
  bool clock_ok = false;
  bool clock_extrapolated = false;
  bool clock_counted = true;  // false when the user chose to ignore the clock estimate
  bool fits = false;          // resources, port and (when counted) clock
  std::string why_not;        // "" when it fits; else the first failing check, e.g. "dsp 282%"
  nlohmann::ordered_json to_json() const;
};

// `count_clock` false: a design above the clock estimate still fits (it is still marked).
DesignVerdict judge_design(const DesignTraits& design, const FpgaDevice& device,
                           bool count_clock = true);

}  // namespace vta::explore
