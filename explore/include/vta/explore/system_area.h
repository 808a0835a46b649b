// SystemArea: FPGA resources of a system of several VTA cores (a config with CORES,
// docs/multicore.md): the sum of every core's area model (cores may differ) plus the
// interconnect that puts their memory masters on the one DRAM port. Without CORES it is the core
// alone, exactly estimate_area.
#pragma once

#include <vector>

#include "vta/explore/area_model.h"
#include "vta/explore/fpga_device.h"
#include "vta/sim/hw_config.h"

namespace vta::explore {

// An estimate of the interconnect of `ports` AXI masters onto one slave port, each channel
// `width_bits` wide: a first-come-first-served arbiter per direction and the N:1 multiplexers of
// the read-address, write-address and write-data channels (the read data is broadcast, only its
// valid is decoded per core). Not calibrated on a synthesis run: counted from the structure, one
// LUT6 per 4:1 multiplexer bit (explore/README.md, "Several cores"). One port needs none.
FpgaResources interconnect_area(int ports, int width_bits);

struct SystemArea {
  AreaEstimate total;               // cores and interconnect summed (what fits-the-part uses)
  std::vector<AreaEstimate> cores;  // core k's own estimate
  FpgaResources interconnect;
};

// Sum of estimate_area(core_config(k)) over the cores plus interconnect_area(cores, channel
// bits), the channel INTERCONNECT_BYTES_PER_CYCLE wide; `extrapolated` lists every core's flags
// once. Without CORES: the single core, no interconnect.
SystemArea estimate_system_area(const HwConfig& cfg);

}  // namespace vta::explore
