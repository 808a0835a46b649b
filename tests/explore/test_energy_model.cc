// The energy model against numbers worked out by hand from the table in explore/README.md.
#include <catch2/catch.hpp>

#include <cmath>

#include <nlohmann/json.hpp>

#include "vta/explore/energy_model.h"
#include "vta/sim/hw_config.h"

#include "model_test_support.h"

using vta::HwConfig;
using vta::Stats;
using vta::explore::estimate_energy;
using vta::exploretest::energy_part;
using vta::exploretest::pynq_at;

TEST_CASE("energy: GEMM micro-ops on pynq, by hand", "[explore][energy]") {
  const HwConfig& pynq = HwConfig::default_config();  // 1x16x16, 32 KiB inp, 256 KiB wgt
  Stats s;
  s.gemm_counter = 1000;
  const auto e = estimate_energy(pynq, s);
  // 1000 micro-ops x 256 MACs x 0.3 pJ = 76.8 nJ.
  CHECK(energy_part(e, "gemm.mac") == Approx(76.8e-9));
  // inp SRAM, 32 KiB: 1.25 pJ/B x sqrt(4) = 2.5 pJ/B; 1000 reads of a 16-byte tile = 40 nJ.
  CHECK(energy_part(e, "sram.inp") == Approx(40e-9));
  // wgt SRAM, 256 KiB: 1.25 x sqrt(32) pJ/B; 1000 reads of 256 bytes.
  CHECK(energy_part(e, "sram.wgt") == Approx(1000 * 256 * 1.25e-12 * std::sqrt(32.0)));
  // acc SRAM, 128 KiB: 1.25 x 4 = 5 pJ/B; one 64-byte read and one write per micro-op = 640 nJ.
  CHECK(energy_part(e, "sram.acc") == Approx(640e-9));
  // fsim stats are untimed: no static energy.
  CHECK(energy_part(e, "static") == 0);
}

TEST_CASE("energy: DRAM by the board's standard, static power over time", "[explore][energy]") {
  HwConfig pynq = HwConfig::default_config();
  Stats s;
  s.inp_load_nbytes = 1000;
  s.out_store_nbytes = 500;
  s.insn_count[0] = 10;  // 10 LOADs: 160 bytes of instructions fetched
  s.timed = true;
  s.cycles = 100000;  // 1 ms at 100 MHz
  const auto e = estimate_energy(pynq, s);
  // DDR3: (1.3 + 2.6) / 2 nJ per 8 bytes = 243.75 pJ/B.
  CHECK(energy_part(e, "dram.read") == Approx(1160 * 243.75e-12));
  CHECK(energy_part(e, "dram.write") == Approx(500 * 243.75e-12));
  CHECK(energy_part(e, "static") == Approx(0.1 * 1e-3));  // 100 mW x 1 ms
  CHECK(e.params.dram_type == "DDR3");

  HwConfig zcu = pynq;
  zcu.target = "zcu104";  // DDR4: DDR3 x (1.2 / 1.5)^2
  const auto e4 = estimate_energy(zcu, s);
  CHECK(e4.params.dram_type == "DDR4");
  CHECK(energy_part(e4, "dram.write") == Approx(500 * 243.75e-12 * 0.64));
  CHECK(e4.total_joules() < e.total_joules());
}

TEST_CASE("energy: ENERGY_* config keys override the table", "[explore][energy]") {
  nlohmann::json j = HwConfig::default_config().to_json();
  j["ENERGY_MAC_PJ"] = 1.0;
  j["ENERGY_STATIC_MW"] = 0;
  const HwConfig cfg = HwConfig::from_json(j, "test");
  Stats s;
  s.gemm_counter = 10;
  s.timed = true;
  s.cycles = 1000;
  const auto e = estimate_energy(cfg, s);
  CHECK(energy_part(e, "gemm.mac") == Approx(10 * 256 * 1e-12));
  CHECK(energy_part(e, "static") == 0);
  CHECK(cfg.to_json().at("ENERGY_MAC_PJ") == 1.0);
  j["ENERGY_ALU_OP_PJ"] = -1;
  CHECK_THROWS_WITH(HwConfig::from_json(j, "test"),
                    Catch::Contains("key 'ENERGY_ALU_OP_PJ' = -1 must be a number > 0"));
}

TEST_CASE("energy: MAC and ALU energies follow the element widths, by hand", "[explore][energy]") {
  // Horowitz (45 nm): 8-bit multiply 0.2 pJ, 8-bit add 0.03 pJ, 32-bit add 0.1 pJ. A multiply
  // scales with a x b bits (16 x 16: 4 x 0.2 pJ); an add linearly between 8 and 32 bits
  // (16 bits: 0.03 + 0.07 x 8 / 24 pJ).
  CHECK(vta::explore::multiply_pj(8, 8) == Approx(0.2));
  CHECK(vta::explore::multiply_pj(4, 4) == Approx(0.05));
  CHECK(vta::explore::multiply_pj(16, 16) == Approx(0.8));
  CHECK(vta::explore::multiply_pj(32, 32) == Approx(3.2));  // Horowitz: 3.1 pJ
  CHECK(vta::explore::multiply_pj(4, 8) == Approx(0.1));
  CHECK(vta::explore::add_pj(8) == Approx(0.03));
  CHECK(vta::explore::add_pj(32) == Approx(0.1));
  CHECK(vta::explore::add_pj(16) == Approx(0.03 + 0.07 / 3));

  Stats s;
  s.gemm_counter = 1000;  // 256 MACs each
  s.alu_counter = 100;    // 16 lanes each
  const double add16 = 0.03 + 0.07 / 3;
  const auto i4 = estimate_energy(pynq_at(2, 2, 4), s);
  CHECK(i4.params.mac_pj == Approx(0.05 + add16));
  CHECK(energy_part(i4, "gemm.mac") == Approx(256000 * (0.05 + add16) * 1e-12));
  CHECK(energy_part(i4, "alu.op") == Approx(1600 * add16 * 1e-12));
  const auto i8 = estimate_energy(pynq_at(3, 3, 5), s);
  CHECK(i8.params.mac_pj == Approx(0.3));  // the int8 x int8 -> int32 MAC as before
  CHECK(energy_part(i8, "alu.op") == Approx(1600 * 0.1e-12));
  CHECK(estimate_energy(pynq_at(4, 4, 5), s).params.mac_pj == Approx(0.9));
  CHECK(estimate_energy(pynq_at(5, 5, 5), s).params.mac_pj == Approx(3.3));
  // SRAM traffic is in bytes, so it follows the widths too: an int4 input tile (16 lanes) is 8
  // bytes, read 1000 times from a 16 KiB buffer at 1.25 x sqrt(2) pJ/B.
  CHECK(energy_part(i4, "sram.inp") == Approx(1000 * 8 * 1.25e-12 * std::sqrt(2.0)));
  CHECK(energy_part(i8, "sram.inp") == Approx(1000 * 16 * 1.25e-12 * std::sqrt(4.0)));
}
