// The facts about each board a configuration can name (TARGET), once: its FPGA (part, resource
// budget, memory ports, published VTA clock), its DRAM (standard, I/O voltage, the DRAM model's
// parameter set) and its host CPU, each with its sources. The table is
// sim/board_data/boards.json, compiled in (sim/core.cmake); each reader takes its own section:
//   "fpga"               explore/src/fpga_device.cc (area fit, sweep rows, report)
//   "dram"               explore/src/energy_model.cc (DRAM energy), fpga_device.cc
//   "dram_parameter_set" sim/src/dram_spec.cc (DRAM_PRESET and the default per TARGET)
//   "host_cpu"           compiler/src/run/host_cpu.cc (host layers' time)
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace vta {

// Every board's entry ("board" and its sections), in table order.
const nlohmann::json& board_entries();
// The names of the boards, in table order.
std::vector<std::string> board_names();
// Section `section` of board `target`: the board's own, else (a target that is not a board,
// e.g. sim, or a board without that section) the default board's. Throws Error if the default
// board has none either.
const nlohmann::json& board_section(const std::string& target, const std::string& section);

}  // namespace vta
