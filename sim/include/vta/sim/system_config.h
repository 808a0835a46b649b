// The system keys of a configuration (docs/multicore.md): CORES, the number of VTA cores or a
// list of per-core key overrides, and the interconnect in front of the one shared DRAM
// (INTERCONNECT_LATENCY_CYCLES, INTERCONNECT_BYTES_PER_CYCLE). Without CORES a configuration is
// the single core it always was; the interconnect keys then are an error naming them.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "vta/sim/hw_config.h"

namespace vta {

// True for CORES and the INTERCONNECT_* keys.
bool is_system_key(const std::string& key);

// The keys a CORES list entry may override: those of one core's datapath and queues. The
// memory, bus, clock, energy and target keys belong to the system (one DRAM, one clock).
bool is_per_core_key(const std::string& key);

// `j` without the system keys (what every core shares).
nlohmann::json without_system_keys(const nlohmann::json& j);

// Reads the system keys of `j` into `c` (whose own keys are already parsed from the shared keys)
// and builds c.core_configs; a list makes c's own core keys those of core 0. Throws ConfigError
// naming the key (and the list entry) on any problem.
void parse_system_keys(const nlohmann::json& j, const std::string& src, HwConfig& c);

// Writes the system keys of `c` into `j` (nothing without CORES). A list is written with every
// per-core key of every core, so parsing the result gives the same cores.
void system_keys_to_json(const HwConfig& c, nlohmann::json& j);

}  // namespace vta
