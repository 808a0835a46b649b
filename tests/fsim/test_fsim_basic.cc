// fsim basics: one GEMM and one ALU program checked against plain C++ references, counters by
// the upstream rules, and the fetch-level errors.
#include <catch2/catch.hpp>

#include <cstring>
#include <random>
#include <set>

#include <nlohmann/json.hpp>

#include "program_builder.h"
#include "test_paths.h"
#include "vta/sim/error.h"
#include "vta/sim/fsim.h"

using namespace vta;
using namespace vta::testprog;

TEST_CASE("fsim GEMM of one tile matches a C++ dot product", "[fsim]") {
  const uint32_t seed = 1234;
  INFO("seed " << seed);
  std::mt19937 rng(seed);
  const HwConfig cfg = HwConfig::default_config();
  Dram dram;
  FsimBackend fsim(cfg, dram);
  ProgramBuilder pb(cfg, dram);
  const int bin = cfg.block_in, bout = cfg.block_out, batch = cfg.batch;
  DeviceBuffer inp = pb.alloc(cfg.inp_elem_bytes), wgt = pb.alloc(cfg.wgt_elem_bytes);
  DeviceBuffer out = pb.alloc(cfg.out_elem_bytes);
  fill_random_i8(tile_i8(inp, cfg.inp_elem_bytes, 0), cfg.inp_elem_bytes, -128, 128, rng);
  fill_random_i8(tile_i8(wgt, cfg.wgt_elem_bytes, 0), cfg.wgt_elem_bytes, -128, 128, rng);
  DeviceBuffer uops = pb.alloc_uops({Uop{0, 0, 0}});
  pb.push(make_load_1d(kMemUop, 0, uops.phys / 4, 1));
  pb.push(make_load_1d(kMemInp, 0, inp.elem(cfg, kMemInp), 1));
  pb.push(make_load_1d(kMemWgt, 0, wgt.elem(cfg, kMemWgt), 1, Deps{false, false, false, true}));
  pb.push(make_gemm(UopLoop{}, true));
  pb.push(make_gemm(UopLoop{}, false, Deps{true, false, false, true}));
  pb.push(make_store_1d(0, out.elem(cfg, kMemOut), 1, Deps{true, false, true, false}));
  pb.push(make_finish(false, true));
  REQUIRE(pb.run(fsim) == RunStatus::kOk);
  const int8_t* x = tile_i8(inp, 0, 0);
  const int8_t* w = tile_i8(wgt, 0, 0);
  for (int b = 0; b < batch; ++b) {
    for (int oc = 0; oc < bout; ++oc) {
      int32_t sum = 0;
      for (int k = 0; k < bin; ++k) {
        sum += x[b * bin + k] * w[oc * bin + k];
      }
      CHECK(fsim.acc_lane(0, b * bout + oc) == sum);
      CHECK(tile_i8(out, 0, 0)[b * bout + oc] == static_cast<int8_t>(sum));
    }
  }
  CHECK(compare_counters(expected_counters(cfg, pb.insns()), fsim.stats()) == "");
  CHECK(fsim.stats().gemm_counter == 1);
  CHECK(fsim.stats().runs == 1);
}

TEST_CASE("fsim rejects a stream outside DRAM and a missing FINISH", "[fsim]") {
  const HwConfig cfg = HwConfig::default_config();
  Dram dram;
  FsimBackend fsim(cfg, dram);
  CHECK_THROWS_WITH(fsim.run(0x1000, 4, 0),
                    Catch::Contains("outside allocated DRAM") && Catch::Contains("0x1000"));
  ProgramBuilder pb(cfg, dram);
  pb.push(make_load_1d(kMemInp, 0, 0, 0));
  CHECK_THROWS_WITH(pb.run(fsim),
                    "fetch unit: no FINISH executed within insn_count = 1 instructions");
}

namespace {

// A fresh DRAM + fsim + builder on a config.
struct Rig {
  explicit Rig(const HwConfig& c = HwConfig::default_config()) : cfg(c), fsim(cfg, dram) {}
  HwConfig cfg;
  Dram dram;
  FsimBackend fsim;
};

}  // namespace

TEST_CASE("fsim counters of upstream's test_save_load_out match the hand-derived values",
          "[fsim]") {
  // vta-reference.md 8.1: x (6, 6, 1, 16) int32 -> DMA into acc -> ALU >> 0 -> store as int8:
  // acc 36 tiles * 64 B = 2304, one uop (4 B), out 36 * 16 B = 576, ALU 36 micro-ops.
  Rig r;
  ProgramBuilder pb(r.cfg, r.dram);
  DeviceBuffer x = pb.alloc(36 * 64), y = pb.alloc(36 * 16);
  DeviceBuffer u = pb.alloc_uops({Uop{0, 0, 0}});
  pb.push(make_load_1d(kMemUop, 0, u.phys / 4, 1));
  pb.push(make_load_store(kOpLoad, kMemAcc, 0, x.elem(r.cfg, kMemAcc), 6, 6, 6));
  UopLoop l;
  l.iter_in = 36;
  l.dst_factor_in = 1;
  l.src_factor_in = 1;
  pb.push(make_alu(kAluShr, l, true, 0, Deps{0, 0, 0, 1}));
  pb.push(make_load_store(kOpStore, kMemOut, 0, y.elem(r.cfg, kMemOut), 6, 6, 6, Deps{1, 0, 1, 0}));
  pb.push(make_finish(false, true));
  pb.run(r.fsim);
  const Stats& s = r.fsim.stats();
  CHECK(s.inp_load_nbytes == 0);
  CHECK(s.wgt_load_nbytes == 0);
  CHECK(s.acc_load_nbytes == 2304);
  CHECK(s.uop_load_nbytes == 4);
  CHECK(s.out_store_nbytes == 576);
  CHECK(s.gemm_counter == 0);
  CHECK(s.alu_counter == 36);
  CHECK(s.insn_count[kOpLoad] == 2);
  CHECK(s.insn_count[kOpAlu] == 1);
  CHECK(s.insn_count[kOpStore] == 1);
  CHECK(s.insn_count[kOpFinish] == 1);
  // A second run accumulates.
  pb.run(r.fsim);
  CHECK(r.fsim.stats().acc_load_nbytes == 4608);
  CHECK(r.fsim.stats().runs == 2);
}

TEST_CASE("fsim deadlock names every blocked unit, its instruction and queue", "[fsim]") {
  Rig r;
  ProgramBuilder pb(r.cfg, r.dram);
  pb.push(make_gemm(UopLoop{}, true, Deps{1, 0, 0, 0}));
  pb.push(make_store_1d(0, 0, 0, Deps{1, 0, 0, 0}));
  pb.push(make_finish());
  CHECK_THROWS_WITH(
      pb.run(r.fsim),
      "deadlock: no unit can progress and FINISH has not executed: load unit has no instructions "
      "left; compute unit is blocked at instruction 0 (GEMM): pop_prev_dep waits on queue l2g "
      "(empty); store unit is blocked at instruction 1 (STORE): pop_prev_dep waits on queue g2s "
      "(empty); tokens l2g=0 g2l=0 s2g=0 g2s=0");
}

TEST_CASE("fsim blocks a push into a full token queue (DEP_QUEUE_DEPTH)", "[fsim]") {
  nlohmann::json j = HwConfig::default_config().to_json();
  j["DEP_QUEUE_DEPTH"] = 2;
  Rig r(HwConfig::from_json(j, "depth 2"));
  ProgramBuilder pb(r.cfg, r.dram);
  for (int k = 0; k < 3; ++k) {
    pb.push(make_load_store(kOpLoad, kMemInp, 0, 0, 0, 0, 0, Deps{0, 0, 0, 1}));
  }
  pb.push(make_gemm(UopLoop{}, true, Deps{0, 1, 0, 0}));  // waits on s2g forever
  pb.push(make_finish());
  CHECK_THROWS_WITH(pb.run(r.fsim),
                    Catch::Contains("load unit is blocked at instruction 2 (LOAD): push_next_dep "
                                    "waits on queue l2g (full, 2 tokens)") &&
                        Catch::Contains("tokens l2g=2"));
}

TEST_CASE("fsim tokens start at zero every run; SRAMs persist", "[fsim]") {
  Rig r;
  ProgramBuilder pb1(r.cfg, r.dram);
  pb1.push(make_load_store(kOpLoad, kMemInp, 0, 0, 0, 0, 0, Deps{0, 0, 0, 1}));  // leaks a token
  pb1.push(make_finish());
  pb1.run(r.fsim);
  ProgramBuilder pb2(r.cfg, r.dram);
  pb2.push(make_finish(true, false));  // would consume the leaked token if it survived
  CHECK_THROWS_WITH(pb2.run(r.fsim), Catch::Contains("compute unit is blocked at instruction 0 "
                                                     "(FINISH): pop_prev_dep waits on queue l2g"));
}

// Issue 10 item 5 reversed the old rule (later instructions silently ignored): they still
// neither run nor count, and the run is an error naming them.
TEST_CASE("fsim stops at FINISH: later instructions neither run nor count", "[fsim]") {
  Rig r;
  ProgramBuilder pb(r.cfg, r.dram);
  DeviceBuffer u = pb.alloc_uops({Uop{0, 0, 0}});
  pb.push(make_load_1d(kMemUop, 0, u.phys / 4, 1));
  pb.push(make_gemm(UopLoop{}, true));
  pb.push(make_finish());
  pb.push(make_alu(kAluAdd, UopLoop{}, true, 7));  // after FINISH: never runs
  UopLoop bad;
  bad.uop_end = r.cfg.uop_buff_depth + 1;  // illegal at run time, but never runs
  pb.push(make_gemm(bad, false));
  CHECK_THROWS_WITH(pb.run(r.fsim),
                    "FINISH (instruction 2) retired with 2 instructions left "
                    "unexecuted: 3 (ALU), 4 (GEMM)");
  CHECK(r.fsim.acc_lane(0, 0) == 0);
  CHECK(r.fsim.stats().insn_count[kOpAlu] == 0);
  CHECK(r.fsim.stats().alu_counter == 0);
  CHECK(r.fsim.stats().insn_count[kOpGemm] == 1);
}

TEST_CASE("fsim empty loop nests execute nothing and count nothing", "[fsim]") {
  Rig r;
  ProgramBuilder pb(r.cfg, r.dram);
  DeviceBuffer u = pb.alloc_uops({Uop{0, 0, 0}});
  pb.push(make_load_1d(kMemUop, 0, u.phys / 4, 1));
  UopLoop zero_out;
  zero_out.iter_out = 0;
  UopLoop zero_in;
  zero_in.iter_in = 0;
  UopLoop no_uops;
  no_uops.uop_bgn = no_uops.uop_end = 1;
  for (const UopLoop& l : {zero_out, zero_in, no_uops}) {
    pb.push(make_gemm(l, false));
    pb.push(make_alu(kAluAdd, l, true, 1));
  }
  pb.push(make_finish());
  pb.run(r.fsim);
  CHECK(r.fsim.stats().gemm_counter == 0);
  CHECK(r.fsim.stats().alu_counter == 0);
  CHECK(r.fsim.stats().insn_count[kOpGemm] == 3);
}

TEST_CASE("fsim stage-order seeds really change the interleaving of unsynchronised units",
          "[fsim]") {
  // STORE and ALU race on the out buffer (no token between them): a correct program would
  // synchronise them; here different orders must show both outcomes.
  std::set<int> seen;
  for (uint32_t seed = 0; seed < 40; ++seed) {
    Rig r;
    ProgramBuilder pb(r.cfg, r.dram);
    DeviceBuffer u = pb.alloc_uops({Uop{0, 0, 0}});
    DeviceBuffer y = pb.alloc(r.cfg.out_elem_bytes);
    pb.push(make_load_1d(kMemUop, 0, u.phys / 4, 1));
    pb.push(make_gemm(UopLoop{}, true));
    pb.push(make_alu(kAluAdd, UopLoop{}, true, 5));
    pb.push(make_store_1d(0, y.elem(r.cfg, kMemOut), 1, Deps{0, 0, 1, 0}));
    pb.push(make_finish(false, true));
    r.fsim.set_stage_order_seed(seed);
    CHECK(r.fsim.stage_order_seed() == seed);
    pb.run(r.fsim);
    seen.insert(static_cast<int8_t>(y.host[0]));
  }
  CHECK(seen.size() > 1);
}

TEST_CASE("fsim state accessors reject out-of-range indices", "[fsim]") {
  Rig r;
  CHECK_THROWS_WITH(r.fsim.acc_lane(r.cfg.acc_buff_depth, 0), "acc_lane(2048, 0) out of range");
  CHECK_THROWS_WITH(r.fsim.out_lane(0, 16), "out_lane(0, 16) out of range");
  CHECK_THROWS_WITH(r.fsim.uop_at(8192), "uop_at(8192) out of range");
  CHECK(r.fsim.out_lane(0, 0) == 0);
}

TEST_CASE("fsim test_relu and test_shift_and_scale: values and hand-derived counters", "[fsim]") {
  // vta-reference.md 8.1 [DERIVED]: relu on (8, 10, 1, 16) -> acc 5120, alu 160, out 1280, uop 8;
  // shift_and_scale on (2, 8, 1, 16) -> acc 1024, alu 32, out 256, uop 8.
  struct Case {
    uint32_t tiles;
    uint32_t op1, op2;
    int32_t imm1, imm2;
    int lo, hi;
    uint64_t acc, alu, out;
  };
  const Case cases[] = {{80, kAluMax, kAluMin, 0, 127, -256, 256, 5120, 160, 1280},
                        {16, kAluAdd, kAluShr, 5, 3, -10, 10, 1024, 32, 256}};
  for (const Case& c : cases) {
    const uint32_t seed = 0xDEADB;
    INFO("tiles " << c.tiles << " seed " << seed);
    std::mt19937 rng(seed);
    Rig r;
    ProgramBuilder pb(r.cfg, r.dram);
    DeviceBuffer a = pb.alloc(c.tiles * 64), y = pb.alloc(c.tiles * 16);
    fill_random_i32(reinterpret_cast<int32_t*>(a.host), c.tiles * 16, c.lo, c.hi, rng);
    DeviceBuffer u1 = pb.alloc_uops({Uop{0, 0, 0}}), u2 = pb.alloc_uops({Uop{0, 0, 0}});
    UopLoop l;
    l.iter_in = c.tiles;
    l.dst_factor_in = 1;
    l.src_factor_in = 1;
    pb.push(make_load_1d(kMemAcc, 0, a.elem(r.cfg, kMemAcc), c.tiles));
    pb.push(make_load_1d(kMemUop, 0, u1.phys / 4, 1));
    pb.push(make_alu(c.op1, l, true, c.imm1));
    pb.push(make_load_1d(kMemUop, 1, u2.phys / 4, 1));
    l.uop_bgn = 1;
    l.uop_end = 2;
    pb.push(make_alu(c.op2, l, true, c.imm2, Deps{0, 0, 0, 1}));
    pb.push(make_store_1d(0, y.elem(r.cfg, kMemOut), c.tiles, Deps{1, 0, 1, 0}));
    pb.push(make_finish(false, true));
    pb.run(r.fsim);
    const Stats& s = r.fsim.stats();
    CHECK(s.acc_load_nbytes == c.acc);
    CHECK(s.alu_counter == c.alu);
    CHECK(s.out_store_nbytes == c.out);
    CHECK(s.uop_load_nbytes == 8);
    const int32_t* av = reinterpret_cast<const int32_t*>(a.host);
    for (uint32_t k = 0; k < c.tiles * 16; ++k) {
      const int32_t expect =
          c.op1 == kAluMax ? std::min(std::max(av[k], 0), 127) : (av[k] + c.imm1) >> c.imm2;
      REQUIRE(static_cast<int8_t>(y.host[k]) == static_cast<int8_t>(expect));
    }
  }
}
