#include "vta/sim/energy_spec.h"

#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "vta/sim/error.h"

namespace vta {

namespace {

struct EnergyKey {
  const char* name;
  bool may_be_zero;
};

const EnergyKey kEnergyKeys[] = {
    {"ENERGY_MAC_PJ", false},
    {"ENERGY_ALU_OP_PJ", false},
    {"ENERGY_SRAM_PJ_PER_BYTE_8KIB", false},
    {"ENERGY_DRAM_PJ_PER_BYTE", false},
    {"ENERGY_STATIC_MW", true},
};

}  // namespace

bool is_energy_key(const std::string& key) {
  for (const auto& k : kEnergyKeys) {
    if (key == k.name) {
      return true;
    }
  }
  return false;
}

EnergySpec parse_energy_spec(const nlohmann::json& j, const std::string& src) {
  EnergySpec s;
  for (const auto& k : kEnergyKeys) {
    if (!j.contains(k.name)) {
      continue;
    }
    const auto& v = j.at(k.name);
    const double x = v.is_number() ? v.get<double>() : -1;
    if (!v.is_number() || !std::isfinite(x) || x < 0 || (x == 0 && !k.may_be_zero)) {
      throw ConfigError(fmt::format("{}: key '{}' = {} must be a number {} 0", src, k.name,
                                    v.dump(), k.may_be_zero ? ">=" : ">"));
    }
    s.overrides[k.name] = x;
  }
  return s;
}

void energy_spec_to_json(const EnergySpec& spec, nlohmann::json& j) {
  for (const auto& [key, value] : spec.overrides) {
    j[key] = value;
  }
}

}  // namespace vta
