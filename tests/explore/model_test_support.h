// What the area and energy model tests share (test_area_model.cc, test_energy_model.cc,
// test_system_models.cc): pynq's config with other keys or element widths, and one named part
// of an energy estimate.
#pragma once

#include <string>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "vta/explore/energy_model.h"
#include "vta/sim/hw_config.h"

namespace vta::exploretest {

// pynq (the default config) with the keys of `extra` on top.
inline HwConfig pynq_with(const nlohmann::json& extra) {
  nlohmann::json j = HwConfig::default_config().to_json();
  j.update(extra);
  return HwConfig::from_json(j, "test");
}

// pynq (1x16x16, 64-bit bus) at other element widths; buffer sizes as configs/pynq_int*.json
// (the same depths as pynq's).
inline HwConfig pynq_at(int log_inp, int log_wgt, int log_acc) {
  nlohmann::json j = HwConfig::default_config().to_json();
  j["LOG_INP_WIDTH"] = log_inp;
  j["LOG_WGT_WIDTH"] = log_wgt;
  j["LOG_ACC_WIDTH"] = log_acc;
  j["LOG_INP_BUFF_SIZE"] = 15 + log_inp - 3;
  j["LOG_WGT_BUFF_SIZE"] = 18 + log_wgt - 3;
  j["LOG_ACC_BUFF_SIZE"] = 17 + log_acc - 5;
  return HwConfig::from_json(j, "pynq_at");
}

// The joules of the part `name` of `e`; fails the test when `e` has no such part.
inline double energy_part(const explore::EnergyEstimate& e, const std::string& name) {
  for (const auto& p : e.parts) {
    if (p.name == name) {
      return p.joules;
    }
  }
  FAIL("no energy part " << name);
  return 0;
}

}  // namespace vta::exploretest
