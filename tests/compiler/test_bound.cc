// The honest bound (compute = GEMM + epilogue ALU issue cycles, memory = minimum DRAM bytes at
// the peak bytes per cycle) against numbers computed by hand from the formula in
// compiler/README.md, the README's worked example, and the verdict rules.
#include <fstream>
#include <sstream>

#include <catch2/catch.hpp>

#include "test_paths.h"
#include "vta/compiler/bound.h"
#include "vta/compiler/layer_runner.h"
#include "vta/compiler/report.h"
#include "vta/runtime_cpp.h"

using namespace vta::compiler;
using vta::HwConfig;

namespace {

std::string read_text(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

}  // namespace

TEST_CASE("the README's worked example: resnet18.C4 on pynq", "[bound]") {
  vta::set_error_mode(vta::ErrorMode::kThrow);
  const Target target(HwConfig::from_file(config_path("pynq")), "fsim");
  const auto layer = find_named_layer("resnet18.C4");  // 64x56x56 * 128x1x1 s2 -> 128x28x28
  ConvSchedule s;
  s.tile_h = 2, s.tile_w = 28, s.tile_oc_blocks = 2, s.tile_ic_blocks = 4;
  const LayerRun r = run_conv2d(target, layer.params, layer.epilogue, s,
                                random_conv_data(layer.params, layer.epilogue, 1), true);
  REQUIRE(r.mismatches == 0);
  // By hand, pynq (BLOCK 16, 8-byte bus, 1 cycle per beat): 28x28 outputs x 8 output blocks
  // x 4 input blocks x 1 tap GEMMs; >>8, max 0, min 127 = 3 immediate ALU ops per output
  // element; the stride-2 1x1 kernel reads every other row and column: 28x28 pixels x 4 blocks
  // x 16 B, weights 8 x 4 x 256 B; output 28x28 x 8 x 16 B written.
  const uint64_t gemm = 28 * 28 * 8 * 4, alu = 3 * 28 * 28 * 8;
  const uint64_t read = 28 * 28 * 4 * 16 + 8 * 4 * 256, write = 28 * 28 * 8 * 16;
  CHECK(gemm == 25088);
  CHECK(alu == 18816);
  CHECK(r.bound.gemm_cycles == gemm);
  CHECK(r.bound.alu_cycles == alu);
  CHECK(r.bound.compute_cycles == gemm + alu);
  CHECK(r.bound.bytes.read == read);
  CHECK(r.bound.bytes.write == write);
  CHECK(r.bound.memory_cycles == Approx(double(std::max(read, write)) / 8));
  CHECK(r.bound.cycles == Approx(double(gemm + alu)));
  CHECK_FALSE(r.bound.memory_binds());
  // The report prints the line the README quotes.
  const std::string line =
      "bound resnet18.C4: compute 43904 (GEMM 25088 + ALU 18816), memory 12544 (58368 B read, "
      "100352 B written), compute binds";
  CHECK(format_report({r}).find(line) != std::string::npos);
  CHECK(read_text(std::string(VTA_SOURCE_DIR) + "/compiler/README.md").find(line) !=
        std::string::npos);
}

TEST_CASE("a dense layer is bound by DRAM bandwidth", "[bound]") {
  vta::set_error_mode(vta::ErrorMode::kThrow);
  const Target target(HwConfig::from_file(config_path("block32")), "fsim");
  MatmulParams p;
  p.m = 1, p.k = 512, p.n = 1000;
  Epilogue e;
  e.shift = 4;
  ConvSchedule s;
  s.tile_oc_blocks = 8, s.tile_ic_blocks = 16, s.threads = 1;
  const LayerRun r = run_matmul(target, p, e, s, random_matmul_data(p, e, 2), true);
  REQUIRE(r.mismatches == 0);
  // block32 (BLOCK 32, 16-byte bus): 32 output blocks x 16 input blocks; one shift per output
  // element; reads 16 x 32 B of input and 32 x 16 x 1024 B of weights, writes 32 x 32 B.
  const uint64_t read = 16 * 32 + 32 * 16 * 1024, write = 32 * 32;
  CHECK(r.bound.gemm_cycles == 32 * 16);
  CHECK(r.bound.alu_cycles == 32);
  CHECK(r.bound.bytes.read == read);
  CHECK(r.bound.bytes.write == write);
  CHECK(r.bound.memory_cycles == Approx(double(read) / 16));
  CHECK(r.bound.memory_binds());
  CHECK(r.verdict.key == "untimed");
}

TEST_CASE("the verdict names what keeps a run above its bound", "[bound]") {
  const HwConfig cfg = HwConfig::from_file(config_path("pynq"));  // 8 B per cycle
  LayerBound b;
  b.gemm_cycles = 900, b.alu_cycles = 100, b.compute_cycles = 1000;
  b.bytes.read = 4000, b.bytes.write = 800;
  b.memory_cycles = 500, b.cycles = 1000;
  vta::Stats st;
  st.timed = true;
  st.cycles = 1050;  // within 10 % of the bound
  CHECK(verdict_of(b, st, cfg).key == "gemm_issue");
  LayerBound alu = b;
  alu.gemm_cycles = 600, alu.alu_cycles = 400;
  CHECK(verdict_of(alu, st, cfg).key == "alu_epilogue");
  LayerBound mem = b;
  mem.memory_cycles = 2000, mem.cycles = 2000;
  st.cycles = 2100;
  CHECK(verdict_of(mem, st, cfg).key == "dram_bandwidth");
  // 2x the bound: 12,000 bytes read need 1,500 cycles at 8 B/cycle, more than the compute bound.
  st.cycles = 2000;
  st.inp_load_nbytes = 12000;
  CHECK(verdict_of(b, st, cfg).key == "dram_bandwidth");
  // The same time with only 4,000 bytes read (500 cycles): latency and dependencies.
  st.inp_load_nbytes = 4000;
  CHECK(verdict_of(b, st, cfg).key == "dram_latency");
  // A compute unit busy 95 % of the time is the limit, whatever DRAM does.
  st.add("compute.busy_cycles", 1900, "cycles", "");
  st.alu_counter = 100;
  CHECK(verdict_of(b, st, cfg).key == "gemm_issue");
  st.alu_counter = 800;
  CHECK(verdict_of(b, st, cfg).key == "alu_epilogue");
  st.timed = false;
  CHECK(verdict_of(b, st, cfg).key == "untimed");
}
