// The honest bound (compute = GEMM + epilogue ALU issue cycles + the compute unit's bias and
// residual loads, memory = minimum DRAM bytes at the design's bandwidth, with the DRAM model its
// sustained rate) against numbers computed by hand from the formulas in compiler/README.md, the
// README's worked example, and the verdict rules.
#include <fstream>
#include <sstream>

#include <catch2/catch.hpp>

#include "test_paths.h"
#include "vta/compiler/reports/report.h"
#include "vta/compiler/run/layer_runner.h"
#include "vta/compiler/scheduling/bound.h"
#include "vta/runtime_cpp.h"
#include "vta/sim/config_source.h"

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

TEST_CASE("a residual add: the compute unit loads it, DRAM moves it at 8 bits", "[bound]") {
  vta::set_error_mode(vta::ErrorMode::kThrow);
  const Target target(HwConfig::from_file(config_path("pynq")), "fsim");
  Conv2dParams p;
  p.c = 16, p.h = 8, p.w = 8, p.k = 16, p.kh = 3, p.kw = 3;
  p.pad_top = p.pad_bottom = p.pad_left = p.pad_right = 1;
  Epilogue e;
  e.shift = 4;
  e.residual = true;
  ConvSchedule s;
  s.tile_h = 4, s.tile_w = 8;
  const ConvData data = random_conv_data(p, e, 3);
  const LayerRun r = run_conv2d(target, p, e, s, data, true);
  REQUIRE(r.mismatches == 0);
  // By hand, pynq: 8x8 outputs x 1 block x 9 taps GEMMs. No bias and sums far from 2^31, so
  // the residual is the accumulator's initial value: a shift left (1) and the epilogue's shift
  // (1) per output element. The residual counts 64 B per element (an accumulator element, the
  // upstream rule) but LOAD ACC_8BIT moves 16 B per element over the 8-byte bus, on the
  // compute unit: 64 x 16 / 8 = 128 cycles.
  const uint64_t gemm = 64 * 9, alu = 64 * 2, acc_load = 64 * 16 / 8;
  const uint64_t inp = 8 * 8 * 16, wgt = 9 * 256;
  CHECK(r.bound.gemm_cycles == gemm);
  CHECK(r.bound.alu_cycles == alu);
  CHECK(r.bound.acc_load_cycles == acc_load);
  CHECK(r.bound.compute_cycles == gemm + alu + acc_load);
  CHECK(r.bound.bytes.read == inp + wgt + 64 * 64);
  CHECK(r.bound.bytes.dram_read() == inp + wgt + 64 * 16);
  CHECK(r.bound.memory_cycles == Approx(double(inp + wgt + 64 * 16) / 8));
  CHECK(format_report({r}).find("compute 832 (GEMM 576 + ALU 128 + ACC loads 128), memory 544 "
                                "(4352 B read, 7424 as counted, 1024 B written)") !=
        std::string::npos);
  // The run does what the bound assumes: no accumulator resets, two ALU ops per element.
  CHECK(r.stats.alu_counter == 2 * 64);
  // With a bias (any int32) the shifted sum could wrap: reset, bias ADD (2), shift (1) and
  // residual ADD (2) per element; the bias is one 64-byte accumulator element (8 bus beats).
  Epilogue eb = e;
  eb.bias = true;
  const LayerRun rb = run_conv2d(target, p, eb, s, random_conv_data(p, eb, 4), true);
  REQUIRE(rb.mismatches == 0);
  CHECK(rb.bound.alu_cycles == 64 * 5);
  CHECK(rb.bound.acc_load_cycles == (64 + 64 * 16) / 8);
  CHECK(rb.stats.alu_counter == 64 * 3);  // bias, shift, residual: one count per micro-op
}

TEST_CASE("the residual initialises the accumulator only where no sum can wrap", "[bound]") {
  const HwConfig cfg = HwConfig::from_file(config_path("pynq"));
  Conv2dParams p;
  p.c = 512, p.h = p.w = 7, p.k = 512, p.kh = p.kw = 3;
  const BlockedConv g = BlockedConv::make(p, cfg);
  Epilogue e;
  e.residual = true;
  // |x| <= 2^14 x 512 x 9 = 75,497,472; r x 2^s >= -2^(7+s): 2^27 fits below 2^31, 2^31 not.
  e.shift = 20;
  CHECK(residual_initialises_acc(g, e));
  e.shift = 24;
  CHECK_FALSE(residual_initialises_acc(g, e));
  e.shift = 8;
  e.bias = true;
  CHECK_FALSE(residual_initialises_acc(g, e));
  e.bias = false;
  e.residual = false;
  CHECK_FALSE(residual_initialises_acc(g, e));
}

TEST_CASE("with the DRAM model the memory time uses its sustained bandwidth", "[bound]") {
  // PYNQ-Z1 DDR3 (16-bit bus, BL8, tREFI 4160, tRFC 139, tRP = tRCD = CL = 7, tWR 8, CWL 6)
  // behind the 100 MHz core's 8-byte channels.
  const HwConfig fixed = HwConfig::from_file(config_path("pynq_fixed"));
  const HwConfig ddr = vta::resolve_config("pynq_ddr", {}).config;
  const HwConfig slow = vta::resolve_config("pynq_ddr", {{"DRAM_TCK_PS", 7500}}).config;
  const double eff_read = 1.0 - (7 + 139 + 7 + 7) / 4160.0;  // 96.2 %
  const double eff_write = 1.0 - (8 + 7 + 139 + 7 + 6) / 4160.0;
  CHECK(dram_stream_efficiency(ddr.memory.dram, false) == Approx(eff_read));
  CHECK(dram_stream_efficiency(ddr.memory.dram, true) == Approx(eff_write));
  // tCK 1.875 ns: 2 x 2 B per 1.875 ns = 21.3 B per 10 ns core cycle, more than the 8-byte
  // channels move: the core's channels bind, as with the fixed model.
  CHECK(dram_cycles(8000, 4000, ddr) == Approx(1000));
  CHECK(dram_cycles(8000, 4000, fixed) == Approx(1000));
  // tCK 7.5 ns: 5.33 B per core cycle, and reads and writes share the DRAM's data bus.
  const double peak = 2 * 2 / 7.5 * 10;
  CHECK(dram_cycles(8000, 0, slow) == Approx(8000 / (peak * eff_read)));
  CHECK(dram_cycles(8000, 4000, slow) ==
        Approx(8000 / (peak * eff_read) + 4000 / (peak * eff_write)));
  // First data: 40 ns of interconnect each way (8 cycles) + tRCD + CL + BL/2 = 18 x 1.875 ns.
  CHECK(dram_read_latency(ddr) == Approx(8 + 18 * 1.875 / 10));
  CHECK(dram_read_latency(fixed) == Approx(fixed.dram_read_latency_cycles));
}
