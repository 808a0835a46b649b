// Single conv2d and matmul layers at element widths other than int8 (docs/element_widths.md):
// lane packing against hand-packed bytes, the width reference's epilogue against hand-computed
// values, and whole layers on fsim and cycle bit for bit against the width reference (and fsim
// against cycle) at int4 x int4 -> int16, int4 x int4 -> int32 and int16 x int16 -> int32 (and
// int32 lanes), with shapes off the block.
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "test_target.h"
#include "vta/compiler/codegen/lane_packing.h"
#include "vta/compiler/references/reference.h"
#include "vta/compiler/references/width_reference.h"
#include "vta/compiler/run/layer_runner.h"
#include "vta/compiler/run/layer_widths.h"
#include "vta/compiler/run/wide_layer_runner.h"
#include "vta/compiler/scheduling/auto_schedule.h"
#include "widths_network_fixture.h"

using namespace vta::compiler;
using vta::HwConfig;

namespace {

uint64_t test_seed() {
  return widths_test_seed("test_widths_layers", 2034);
}

}  // namespace

TEST_CASE("lanes pack LSB first and read back sign-extended", "[compiler][widths]") {
  // int4: lane 0 in the low nibble. 1 | -1 -> 0xF1, 7 | -8 -> 0x87, -3 | (pad 0) -> 0x0D.
  const std::vector<int8_t> lanes = {1, -1, 7, -8, -3};
  const std::vector<int8_t> packed = pack_lanes(lanes, 4);
  REQUIRE(packed == std::vector<int8_t>{int8_t(0xF1), int8_t(0x87), int8_t(0x0D)});
  REQUIRE(unpack_lanes(packed, 4, lanes.size()) == lanes);
  // int2: 1, -2, 0, -1 -> 0b11'00'10'01 = 0xC9.
  REQUIRE(pack_lanes({1, -2, 0, -1}, 2) == std::vector<int8_t>{int8_t(0xC9)});
  REQUIRE(unpack_lanes({int8_t(0xC9)}, 2, 4) == std::vector<int8_t>{1, -2, 0, -1});
  // int8 is the identity; accumulator lanes little endian at 16 and 32 bits.
  REQUIRE(pack_lanes({-5, 100}, 8) == std::vector<int8_t>{-5, 100});
  REQUIRE(pack_wide_lanes({-2, 0x1234}, 16) ==
          std::vector<int8_t>{int8_t(0xFE), int8_t(0xFF), 0x34, 0x12});
  REQUIRE(pack_wide_lanes({0x01020304}, 32) == std::vector<int8_t>{4, 3, 2, 1});
  REQUIRE(sign_extend(40000, 16) == 40000 - 65536);
  REQUIRE(sign_extend(9, 4) == -7);
  REQUIRE_THROWS_WITH(pack_lanes({1}, 3), Catch::Contains("lanes of 3 bits"));
}

TEST_CASE("the width reference wraps the accumulator and stores the output lane",
          "[compiler][widths]") {
  Epilogue e;
  e.bias = true;
  e.shift = 4;
  e.clip_lo = -8;
  e.clip_hi = 7;
  const AccumulatorWidths int4_acc16{16, 4}, int4_acc32{32, 4};
  // 36000 + 864 = 36864: as int16 -28672, >> 4 = -1792, clipped to -8; as int32 2304 -> 7.
  REQUIRE(apply_epilogue_at(36000, e, 864, 0, 0, int4_acc16) == -8);
  REQUIRE(apply_epilogue_at(36000, e, 864, 0, 0, int4_acc32) == 7);
  // Without the clip the store keeps the low 4 bits.
  Epilogue plain = e;
  plain.clip_lo.reset();
  plain.clip_hi.reset();
  REQUIRE(apply_epilogue_at(100, plain, 0, 0, 0, int4_acc16) == int8_t(6));   // 100 >> 4 = 6
  REQUIRE(apply_epilogue_at(200, plain, 0, 0, 0, int4_acc16) == int8_t(-4));  // 12 -> 0b1100
  // A residual is added after the shift, in the accumulator lane.
  plain.residual = true;
  REQUIRE(apply_epilogue_at(32, plain, 0, -3, 0, int4_acc16) == int8_t(-1));  // 2 - 3
}

TEST_CASE("the width reference at int8 x int8 -> int32 is the int8 reference",
          "[compiler][widths]") {
  const uint64_t seed = test_seed();
  Conv2dParams p;
  p.name = "same";
  p.c = 5, p.k = 7, p.h = 6, p.w = 5, p.kh = p.kw = 3, p.pad_top = p.pad_left = 1;
  Epilogue e;
  e.bias = true;
  e.shift = 6;
  e.relu = true;
  const ConvData d = random_conv_data(p, e, seed);
  REQUIRE(conv2d_reference_at(p, e, d.x, d.w, d.bias, d.residual, AccumulatorWidths{}) ==
          conv2d_reference(p, e, d.x, d.w, d.bias, d.residual));
  // The epilogue's options: the rounding shift and a residual at a finer scale.
  Epilogue options = e;
  options.round = true;
  options.residual = true;
  options.residual_shift = 3;
  const ConvData r = random_conv_data(p, options, seed + 1);
  REQUIRE(conv2d_reference_at(p, options, r.x, r.w, r.bias, r.residual, AccumulatorWidths{}) ==
          conv2d_reference(p, options, r.x, r.w, r.bias, r.residual));
}

namespace {

// A conv2d whose sums pass 2^15: every input and weight -8, 64 channels, a 3x3 window.
// Per output: taps * 64 channels * 64; interior 9 taps = 36864, edges 6 taps = 24576, corners
// 4 taps = 16384. >> 12 with the clip [-8, 7]: int32 gives 7, 6, 4; int16 wraps the interior
// to 36864 - 65536 = -28672 -> -7.
LayerRun run_wrap_case(const char* config, const std::string& backend) {
  const Target t = use(backend, config);
  Conv2dParams p;
  p.name = "wrap";
  p.c = 64, p.k = 16, p.h = p.w = 4, p.kh = p.kw = 3;
  p.pad_top = p.pad_bottom = p.pad_left = p.pad_right = 1;
  Epilogue e;
  e.shift = 12;
  e.clip_lo = -8;
  e.clip_hi = 7;
  ConvData d;
  d.x.assign(size_t(p.c) * p.h * p.w, -8);
  d.w.assign(size_t(p.k) * p.c * 9, -8);
  return run_conv2d(t, p, e, auto_schedule(p, e, t.config), d, true);
}

int8_t at(const LayerRun& r, int k, int y, int x) {
  return r.out[(size_t(k) * 4 + y) * 4 + x];
}

}  // namespace

TEST_CASE("a sum past 2^15 wraps in int16 accumulators and not in int32 ones",
          "[compiler][widths]") {
  for (const char* backend : {"fsim", "cycle"}) {
    INFO(backend);
    const LayerRun r16 = run_wrap_case("pynq_int4", backend);
    const LayerRun r32 = run_wrap_case("pynq_int4_acc32", backend);
    REQUIRE(r16.checked);
    REQUIRE(r16.mismatches == 0);
    REQUIRE(r32.mismatches == 0);
    for (int k : {0, 15}) {
      REQUIRE(at(r16, k, 0, 0) == 4);
      REQUIRE(at(r16, k, 0, 2) == 6);
      REQUIRE(at(r16, k, 1, 2) == -7);
      REQUIRE(at(r32, k, 0, 0) == 4);
      REQUIRE(at(r32, k, 3, 1) == 6);
      REQUIRE(at(r32, k, 2, 2) == 7);
    }
  }
}

namespace {

Conv2dParams random_off_block_conv(std::mt19937_64& rng) {
  auto uni = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  Conv2dParams p;
  p.name = "random";
  p.c = uni(3, 40);  // off the 16-channel block
  p.k = uni(5, 40);
  p.h = uni(3, 10);
  p.w = uni(3, 10);
  p.kh = p.kw = uni(0, 1) ? 3 : 1;
  p.stride_h = p.stride_w = uni(1, 2);
  const int pad = p.kh == 3 ? uni(0, 1) : 0;
  p.pad_top = p.pad_bottom = p.pad_left = p.pad_right = pad;
  return p;
}

}  // namespace

TEST_CASE("conv2d and matmul at int4 lanes, fsim and cycle bit-exact with the width reference",
          "[compiler][widths]") {
  const uint64_t seed = test_seed();
  std::mt19937_64 rng(seed);
  for (const char* config : {"pynq_int4", "pynq_int4_acc32"}) {
    const Target fsim = use("fsim", config), cycle = use("cycle", config);
    for (int i = 0; i < 3; ++i) {
      const Conv2dParams p = random_off_block_conv(rng);
      Epilogue e;
      e.bias = true;
      e.shift = int(rng() % 6);
      e.residual = i == 1;
      e.relu = i == 2;
      e.clip_hi = i == 0 ? std::optional<int>(100) : std::nullopt;  // narrowed to 7
      INFO(config << " " << p.describe() << " " << e.describe());
      const ConvData d = random_conv_data_at(p, e, rng(), fsim.config);
      const ConvSchedule s = auto_schedule(p, e, fsim.config);
      const LayerRun a = run_conv2d(fsim, p, e, s, d, true);
      const LayerRun b = run_conv2d(cycle, p, e, s, d, true);
      INFO(a.first_mismatch << b.first_mismatch);
      REQUIRE((a.checked && a.mismatches == 0 && b.mismatches == 0));
      REQUIRE(a.out == b.out);
      REQUIRE(b.stats.cycles > 0);
    }
    MatmulParams m;
    m.m = 7, m.k = 37, m.n = 21;
    Epilogue e;
    e.bias = true;
    e.shift = 3;
    const MatmulData d = random_matmul_data_at(m, e, rng(), fsim.config);
    const ConvSchedule s = auto_schedule(matmul_as_conv(m, fsim.config), e, fsim.config);
    const LayerRun a = run_matmul(fsim, m, e, s, d, true);
    const LayerRun b = run_matmul(cycle, m, e, s, d, true);
    REQUIRE((a.checked && a.mismatches == 0 && b.mismatches == 0));
    REQUIRE(a.out == b.out);
  }
}

TEST_CASE("int16 lanes: a hand-computed layer and the store's truncation", "[compiler][widths]") {
  // 1x1, 16 channels, every x = 300 and w = -200: acc = 16 * -60000 = -960000 (int32 acc),
  // >> 4 = -60000, stored as int16: -60000 + 65536 = 5536. With the clip [-32768, 30000]:
  // -32768.
  for (const char* backend : {"fsim", "cycle"}) {
    INFO(backend);
    const Target t = use(backend, "pynq_int16");
    Conv2dParams p;
    p.name = "int16";
    p.c = 16, p.k = 3, p.h = 2, p.w = 3, p.kh = p.kw = 1;
    Epilogue e;
    e.shift = 4;
    WideConvData d;
    d.x.assign(size_t(p.c) * p.h * p.w, 300);
    d.w.assign(size_t(p.k) * p.c, -200);
    const WideLayerRun a = run_conv2d_wide(t, p, e, auto_schedule(p, e, t.config), d, true);
    REQUIRE(a.run.mismatches == 0);
    REQUIRE(a.out == std::vector<int32_t>(size_t(p.k) * p.h * p.w, 5536));
    e.clip_lo = -32768;
    e.clip_hi = 30000;
    const WideLayerRun b = run_conv2d_wide(t, p, e, auto_schedule(p, e, t.config), d, true);
    REQUIRE(b.run.mismatches == 0);
    REQUIRE(b.out == std::vector<int32_t>(size_t(p.k) * p.h * p.w, -32768));
  }
}

TEST_CASE("conv2d and matmul at int16 and int32 lanes, fsim and cycle bit-exact",
          "[compiler][widths]") {
  const uint64_t seed = test_seed();
  std::mt19937_64 rng(seed);
  for (const char* config : {"pynq_int16", "pynq_int32"}) {
    const Target fsim = use("fsim", config), cycle = use("cycle", config);
    REQUIRE(needs_wide_lanes(fsim.config));
    for (int i = 0; i < 3; ++i) {
      const Conv2dParams p = random_off_block_conv(rng);
      Epilogue e;
      e.bias = true;
      e.shift = int(rng() % 12);
      e.relu = i == 1;
      e.clip_hi = i == 2 ? std::optional<int>(20000) : std::nullopt;
      INFO(config << " " << p.describe() << " " << e.describe());
      const WideConvData d = random_wide_conv_data(p, e, rng(), fsim.config);
      const ConvSchedule s = auto_schedule(p, e, fsim.config);
      const WideLayerRun a = run_conv2d_wide(fsim, p, e, s, d, true);
      const WideLayerRun b = run_conv2d_wide(cycle, p, e, s, d, true);
      INFO(a.run.first_mismatch << b.run.first_mismatch);
      REQUIRE((a.run.checked && a.run.mismatches == 0 && b.run.mismatches == 0));
      REQUIRE(a.out == b.out);
    }
    MatmulParams m;
    m.m = 5, m.k = 19, m.n = 33;
    Epilogue e;
    e.bias = true;
    e.shift = 7;
    const WideMatmulData d = random_wide_matmul_data(m, e, rng(), fsim.config);
    const ConvSchedule s = auto_schedule(matmul_as_conv(m, fsim.config), e, fsim.config);
    const WideLayerRun a = run_matmul_wide(fsim, m, e, s, d, true);
    const WideLayerRun b = run_matmul_wide(cycle, m, e, s, d, true);
    REQUIRE((a.run.checked && a.run.mismatches == 0 && b.run.mismatches == 0));
    REQUIRE(a.out == b.out);
  }
}

TEST_CASE("widths the compiler does not run are named errors", "[compiler][widths]") {
  const Target int4 = use("fsim", "pynq_int4");
  Conv2dParams p;
  p.name = "lanes";
  p.c = p.k = 16, p.h = p.w = 4, p.kh = p.kw = 1;
  const Epilogue e;
  ConvData d = random_conv_data_at(p, e, 1, int4.config);
  d.x[5] = 8;  // not an int4 value
  REQUIRE_THROWS_WITH(run_conv2d(int4, p, e, auto_schedule(p, e, int4.config), d, true),
                      Catch::Contains("lanes: input value 8 at index 5 does not fit a 4-bit lane"));
  const HwConfig int32 = HwConfig::from_file(config_path("pynq_int32"));
  REQUIRE_THROWS_WITH(
      check_layer_widths(int32, "wide"),
      Catch::Contains("int32 x int32 -> int32 lanes") && Catch::Contains("run_conv2d_wide"));
  const Target int16 = use("fsim", "pynq_int16");
  Epilogue res;
  res.residual = true;
  const WideConvData wd = random_wide_conv_data(p, res, 1, int16.config);
  REQUIRE_THROWS_WITH(run_conv2d_wide(int16, p, res, auto_schedule(p, res, int16.config), wd, true),
                      Catch::Contains("residual epilogue needs output lanes of up to 8 bits"));
  // Networks run at lanes of up to 16 bits (test_widths_network*.cc), not wider.
  REQUIRE_THROWS_WITH(check_network_widths(int32, "tiny"),
                      Catch::Contains("network tiny") && Catch::Contains("int32 x int32 -> int32"));
  REQUIRE_NOTHROW(check_network_widths(int16.config, "tiny"));
  REQUIRE_NOTHROW(check_network_widths(int4.config, "tiny"));
  REQUIRE_NOTHROW(check_network_widths(HwConfig::from_file(config_path("pynq")), "tiny"));
}
