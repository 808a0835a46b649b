// FpgaDevice: the boards a design is judged against (part, resource budgets, DRAM standard, the
// memory ports of the processing system, the published VTA clock): the boards of the board
// table (sim/board_data/boards.json, vta/sim/board_facts.h) that have an "fpga" section, which
// the area model's fit, the sweep rows and the report all use.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace vta::explore {

struct FpgaResources {
  double lut = 0;     // logic LUTs (LUT1..LUT6)
  double lutram = 0;  // LUT-RAM / shift-register cells (small memories, FIFOs)
  double ff = 0;      // flip-flops
  double dsp = 0;     // DSP48E1 slices
  double bram36 = 0;  // 36 Kb block RAMs (a RAMB18 counts one half)
};

// The processing system's ports a master in the fabric reaches DRAM through.
struct MemoryPorts {
  std::string name;          // "S_AXI_HP0..HP3", ...
  int count = 0;             // ports of this kind
  int width_bits = 0;        // widest data bus of one port
  int total_width_bits = 0;  // all ports together (0: count x width_bits)
};

struct FpgaDevice {
  std::string board;     // "pynq", "ultra96", "zcu104", "de10nano"
  std::string part;      // "xc7z020", ...
  std::string family;    // "Zynq-7000", ...
  FpgaResources budget;  // in the units of FpgaResources (Cyclone V converted, see the source)
  std::string source;    // where the budget comes from
  std::string dram;      // "DDR3", "DDR4", "LPDDR4"
  MemoryPorts ports;
  std::string ports_source;
  double reference_clock_mhz = 0;  // the published VTA build's clock (1x16x16 GEMM)
  std::string clock_source;
  nlohmann::ordered_json to_json() const;
};

const std::vector<FpgaDevice>& fpga_devices();
// The device of a board name (config TARGET) or a part name; nullptr when unknown.
const FpgaDevice* find_device(const std::string& board_or_part);
// "pynq, ultra96, ..." for error messages.
std::string device_names();

// The achievable-clock model's constants (explore/device_data/clock_model.json).
struct ClockModelParams {
  double reference_macs = 0;              // GEMM MACs per cycle of the published builds
  double period_growth_per_doubling = 0;  // clock period growth per doubling of the array
  std::string source;
};
const ClockModelParams& clock_model_params();

}  // namespace vta::explore
