// The system keys (docs/multicore.md): CORES as a number or a list of per-core overrides, the
// interconnect keys, and the errors naming the key.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "vta/sim/config_source.h"
#include "vta/sim/error.h"
#include "vta/sim/hw_config.h"

using Catch::Matchers::Contains;
using vta::HwConfig;

namespace {

nlohmann::json pynq_keys() {
  return vta::resolve_config("pynq_fixed", {}).keys;
}

}  // namespace

TEST_CASE("multicore config: without CORES a config is one core with no interconnect",
          "[multicore]") {
  const HwConfig c = HwConfig::from_json(pynq_keys(), "pynq");
  CHECK(c.cores == 0);
  CHECK(c.num_cores() == 1);
  CHECK(&c.core_config(0) == &c);
  CHECK_FALSE(c.to_json().contains("CORES"));
}

TEST_CASE("multicore config: CORES = N gives N equal cores and default interconnect keys",
          "[multicore]") {
  nlohmann::json j = pynq_keys();
  j["CORES"] = 4;
  const HwConfig c = HwConfig::from_json(j, "four");
  REQUIRE(c.num_cores() == 4);
  CHECK(c.interconnect_latency_cycles == 0);
  CHECK(c.interconnect_bytes_per_cycle == c.bus_bytes);  // documented default: one bus beat
  CHECK(c.core_config(3).block_in == c.block_in);
  // The keys round-trip, and "CORES": 4 stays a number.
  const HwConfig again = HwConfig::from_json(c.to_json(), "again");
  CHECK(again.to_json() == c.to_json());
  CHECK(c.to_json().at("CORES") == 4);
}

TEST_CASE("multicore config: a CORES list gives cores that differ", "[multicore]") {
  nlohmann::json j = pynq_keys();
  j["CORES"] = nlohmann::json::array({nlohmann::json::object(), {{"LOG_BLOCK", 5}}});
  j["INTERCONNECT_LATENCY_CYCLES"] = 4;
  j["INTERCONNECT_BYTES_PER_CYCLE"] = 16;
  const HwConfig c = HwConfig::from_json(j, "mixed");
  REQUIRE(c.num_cores() == 2);
  CHECK(c.core_config(0).block_in == 16);
  CHECK(c.core_config(1).block_in == 32);
  CHECK(c.block_in == 16);  // the config's own core keys are core 0's
  CHECK(c.interconnect_latency_cycles == 4);
  CHECK(c.interconnect_bytes_per_cycle == 16);
  const HwConfig again = HwConfig::from_json(c.to_json(), "again");
  CHECK(again.core_config(1).block_in == 32);
  CHECK(again.to_json() == c.to_json());
}

TEST_CASE("multicore config: errors name the key", "[multicore]") {
  const auto error_of = [](const nlohmann::json& j) {
    try {
      (void)HwConfig::from_json(j, "cfg");
    } catch (const vta::ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  nlohmann::json j = pynq_keys();
  j["CORES"] = 0;
  CHECK_THAT(error_of(j), Contains("key 'CORES' = 0 is out of range [1, 16]"));
  j["CORES"] = "two";
  CHECK_THAT(error_of(j), Contains("key 'CORES' must be an integer"));
  j["CORES"] = nlohmann::json::array();
  CHECK_THAT(error_of(j), Contains("key 'CORES' lists 0 cores"));
  j["CORES"] = nlohmann::json::array({{{"DRAM_READ_LATENCY_CYCLES", 3}}});
  CHECK_THAT(error_of(j), Contains("CORES[0]: key 'DRAM_READ_LATENCY_CYCLES' cannot "
                                   "differ between cores"));
  j["CORES"] = nlohmann::json::array({{{"LOG_BLOCK", 9}}});
  CHECK_THAT(error_of(j), Contains("CORES[0]: key 'LOG_BLOCK' = 9 is out of range"));
  j["CORES"] = nlohmann::json::array({3});
  CHECK_THAT(error_of(j), Contains("CORES[0] must be an object"));
  j["CORES"] = 2;
  j["INTERCONNECT_BYTES_PER_CYCLE"] = 0;
  CHECK_THAT(error_of(j), Contains("key 'INTERCONNECT_BYTES_PER_CYCLE' = 0 is out of"));
  j.erase("CORES");
  CHECK_THAT(error_of(j), Contains("key 'INTERCONNECT_BYTES_PER_CYCLE' needs CORES"));
  j.erase("INTERCONNECT_BYTES_PER_CYCLE");
  j["CORES"] = 2;
  j["INTERCONNECT_ARBITRATION"] = "round_robin";
  CHECK_THAT(error_of(j), Contains("key 'INTERCONNECT_ARBITRATION' = \"round_robin\" is not "
                                   "available; the interconnect grants the requests of one "
                                   "cycle in core order (\"fixed\")"));
  j["INTERCONNECT_ARBITRATION"] = "fixed";
  CHECK_THAT(error_of(j), Contains("no error"));
  CHECK_FALSE(HwConfig::from_json(j, "cfg").to_json().contains("INTERCONNECT_ARBITRATION"));
}
