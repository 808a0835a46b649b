// Whether a design can be built on a device: the device table against the vendors' documents,
// the port rule, the clock model against the published VTA builds, the area model's
// extrapolation flag, and a report's verdicts recomputed for a device other than the sweep's.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include <nlohmann/json.hpp>

#include "vta/explore/area_model.h"
#include "vta/explore/design_verdict.h"
#include "vta/explore/report_verdicts.h"
#include "vta/sim/error.h"
#include "vta/sim/hw_config.h"

using namespace vta::explore;

TEST_CASE("devices: budgets and memory ports as the data sheets give them", "[explore][device]") {
  const FpgaDevice* z7 = find_device("pynq");
  const FpgaDevice* zu7 = find_device("xczu7ev");
  const FpgaDevice* cv = find_device("de10nano");
  REQUIRE(z7 != nullptr);
  REQUIRE(zu7 != nullptr);
  REQUIRE(cv != nullptr);
  // DS190: XC7Z020 220 DSP slices; UG585: four 64-bit AXI_HP ports.
  CHECK(z7->budget.dsp == 220);
  CHECK(z7->ports.count == 4);
  CHECK(z7->ports.width_bits == 64);
  // DS891: XCZU7EV 1,728 DSP slices; UG1085: HP0-3 and HPC0-1, 128 bits.
  CHECK(zu7->board == "zcu104");
  CHECK(zu7->budget.dsp == 1728);
  CHECK(zu7->ports.count == 6);
  CHECK(zu7->ports.width_bits == 128);
  // Cyclone V HPS TRM: FPGA-to-HPS SDRAM ports together at most 256 bits.
  CHECK(cv->ports.total_width_bits == 256);
  // pkg_config.py: pynq and de10nano at 100 MHz, ultra96 and zcu104 at 333 MHz.
  CHECK(z7->reference_clock_mhz == 100);
  CHECK(find_device("ultra96")->reference_clock_mhz == 333);
  CHECK(zu7->reference_clock_mhz == 333);
  CHECK(cv->reference_clock_mhz == 100);
}

namespace {

DesignTraits traits(double dsp, int bus_bits, double macs, double clock_mhz) {
  DesignTraits d;
  d.used = {20000, 0, 20000, dsp, 50};
  d.bus_bits = bus_bits;
  d.macs = macs;
  d.clock_mhz = clock_mhz;
  return d;
}

}  // namespace

TEST_CASE("verdict: a bus wider than the device's ports is not buildable", "[explore][device]") {
  const DesignVerdict on_pynq = judge_design(traits(100, 128, 256, 100), *find_device("pynq"));
  CHECK(on_pynq.resources.fits);
  CHECK_FALSE(on_pynq.port.fits);
  CHECK_FALSE(on_pynq.fits);
  CHECK(on_pynq.why_not == "128-bit bus wider than the xc7z020's 64-bit memory ports");
  CHECK(judge_design(traits(100, 128, 256, 300), *find_device("zcu104")).fits);
  CHECK_FALSE(judge_design(traits(100, 256, 256, 300), *find_device("zcu104")).port.fits);
}

TEST_CASE("verdict: the clock estimate and a design above it", "[explore][device]") {
  const FpgaDevice& zcu104 = *find_device("zcu104");
  // The published builds (1x16x16 = 256 MACs) are reproduced exactly.
  CHECK(achievable_clock_mhz(zcu104, 256) == Approx(333));
  CHECK(achievable_clock_mhz(*find_device("pynq"), 256) == Approx(100));
  CHECK_FALSE(clock_estimate_extrapolated(256));
  // Two doublings beyond 256 MACs: the period grows by 2 x 10 %: 333 / 1.2 = 277.5 MHz.
  CHECK(achievable_clock_mhz(zcu104, 1024) == Approx(277.5));
  CHECK(clock_estimate_extrapolated(1024));
  // Smaller arrays are never promised more than the published clock.
  CHECK(achievable_clock_mhz(zcu104, 64) == Approx(333));
  const DesignVerdict fast = judge_design(traits(600, 128, 1024, 333), zcu104);
  CHECK(fast.resources.fits);
  CHECK_FALSE(fast.clock_ok);
  CHECK_FALSE(fast.fits);
  CHECK(fast.why_not == "333 MHz above the xczu7ev's estimated 278 MHz");
  const DesignVerdict allowed = judge_design(traits(600, 128, 1024, 333), zcu104, false);
  CHECK(allowed.fits);
  CHECK_FALSE(allowed.clock_ok);  // still marked
  CHECK(judge_design(traits(600, 128, 1024, 250), zcu104).fits);
}

TEST_CASE("area: estimates outside the calibrated designs are flagged", "[explore][area]") {
  // Calibrated on 1x8x8 .. 1x64x64 / 4x8x8 / 2x16x16: 64-4096 MACs, weight registers of 8x8
  // int4 to 64x64 int8 (256-32768 bits), 8-64 lanes of 16 or 32 bits, 64-128 bus bits.
  CHECK(estimate_area(vta::HwConfig::default_config()).extrapolated.empty());
  auto j = vta::HwConfig::default_config().to_json();
  j["LOG_BLOCK"] = 5;  // 1x32x32: inside
  CHECK(estimate_area(vta::HwConfig::from_json(j, "1x32 test config")).extrapolated.empty());
  j["LOG_BLOCK"] = 6;  // 4x64x64: 16384 MACs, 256 lanes
  j["LOG_BATCH"] = 2;
  j["LOG_BUS_WIDTH"] = 8;
  const auto big = estimate_area(vta::HwConfig::from_json(j, "4x64 test config"));
  const auto flagged = [&](const std::string& what) {
    return std::find(big.extrapolated.begin(), big.extrapolated.end(), what) !=
           big.extrapolated.end();
  };
  CHECK(flagged("macs 16384 > 4096"));
  CHECK(flagged("acc_lane_bits 8192 > 2048"));    // 256 lanes x 32 bits; 64 x 32 calibrated
  CHECK(flagged("mac_add_bits 376832 > 94208"));  // 16384 MACs x 23-bit sums; 4096 x 23
  CHECK(flagged("bus_bits 256 > 128"));
  CHECK_FALSE(flagged("wgt_bits 32768 > 32768"));  // the 64x64 weights are inside
}

TEST_CASE("report: verdicts recomputed for the device asked, not the row's", "[explore][device]") {
  // A row the sweep judged against the xczu7ev (it fits there): 620 DSPs, 128-bit bus.
  nlohmann::ordered_json row = {{"row_kind", "summary"}, {"status", "ok"},   {"point_id", "p1"},
                                {"device", "xczu7ev"},   {"fits", 1},        {"area_lut", 60000},
                                {"area_lutram", 1000},   {"area_ff", 50000}, {"area_dsp", 620},
                                {"area_bram36", 120},    {"bus_bits", 128},  {"gemm_macs", 1024},
                                {"CLOCK_MHZ", 200}};
  const std::vector<nlohmann::ordered_json> rows = {row};
  const auto own = report_devices("", rows);
  REQUIRE(own.size() == 1);
  CHECK(own[0]->part == "xczu7ev");
  const auto both = report_devices("pynq,zcu104", rows);
  const auto v = report_verdicts(rows, both, true);
  CHECK(v["devices"][0]["part"] == "xc7z020");
  // 620 DSPs on the xc7z020's 220: 282 %, refused whatever the row's `fits` said.
  CHECK(v["verdicts"]["p1"]["xc7z020"]["fits"] == false);
  CHECK(v["verdicts"]["p1"]["xc7z020"]["why_not"] == "dsp 282% of the xc7z020");
  CHECK(v["verdicts"]["p1"]["xczu7ev"]["fits"] == true);
  CHECK_THROWS_WITH(report_devices("zcu104,nope", rows),
                    "unknown device 'nope' (one of pynq, ultra96, zcu104, de10nano)");
  auto other = row;
  other["device"] = "xc7z020";
  CHECK_THROWS_WITH(report_devices("", {row, other}),
                    Catch::Contains("judged against 2 devices (xc7z020, xczu7ev)"));
}
