// The rtl backend on hand-checked programs: the worked example of the timing contract
// (sim/README.md section 5, cycles = 61 derived there by hand), model selection by config,
// several runs and several backends in one process.
#include <catch2/catch.hpp>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "program_builder.h"
#include "test_paths.h"
#include "vcd_check.h"
#include "vta/hw/rtl_backend.h"
#include "vta/sim/config_source.h"
#include "vta/sim/cycle/cycle_backend.h"
#include "vta/sim/error.h"

using namespace vta;
using namespace vta::testprog;

namespace {

// The 5-instruction program of sim/README.md section 5 on `cfg`: LOAD UOP, LOAD INP, GEMM,
// STORE, FINISH. Input i8 values and weights are chosen so the result is easy to check:
// out[oc] = low 8 bits of sum_k inp[k] * wgt[oc][k].
struct WorkedExample {
  DeviceBuffer inp, wgt_unused, out;
  std::vector<int8_t> expect;
};

WorkedExample build_worked_example(ProgramBuilder& pb, const HwConfig& cfg, bool with_wgt) {
  WorkedExample w;
  const int bi = cfg.block_in, bo = cfg.block_out;
  w.inp = pb.alloc(static_cast<size_t>(cfg.inp_elem_bytes));
  w.out = pb.alloc(static_cast<size_t>(cfg.out_elem_bytes));
  DeviceBuffer wgt = pb.alloc(static_cast<size_t>(cfg.wgt_elem_bytes));
  std::vector<int8_t> in(static_cast<size_t>(bi)), wt(static_cast<size_t>(bi * bo));
  for (int k = 0; k < bi; ++k) {
    in[static_cast<size_t>(k)] = static_cast<int8_t>(k - 5);
  }
  for (int oc = 0; oc < bo; ++oc) {
    for (int k = 0; k < bi; ++k) {
      wt[static_cast<size_t>(oc * bi + k)] = static_cast<int8_t>((oc * 7 + k * 3) % 19 - 9);
    }
  }
  std::memcpy(w.inp.host, in.data(), in.size());
  std::memcpy(wgt.host, wt.data(), wt.size());
  w.expect.resize(static_cast<size_t>(bo));
  for (int oc = 0; oc < bo; ++oc) {
    int32_t s = 0;
    for (int k = 0; k < bi; ++k) {
      s += in[static_cast<size_t>(k)] * wt[static_cast<size_t>(oc * bi + k)];
    }
    w.expect[static_cast<size_t>(oc)] = static_cast<int8_t>(s);
  }
  const DeviceBuffer uops = pb.alloc_uops({Uop{0, 0, 0}});
  pb.push(make_load_1d(kMemUop, 0, uops.elem(cfg, kMemUop), 1));
  if (with_wgt) {
    // the accumulator persists across runs: clear it so that every run gives the same values
    pb.push(make_gemm(UopLoop{}, true));
    pb.push(make_load_1d(kMemWgt, 0, wgt.elem(cfg, kMemWgt), 1));
  }
  Deps inp_deps;
  inp_deps.push_next = true;
  pb.push(make_load_1d(kMemInp, 0, w.inp.elem(cfg, kMemInp), 1, inp_deps));
  Deps gemm_deps;
  gemm_deps.pop_prev = true;
  gemm_deps.push_next = true;
  pb.push(make_gemm(UopLoop{}, false, gemm_deps));
  Deps store_deps;
  store_deps.pop_prev = true;
  store_deps.push_prev = true;
  pb.push(make_store_1d(0, w.out.elem(cfg, kMemOut), 1, store_deps));
  pb.push(make_finish(false, true));
  return w;
}

}  // namespace

TEST_CASE("rtl: worked example of the timing contract takes 61 cycles on pynq", "[rtl]") {
  // The contract's fixed-latency memory, whose formulas give the 61 cycles.
  const HwConfig cfg = HwConfig::from_file(config_path("pynq_fixed"));
  Dram dram;
  RtlBackend be(cfg, dram);
  ProgramBuilder pb(cfg, dram);
  // Section 5 has no weight load (the weight SRAM content does not matter for timing);
  // values are checked in the next test.
  build_worked_example(pb, cfg, false);
  REQUIRE(pb.run(be) == RunStatus::kOk);
  CHECK(be.stats().cycles == 61);
  CHECK(be.stats().runs == 1);
  CHECK(be.stats().gemm_counter == 1);
  CHECK(be.stats().inp_load_nbytes == 16);
  CHECK(be.stats().uop_load_nbytes == 4);
  CHECK(be.stats().out_store_nbytes == 16);
}

TEST_CASE("rtl: GEMM values of the worked example over several runs and backends", "[rtl]") {
  // Fixed-latency memory: every run takes the same cycles (with a DRAM model they depend on the
  // instruction buffer's address, new for each run).
  for (const char* name : {"pynq_fixed", "small_fixed"}) {
    const HwConfig cfg = HwConfig::from_file(config_path(name));
    Dram dram;
    auto be1 = std::make_unique<RtlBackend>(cfg, dram);
    auto be2 = std::make_unique<RtlBackend>(cfg, dram);
    ProgramBuilder pb(cfg, dram);
    WorkedExample w = build_worked_example(pb, cfg, true);
    for (int run = 0; run < 3; ++run) {
      RtlBackend& be = run == 1 ? *be2 : *be1;
      std::memset(w.out.host, 0x55, static_cast<size_t>(cfg.out_elem_bytes));
      REQUIRE(pb.run(be) == RunStatus::kOk);
      INFO(name << " run " << run);
      CHECK(std::memcmp(w.out.host, w.expect.data(), w.expect.size()) == 0);
    }
    CHECK(be1->stats().runs == 2);
    CHECK(be2->stats().runs == 1);
    CHECK(be1->stats().cycles == 2 * be2->stats().cycles);
  }
}

TEST_CASE("rtl: a config without a built model is a clear error", "[rtl]") {
  const HwConfig cfg = HwConfig::from_file(config_path("ultra96"));
  Dram dram;
  try {
    RtlBackend be(cfg, dram);
    FAIL("no error");
  } catch (const Error& e) {
    const std::string what = e.what();
    CHECK(what.find("no RTL model built for config") != std::string::npos);
    CHECK(what.find("pynq") != std::string::npos);
    // Named so that it differs from pynq, whose model string is the same: bus width and board.
    CHECK(what.find("1x16_i8w8a32_15_15_18_17_bus128 (TARGET ultra96)") != std::string::npos);
  }
}

TEST_CASE("rtl: wait_cycles stops a run that never finishes", "[rtl]") {
  const HwConfig cfg = HwConfig::from_file(config_path("pynq"));
  Dram dram;
  RtlBackend be(cfg, dram);
  ProgramBuilder pb(cfg, dram);
  // GEMM of 4096 iterations and no FINISH within the first 100 cycles
  pb.push(make_gemm(UopLoop{0, 1, 64, 64}, true));
  pb.push(make_finish());
  const DeviceBuffer prog = pb.emit();
  CHECK(be.run(prog.phys, 2, 100) == RunStatus::kTimeout);
  CHECK(be.stats().cycles == 100);
  // the next run starts from a reset core and completes normally
  ProgramBuilder pb2(cfg, dram);
  WorkedExample w = build_worked_example(pb2, cfg, true);
  REQUIRE(pb2.run(be) == RunStatus::kOk);
  CHECK(std::memcmp(w.out.host, w.expect.data(), w.expect.size()) == 0);
}

TEST_CASE("rtl: the watchdog ends a run without progress with a named error", "[rtl]") {
  // No program is known to hang the RTL (the y_size = 0 LOAD did, test below), so the watchdog
  // is shown on a real stall it would take for a hang if its window were short: an instruction
  // fetch that waits 5000 cycles for DRAM, under a 2000-cycle window.
  const HwConfig cfg =
      vta::resolve_config("pynq_fixed", {{"DRAM_READ_LATENCY_CYCLES", 5000}}).config;
  // One LOAD INP of one element, then FINISH.
  auto one_load = [&](ProgramBuilder& pb) {
    const DeviceBuffer inp = pb.alloc(static_cast<size_t>(cfg.inp_elem_bytes));
    pb.push(make_load_1d(kMemInp, 0, inp.elem(cfg, kMemInp), 1));
    pb.push(make_finish());
  };
  Dram dram;
  RtlBackend be(cfg, dram);
  ProgramBuilder pb(cfg, dram);
  one_load(pb);
  const DeviceBuffer prog = pb.emit();
  be.set_watchdog_cycles(2000);
  try {
    be.run(prog.phys, 2, 0);
    FAIL("no error");
  } catch (const ProgramError& e) {
    const std::string what = e.what();
    INFO(what);
    CHECK(what.find("watchdog: no progress for ") != std::string::npos);
    CHECK(what.find("FINISH has not executed") != std::string::npos);
    CHECK(what.find("load unit is waiting at instruction 0 (LOAD)") != std::string::npos);
    CHECK(what.find("store unit has no instructions left") != std::string::npos);
    CHECK(what.find("progress: 0 of 2 instructions finished, 0 GEMM and 0 ALU") !=
          std::string::npos);
  }
  // The default window is far above a memory latency: the same run completes, in the cycle
  // model's cycles (more than the 5000 cycles the run waits for DRAM).
  be.set_watchdog_cycles(RtlBackend::kDefaultWatchdogCycles);
  const uint64_t before = be.stats().cycles;
  REQUIRE(be.run(prog.phys, 2, 0) == RunStatus::kOk);
  Dram dram2;
  CycleBackend cyc(cfg, dram2);
  ProgramBuilder pb2(cfg, dram2);
  one_load(pb2);
  REQUIRE(pb2.run(cyc) == RunStatus::kOk);
  CHECK(be.stats().cycles - before == cyc.stats().cycles);
  CHECK(cyc.stats().cycles > 5000);
}

TEST_CASE("rtl: the watchdog counts micro-ops inside an instruction, not only instructions",
          "[rtl]") {
  // One ALU instruction of 1100 x 1000 iterations of one micro-op (1.1 M, one per cycle with an
  // immediate): no instruction finishes for longer than the default watchdog window, yet the
  // core issues a micro-op every cycle. It must finish, in the cycle model's cycles, with
  // 1.1 M ALU micro-ops counted.
  const HwConfig cfg = HwConfig::from_file(config_path("pynq"));
  auto one_alu = [&](ProgramBuilder& pb) {
    UopLoop loop;
    loop.iter_out = 1100;
    loop.iter_in = 1000;
    pb.push(make_alu(kAluAdd, loop, true, 1));
    pb.push(make_finish());
  };
  Dram dram;
  RtlBackend be(cfg, dram);
  ProgramBuilder pb(cfg, dram);
  one_alu(pb);
  REQUIRE(pb.run(be) == RunStatus::kOk);
  CHECK(be.stats().alu_counter == 1100u * 1000u);
  CHECK(be.stats().cycles > RtlBackend::kDefaultWatchdogCycles);
  Dram dram2;
  CycleBackend cyc(cfg, dram2);
  ProgramBuilder pb2(cfg, dram2);
  one_alu(pb2);
  REQUIRE(pb2.run(cyc) == RunStatus::kOk);
  CHECK(be.stats().cycles == cyc.stats().cycles);
}

TEST_CASE("rtl: enable_vcd dumps exactly the cycle window", "[rtl]") {
  const HwConfig cfg = HwConfig::from_file(config_path("pynq"));
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("vta_rtl_test_window_" + std::to_string(::getpid()) + ".vcd"))
                               .string();  // unique: several build trees may run ctest at once
  {
    Dram dram;
    RtlBackend be(cfg, dram);
    be.enable_vcd(path, 40, 50);
    ProgramBuilder pb(cfg, dram);
    build_worked_example(pb, cfg, false);
    REQUIRE(pb.run(be) == RunStatus::kOk);
  }
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string vcd = ss.str();
  CHECK(check_vcd_file(path).empty());
  const VcdContents parsed = read_vcd(path);
  std::filesystem::remove(path);
  // A lone core's scope is "vta_core" (its ports), its Verilog hierarchy below it; a system's
  // cores are "core0", "core1", ... (tests/multicore/test_multicore_rtl.cc).
  bool in_scope = true, has_clk = false, has_done = false;
  for (const auto& [id, scoped] : parsed.names) {
    for (const std::string& n : scoped) {
      in_scope = in_scope && n.rfind("vta_core.", 0) == 0;
      has_clk = has_clk || n == "vta_core.clk";
      has_done = has_done || n == "vta_core.vta_core.done";
    }
  }
  CHECK(in_scope);
  CHECK(has_clk);
  CHECK(has_done);
  CHECK(vcd.find("$enddefinitions") != std::string::npos);
  CHECK(vcd.find("mem_rd_req_valid") != std::string::npos);
  CHECK(vcd.find("\n#80\n") != std::string::npos);  // cycle 40, clock low
  CHECK(vcd.find("\n#99\n") != std::string::npos);  // cycle 49, after the edge
  CHECK(vcd.find("\n#79\n") == std::string::npos);
  CHECK(vcd.find("\n#100\n") == std::string::npos);
  Dram dram;
  RtlBackend be(cfg, dram);
  CHECK_THROWS_WITH(be.enable_vcd("/nonexistent-dir/w.vcd", 0, 10),
                    "rtl backend: cannot write VCD file '/nonexistent-dir/w.vcd'");
}

// Corner cases the contract covers by its general rules: each program runs on rtl and cycle
// and must take the same cycles.
TEST_CASE("rtl: corner-case instructions take the cycle model's cycles", "[rtl]") {
  const HwConfig cfg = HwConfig::from_file(config_path("pynq"));
  const auto build = [&](ProgramBuilder& pb, int which) {
    const DeviceBuffer buf = pb.alloc(4096);
    const DeviceBuffer uops = pb.alloc_uops({Uop{0, 0, 0}, Uop{1, 1, 1}});
    switch (which) {
      case 0:  // STORE / LOAD with y_size 0 (nothing moves), LOAD with y_size 0 but padding
        pb.push(make_load_store(kOpStore, kMemOut, 0, buf.elem(cfg, kMemOut), 0, 2, 2));
        pb.push(make_load_store(kOpLoad, kMemWgt, 0, buf.elem(cfg, kMemWgt), 0, 2, 2));
        pb.push(
            make_load_store(kOpLoad, kMemInp, 0, buf.elem(cfg, kMemInp), 0, 3, 3, {}, 1, 2, 1, 1));
        break;
      case 1:  // GEMM / ALU with empty loops (N = 0), then a one-iteration ALU
        pb.push(make_load_1d(kMemUop, 0, uops.elem(cfg, kMemUop), 2));
        pb.push(make_gemm(UopLoop{0, 2, 0, 3}, false));
        pb.push(make_alu(kAluAdd, UopLoop{1, 1, 2, 2}, false, 0));
        pb.push(make_alu(kAluAdd, UopLoop{0, 1, 1, 1}, false, 0));
        break;
      case 2:  // uop load of an odd count at an odd SRAM index from an odd DRAM element
        pb.push(make_load_store(kOpLoad, kMemUop, 3, uops.elem(cfg, kMemUop) + 1, 1, 1, 1));
        pb.push(
            make_load_store(kOpLoad, kMemUop, 8, uops.elem(cfg, kMemUop), 2, 1, 1, {}, 1, 0, 1, 2));
        break;
      case 4: {  // 600 load NOPs wait for a token behind a long GEMM: the load queue fills
        pb.push(make_load_1d(kMemUop, 0, uops.elem(cfg, kMemUop), 1));
        Deps push_prev;
        push_prev.push_prev = true;
        pb.push(make_gemm(UopLoop{0, 1, 40, 50}, true, push_prev));
        for (int k = 0; k < 600; ++k) {
          Deps pop;
          pop.pop_next = k == 0;
          pop.push_next = k == 599;  // FINISH waits for the last one (a FINISH before them
                                     // would leave them unexecuted, an error)
          pb.push(make_load_store(kOpLoad, kMemInp, 0, 0, 0, 0, 0, pop));
        }
        break;
      }
      default:  // a padded ACC_8BIT load next to a weight load (two read clients)
        pb.push(
            make_load_store(kOpLoad, kMemWgt, 0, buf.elem(cfg, kMemWgt), 2, 3, 4, {}, 1, 0, 0, 1));
        pb.push(make_load_store(kOpLoad, kMemAcc8, 0, buf.elem(cfg, kMemAcc8), 3, 2, 5, {}, 0, 1, 2,
                                0));
        break;
    }
    pb.push(make_finish(which == 4, false));
  };
  for (int which = 0; which < 5; ++which) {
    uint64_t cycles[2] = {0, 0};
    double queue_full[2] = {0, 0};
    for (int b = 0; b < 2; ++b) {
      Dram dram;
      std::unique_ptr<Backend> be;
      if (b == 0) {
        be = std::make_unique<RtlBackend>(cfg, dram);
      } else {
        be = std::make_unique<CycleBackend>(cfg, dram);
      }
      ProgramBuilder pb(cfg, dram);
      build(pb, which);
      REQUIRE(pb.run(*be) == RunStatus::kOk);
      cycles[b] = be->stats().cycles;
      const NamedCounter* q = be->stats().find("fetch.stall_queue_full_cycles");
      queue_full[b] = q != nullptr ? q->value : -1;
    }
    INFO("program " << which);
    CHECK(cycles[0] == cycles[1]);
    CHECK(queue_full[0] == queue_full[1]);
    if (which == 4) {
      CHECK(queue_full[0] > 0);  // the case really exercises a full instruction queue
    }
  }
}

TEST_CASE("rtl: configs beyond the RTL limits are refused by name", "[rtl]") {
  Dram dram;
  nlohmann::json wide = HwConfig::from_file(config_path("pynq")).to_json();
  wide["LOG_BUS_WIDTH"] = 8;  // 32-byte bus
  CHECK_THROWS_WITH(RtlBackend(HwConfig::from_json(wide, "wide"), dram),
                    Catch::Contains("32-byte bus"));
  nlohmann::json tiny = HwConfig::from_file(config_path("pynq")).to_json();
  // 4-byte input and ACC_8BIT tiles on an 8-byte bus: input tiles share a beat (the inp buffer
  // takes a beat per cycle), ACC_8BIT tiles cannot (the acc buffer takes one element per cycle)
  tiny["LOG_BLOCK"] = 2;
  tiny["LOG_UOP_BUFF_SIZE"] = 10;
  tiny["LOG_INP_BUFF_SIZE"] = 12;
  tiny["LOG_WGT_BUFF_SIZE"] = 14;
  tiny["LOG_ACC_BUFF_SIZE"] = 14;
  CHECK_THROWS_WITH(RtlBackend(HwConfig::from_json(tiny, "tiny"), dram),
                    Catch::Contains("ACC_8BIT elements of 4 bytes"));
}

TEST_CASE("rtl: an index error found by the RTL names the instruction and the core recovers",
          "[rtl]") {
  const HwConfig cfg = HwConfig::from_file(config_path("pynq"));
  Dram dram;
  RtlBackend be(cfg, dram);
  {
    ProgramBuilder pb(cfg, dram);
    const DeviceBuffer uops = pb.alloc_uops({Uop{cfg.acc_buff_depth - 1, 0, 0}});
    pb.push(make_load_1d(kMemUop, 0, uops.elem(cfg, kMemUop), 1));
    UopLoop loop;
    loop.iter_out = 2;
    loop.dst_factor_out = 1;  // second iteration: dst = depth
    pb.push(make_gemm(loop, false));
    pb.push(make_finish());
    CHECK_THROWS_WITH(pb.run(be),
                      Catch::Contains("instruction 1 (GEMM, compute unit): dst index 2048 is "
                                      "beyond the ACC buffer of 2048 entries"));
  }
  ProgramBuilder pb(cfg, dram);
  WorkedExample w = build_worked_example(pb, cfg, true);
  REQUIRE(pb.run(be) == RunStatus::kOk);
  CHECK(std::memcmp(w.out.host, w.expect.data(), w.expect.size()) == 0);
}

TEST_CASE("rtl: compute-unit loads with y_size = 0 end like a NOP (E = S + P)", "[rtl]") {
  // Contract section 4: a LOAD without rows ends at S + P (P padding elements); without padding
  // that is E = S, the duration of a NOP (x_size = 0). The RTL used to wait for data forever;
  // now it matches the cycle model, padded or not.
  const HwConfig cfg = HwConfig::from_file(config_path("pynq"));
  for (uint32_t type : {kMemUop, kMemAcc, kMemAcc8}) {
    for (uint32_t y_pad : {0u, 2u}) {
      auto cycles_of = [&](uint32_t y_size, uint32_t x_size, bool rtl) {
        Dram dram;
        std::unique_ptr<Backend> be;
        if (rtl) {
          be = std::make_unique<RtlBackend>(cfg, dram);
        } else {
          be = std::make_unique<CycleBackend>(cfg, dram);
        }
        ProgramBuilder pb(cfg, dram);
        Insn load = mem_insn(kOpLoad, type, 0, 0, y_size, x_size, x_size);
        if (type != kMemUop) {
          load.y_pad_0 = y_pad;  // padding exists for ACC / ACC_8BIT only
        }
        pb.push(load);
        pb.push(make_finish());
        REQUIRE(pb.run(*be, 100000) == RunStatus::kOk);
        return be->stats().cycles;
      };
      INFO("memory type " << type << ", y_pad_0 " << y_pad);
      const uint64_t rtl = cycles_of(0, 16, true);
      CHECK(rtl == cycles_of(0, 16, false));
      if (y_pad == 0) {
        CHECK(rtl == cycles_of(1, 0, false));  // E = S, as the NOP x_size = 0
      }
    }
  }
}
