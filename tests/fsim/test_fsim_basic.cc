// fsim basics: one GEMM and one ALU program checked against plain C++ references, counters by
// the upstream rules, and the fetch-level errors.
#include <catch2/catch.hpp>

#include <cstring>
#include <random>

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
