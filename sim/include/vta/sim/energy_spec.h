// EnergySpec: the optional ENERGY_* keys of a config, which override entries of the energy
// model's table (explore/README.md): ENERGY_MAC_PJ, ENERGY_ALU_OP_PJ,
// ENERGY_SRAM_PJ_PER_BYTE_8KIB, ENERGY_DRAM_PJ_PER_BYTE (picojoules) and ENERGY_STATIC_MW
// (milliwatts). The config parser validates them; the exploration layer uses them.
#pragma once

#include <map>
#include <string>

#include <nlohmann/json_fwd.hpp>

namespace vta {

struct EnergySpec {
  std::map<std::string, double> overrides;  // key -> value, only the keys the config sets
};

bool is_energy_key(const std::string& key);
// Reads the ENERGY_* keys of `j`; throws ConfigError naming `source` and the key when a value
// is not a number >= 0 (> 0 for the per-event energies).
EnergySpec parse_energy_spec(const nlohmann::json& j, const std::string& source);
void energy_spec_to_json(const EnergySpec& spec, nlohmann::json& j);

}  // namespace vta
