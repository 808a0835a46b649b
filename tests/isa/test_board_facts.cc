// The board table (sim/board_data/boards.json): every board complete and consistent with itself
// and with the JEDEC standards, the fallback to the default board, and the readers that take
// their facts from it (DRAM presets, TARGET values).
#include <catch2/catch.hpp>

#include <cmath>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "test_paths.h"
#include "vta/sim/board_facts.h"
#include "vta/sim/dram_spec.h"
#include "vta/sim/error.h"
#include "vta/sim/hw_config.h"

using namespace vta;

namespace {

// I/O voltage by standard: JESD79-3 (DDR3), JESD79-4 (DDR4), JESD209-4 (LPDDR4 VDDQ).
const std::map<std::string, double> kJedecVolts = {{"DDR3", 1.5}, {"DDR4", 1.2}, {"LPDDR4", 1.1}};

}  // namespace

TEST_CASE("board table: every board has its DRAM, with sources", "[config][boards]") {
  REQUIRE(board_names().size() >= 4);
  for (const nlohmann::json& b : board_entries()) {
    const std::string name = b.at("board").get<std::string>();
    INFO(name);
    const nlohmann::json& dram = b.at("dram");
    const std::string standard = dram.at("standard").get<std::string>();
    REQUIRE(kJedecVolts.count(standard) == 1);
    CHECK(dram.at("io_voltage_v").get<double>() == kJedecVolts.at(standard));
    CHECK(!dram.at("source").get<std::string>().empty());
    for (const char* section : {"fpga", "host_cpu"}) {
      if (b.contains(section)) {
        CHECK(b[section].dump().find("source") != std::string::npos);
      }
    }
  }
}

TEST_CASE("board table: a DRAM parameter set agrees with its name and its board",
          "[config][boards]") {
  for (const nlohmann::json& b : board_entries()) {
    if (!b.contains("dram_parameter_set")) {
      continue;
    }
    const std::string name = b["dram_parameter_set"].at("name").get<std::string>();
    INFO(name);
    const DramSpec d = dram_preset(name, "test");
    check_dram_spec(d, "test");
    CHECK(d.standard == b.at("dram").at("standard"));
    // "<board>-<standard>-<MT/s>-x<bits>": the name's rate and width follow from the keys.
    const double mts = 2.0e6 / d.tck_ps;
    const int bits = d.channels * d.bus_bits;
    CHECK(name.find("-" + d.standard + "-") != std::string::npos);
    CHECK(name.find("-x" + std::to_string(bits)) == name.size() - 2 - std::to_string(bits).size());
    const size_t rate_at = name.find(d.standard) + d.standard.size() + 1;
    CHECK(std::abs(std::stod(name.substr(rate_at)) - mts) < 2);
    // The host's DRAM peak (docs/host_cpu.md) is the same memory: within the rounding of its MT/s.
    if (b.contains("host_cpu")) {
      CHECK(b["host_cpu"].at("dram_peak_gb_per_s").get<double>() ==
            Approx(d.peak_bytes_per_ns()).epsilon(0.03));
    }
  }
}

TEST_CASE("board table: targets that are not boards get the default board's sections",
          "[config][boards]") {
  const nlohmann::json& pynq_host = board_section("pynq", "host_cpu");
  CHECK(&board_section("sim", "host_cpu") == &pynq_host);
  // intelfocl has its own DRAM but no host CPU and no parameter set.
  CHECK(board_section("intelfocl", "dram").at("standard") == "DDR4");
  CHECK(&board_section("intelfocl", "host_cpu") == &pynq_host);
  CHECK(default_dram_preset("intelfocl") == "PYNQ-Z1-DDR3-1066-x16");
  CHECK(default_dram_preset("zcu104") == "ZCU104-DDR4-2400-x64");
  CHECK_THROWS_AS(board_section("pynq", "no-such-section"), Error);
}

TEST_CASE("board table: every board is a TARGET value", "[config][boards]") {
  nlohmann::json j = HwConfig::from_file(config_path("pynq")).to_json();
  for (const std::string& b : board_names()) {
    j["TARGET"] = b;
    CHECK(HwConfig::from_json(j, "test.json").target == b);
  }
}
