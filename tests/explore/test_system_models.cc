// Area and energy of systems of several cores (CORES, docs/multicore.md): the cores' own
// estimates summed plus the interconnect, whose figures are worked out by hand from the rule in
// explore/README.md ("Several cores").
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "vta/explore/design_verdict.h"
#include "vta/explore/fpga_device.h"
#include "vta/explore/system_area.h"
#include "vta/explore/system_energy.h"
#include "vta/sim/hw_config.h"

#include "model_test_support.h"

using vta::HwConfig;
using vta::Stats;
using vta::explore::estimate_area;
using vta::explore::estimate_energy;
using vta::explore::estimate_system_area;
using vta::explore::estimate_system_energy;
using vta::explore::interconnect_area;
using vta::exploretest::energy_part;
using vta::exploretest::pynq_with;

TEST_CASE("system area: the interconnect by hand", "[explore][area][multicore]") {
  // 2 ports, 64-bit data: every multiplexed bit one LUT (ceil(1/3)); multiplexed bits: two
  // 46-bit address channels + 64 data + 8 strobes + last = 165; arbiters 2 x (2 x 2 + 8) plus
  // 2 x 2 decoded valids = 28 LUTs. FFs: 165 + 2 x (2 + 8) = 185.
  CHECK(interconnect_area(2, 64).lut == 193);
  CHECK(interconnect_area(2, 64).ff == 185);
  // 4 ports: still one LUT6 per bit (a 4:1 multiplexer); arbiters 2 x 16 + 8 = 40.
  CHECK(interconnect_area(4, 64).lut == 205);
  CHECK(interconnect_area(4, 64).ff == 189);
  // 8 ports: ceil(7 / 3) = 3 LUTs per bit: 495; arbiters 2 x 24 + 16 = 64.
  CHECK(interconnect_area(8, 64).lut == 559);
  CHECK(interconnect_area(1, 64).lut == 0);  // one core: wires
  CHECK(interconnect_area(2, 64).dsp == 0);
  CHECK(interconnect_area(2, 64).bram36 == 0);
}

TEST_CASE("system area: two identical cores are twice one plus the interconnect",
          "[explore][area][multicore]") {
  const HwConfig one = HwConfig::default_config();
  const HwConfig two = pynq_with({{"CORES", 2}});
  const auto core = estimate_area(one).total;
  const auto sys = estimate_system_area(two);
  REQUIRE(sys.cores.size() == 2);
  CHECK(sys.total.total.lut == Approx(2 * core.lut + 193));
  CHECK(sys.total.total.ff == Approx(2 * core.ff + 185));
  CHECK(sys.total.total.dsp == 2 * core.dsp);
  CHECK(sys.total.total.bram36 == 2 * core.bram36);
  CHECK(sys.total.total.lutram == 2 * core.lutram);
  // Without CORES: the core alone, no interconnect.
  const auto alone = estimate_system_area(one);
  CHECK(alone.total.total.lut == core.lut);
  CHECK(alone.interconnect.lut == 0);
}

TEST_CASE("system area: different cores sum their own estimates", "[explore][area][multicore]") {
  // Core 1 is a 1x32x32 array; the interconnect of two 64-bit ports as above.
  const HwConfig sys_cfg = pynq_with({{"CORES", {nlohmann::json::object(), {{"LOG_BLOCK", 5}}}}});
  const auto a = estimate_area(HwConfig::default_config()).total;
  const auto b = estimate_area(pynq_with({{"LOG_BLOCK", 5}})).total;
  const auto sys = estimate_system_area(sys_cfg).total.total;
  CHECK(sys.lut == Approx(a.lut + b.lut + 193));
  CHECK(sys.dsp == a.dsp + b.dsp);
  CHECK(sys.bram36 == a.bram36 + b.bram36);
  CHECK(b.dsp > a.dsp);  // the 1x32x32 core really is the larger one
}

TEST_CASE("system area: fitting the part uses the sum", "[explore][area][multicore]") {
  const vta::explore::FpgaDevice* pynq = vta::explore::find_device("pynq");
  REQUIRE(pynq != nullptr);
  const HwConfig one = HwConfig::default_config();
  const HwConfig four = pynq_with({{"CORES", 4}});
  const auto a1 = estimate_system_area(one).total.total;
  const auto a4 = estimate_system_area(four).total.total;
  // One 1x16x16 core fits the xc7z020; four of them need four times its DSPs, more than 220.
  REQUIRE(4 * estimate_area(one).total.dsp > 220);
  CHECK(vta::explore::judge_design(vta::explore::design_traits(one, a1), *pynq).fits);
  CHECK_FALSE(vta::explore::judge_design(vta::explore::design_traits(four, a4), *pynq).fits);
}

TEST_CASE("system energy: two identical cores are twice one plus the interconnect",
          "[explore][energy][multicore]") {
  const HwConfig two = pynq_with({{"CORES", 2}});
  Stats one;
  one.gemm_counter = 1000;
  one.inp_load_nbytes = 1600;
  Stats sys = one;  // core 0's own counters, core 1's mirrored as the backends report them
  sys.add("core1.gemm_counter", 1000, "uops", "");
  sys.add("core1.inp_load_nbytes", 1600, "bytes", "");
  const auto e = estimate_system_energy(two, sys);
  const double core = estimate_energy(HwConfig::default_config(), one).total_joules();
  REQUIRE(e.core_joules.size() == 2);
  CHECK(e.core_joules[0] == Approx(core));
  CHECK(e.core_joules[1] == Approx(core));
  // 1000 micro-ops x 256 MACs x 0.3 pJ per core.
  CHECK(energy_part(e.total, "gemm.mac") == Approx(2 * 76.8e-9));
  // Each core's 1600 bytes cross the interconnect once: 3200 B x 1 pJ.
  CHECK(e.interconnect_bytes == 3200);
  CHECK(energy_part(e.total, "interconnect") == Approx(3.2e-9));
  CHECK(e.total.total_joules() == Approx(2 * core + 3.2e-9));
}

TEST_CASE("system energy: different cores by their own configs", "[explore][energy][multicore]") {
  const HwConfig sys_cfg = pynq_with({{"CORES", {nlohmann::json::object(), {{"LOG_BLOCK", 5}}}}});
  Stats sys;
  sys.gemm_counter = 1000;
  sys.add("core1.gemm_counter", 1000, "uops", "");
  const auto e = estimate_system_energy(sys_cfg, sys);
  // Core 0: 1000 x 256 MACs x 0.3 pJ = 76.8 nJ; core 1 (1x32x32): 1000 x 1024 x 0.3 pJ =
  // 307.2 nJ.
  CHECK(energy_part(e.total, "gemm.mac") == Approx(384e-9));
  CHECK(energy_part(e.total, "interconnect") == 0);  // no DRAM traffic
  // Static power over the system's cycles for each core: 2 x 100 mW x 1000 cycles / 100 MHz.
  Stats timed = sys;
  timed.timed = true;
  timed.cycles = 600;  // core 0's own
  timed.add("system.cycles", 1000, "cycles", "");
  const auto t = estimate_system_energy(sys_cfg, timed);
  CHECK(energy_part(t.total, "static") == Approx(2 * 0.1 * 1000 / 100e6));
}

TEST_CASE("system energy: a layer split over the cores counts each core once",
          "[explore][energy][multicore]") {
  // A split layer's Stats hold both cores' counts added (core 0: 1000 micro-ops, 1600 input
  // bytes, 20 instructions; core 1: 500, 800, 10), core 1's also as its coreK.* mirrors.
  const HwConfig two = pynq_with({{"CORES", 2}});
  Stats sys;
  sys.gemm_counter = 1500;
  sys.inp_load_nbytes = 2400;
  sys.insn_count[0] = 30;
  sys.add("core1.gemm_counter", 500, "uops", "");
  sys.add("core1.inp_load_nbytes", 800, "bytes", "");
  sys.add("core1.mem.fetch.read_bytes", 160, "bytes", "");  // 10 instructions of 16 B
  Stats core0, core1;
  core0.gemm_counter = 1000;
  core0.inp_load_nbytes = 1600;
  core0.insn_count[0] = 20;
  core1.gemm_counter = 500;
  core1.inp_load_nbytes = 800;
  core1.insn_count[0] = 10;
  const HwConfig one = HwConfig::default_config();
  const auto e = estimate_system_energy(two, sys, vta::explore::CoreCounts::kSummed);
  REQUIRE(e.core_joules.size() == 2);
  CHECK(e.core_joules[0] == Approx(estimate_energy(one, core0).total_joules()));
  CHECK(e.core_joules[1] == Approx(estimate_energy(one, core1).total_joules()));
  // 1500 micro-ops x 256 MACs x 0.3 pJ; 2400 input bytes and 30 x 16 instruction bytes cross
  // the interconnect once.
  CHECK(energy_part(e.total, "gemm.mac") == Approx(1500 * 256 * 0.3e-12));
  CHECK(e.interconnect_bytes == 2400 + 30 * 16);
  // Read as core 0's own counters (a replicated run), core 1's work would count twice.
  const auto own = estimate_system_energy(two, sys);
  CHECK(energy_part(own.total, "gemm.mac") == Approx(2000 * 256 * 0.3e-12));
}
