// Schedules and tile plans without a device: explicit schedules are validated with pinned
// messages, automatic schedules fit every preset config, and micro-op kernels compute exactly
// the index triples of the convolution loop nest.
#include <cstdint>
#include <set>
#include <tuple>

#include <fmt/format.h>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "test_paths.h"
#include "vta/compiler/codegen/micro_kernel.h"
#include "vta/compiler/scheduling/auto_schedule.h"
#include "vta/compiler/scheduling/schedule.h"
#include "vta/sim/error.h"

using namespace vta::compiler;
using vta::HwConfig;

namespace {
HwConfig preset(const char* name) {
  return HwConfig::from_file(config_path(name));
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const vta::Error& e) {
    return e.what();
  }
  return "";
}

ConvSchedule sched(int h, int w, int o, int i, int vt) {
  ConvSchedule s;
  s.tile_h = h, s.tile_w = w, s.tile_oc_blocks = o, s.tile_ic_blocks = i, s.threads = vt;
  return s;
}
}  // namespace

TEST_CASE("tutorial schedule of resnet18.C8 fits the default config", "[schedule]") {
  const HwConfig cfg = preset("pynq");
  const auto layer = find_named_layer("resnet18.C8");
  const ConvSchedule s =
      ConvSchedule::from_file(std::string(VTA_SOURCE_DIR) + "/compiler/schedules/tutorial_c8.json");
  REQUIRE(s == sched(7, 14, 8, 1, 2));
  REQUIRE(s.epilogue);
  REQUIRE(s.epilogue->shift == 8);
  const TilePlan plan = TilePlan::make(layer.params, *s.epilogue, s, cfg);
  // Hand-derived: 2 x 1 spatial tiles, 2 oc tiles, 16 ic chunks; inp window 9x16.
  REQUIRE(plan.h_tiles == 2);
  REQUIRE(plan.w_tiles == 1);
  REQUIRE(plan.oc_tiles == 2);
  REQUIRE(plan.ic_chunks == 16);
  REQUIRE(plan.full_shape().ih == 9);
  REQUIRE(plan.full_shape().iw == 16);
  REQUIRE(plan.inp_slot == 1024);
  REQUIRE(plan.wgt_slot == 512);
  REQUIRE(plan.acc_slot == 1024);
}

TEST_CASE("invalid explicit schedules are rejected naming the limit", "[schedule]") {
  const HwConfig cfg = preset("pynq");
  const auto c8 = find_named_layer("resnet18.C8");
  const Epilogue e = c8.epilogue;
  CHECK(error_of([&] { TilePlan::make(c8.params, e, sched(15, 14, 8, 1, 2), cfg); }) ==
        "schedule h15 w14 oc8 ic1 vt2 for resnet18.C8 on config 1x16_i8w8a32_15_15_18_17: "
        "tile_h = 15 exceeds the output height (14)");
  CHECK(error_of([&] { TilePlan::make(c8.params, e, sched(7, 14, 8, 1, 5), cfg); }) ==
        "schedule h7 w14 oc8 ic1 vt5 for resnet18.C8 on config 1x16_i8w8a32_15_15_18_17: "
        "threads = 5 exceeds the supported virtual threads (4)");
  CHECK(error_of([&] { TilePlan::make(c8.params, e, sched(14, 14, 1, 8, 2), cfg); }) ==
        "schedule h14 w14 oc1 ic8 vt2 for resnet18.C8 on config 1x16_i8w8a32_15_15_18_17: "
        "input tile needs 2048 INP buffer entries (ic_blocks 8 x 16 rows x 16 cols) but each of "
        "the 2 virtual threads gets 1024 (input buffer depth 2048, LOG_INP_BUFF_SIZE 15)");
  CHECK(error_of([&] { TilePlan::make(c8.params, e, sched(7, 7, 16, 4, 2), cfg); }) ==
        "schedule h7 w7 oc16 ic4 vt2 for resnet18.C8 on config 1x16_i8w8a32_15_15_18_17: "
        "weight tile needs 576 WGT buffer entries (oc_blocks 16 x ic_blocks 4 x 3x3 kernel) but "
        "each of the 2 virtual threads gets 512 (weight buffer depth 1024, LOG_WGT_BUFF_SIZE 18)");
  CHECK(error_of([&] { TilePlan::make(c8.params, e, sched(14, 14, 8, 1, 2), cfg); }) ==
        "schedule h14 w14 oc8 ic1 vt2 for resnet18.C8 on config 1x16_i8w8a32_15_15_18_17: "
        "accumulator tile needs 1568 ACC buffer entries (oc_blocks 8 x 14 rows x 14 cols) but "
        "each of the 2 virtual threads gets 1024 (accumulator buffer depth 2048, "
        "LOG_ACC_BUFF_SIZE 17)");
  // A 64-entry uop buffer: the tutorial tile needs 7 rows x 9 taps = 63 micro-ops even with
  // the two largest dimensions (columns, output channels) in hardware loops; 5 entries are
  // reserved for the epilogue kernels.
  nlohmann::json j = nlohmann::json::parse(R"({"TARGET": "sim", "HW_VER": "0.0.2",
      "LOG_INP_WIDTH": 3, "LOG_WGT_WIDTH": 3, "LOG_ACC_WIDTH": 5, "LOG_BATCH": 0, "LOG_BLOCK": 4,
      "LOG_UOP_BUFF_SIZE": 8, "LOG_INP_BUFF_SIZE": 15, "LOG_WGT_BUFF_SIZE": 18,
      "LOG_ACC_BUFF_SIZE": 17})");
  const nlohmann::json full = cfg.to_json();
  for (auto it = full.begin(); it != full.end(); ++it) {
    if (!j.contains(it.key())) {
      j[it.key()] = *it;
    }
  }
  const HwConfig tiny_uop = HwConfig::from_json(j, "tiny_uop");
  CHECK(error_of([&] {
          TilePlan::make(c8.params, e, sched(7, 14, 8, 1, 2), tiny_uop);
        }).find("needs at least 63 micro-ops but the uop buffer allows 59") != std::string::npos);
  CHECK(error_of([] {
          ConvSchedule::from_json(nlohmann::json::parse(R"({"tile_h":1})"), "x.json");
        }) == "x.json: schedule key 'tile_w' is missing");
  CHECK(error_of([] {
          ConvSchedule::from_json(nlohmann::json::parse(R"({"tile_hh":1})"), "x.json");
        }).find("unknown schedule key 'tile_hh'") != std::string::npos);
}

TEST_CASE("automatic schedules fit every preset config for every ResNet-18 layer", "[schedule]") {
  for (const char* name : kPresetConfigs) {
    const HwConfig cfg = preset(name);
    for (const auto& layer : resnet18_conv_layers()) {
      INFO(name << " " << layer.params.name);
      ConvSchedule s;
      REQUIRE_NOTHROW(s = auto_schedule(layer.params, layer.epilogue, cfg));
      REQUIRE_NOTHROW(TilePlan::make(layer.params, layer.epilogue, s, cfg));
    }
  }
}

// Simulates the hardware loop nest of a kernel and returns the (dst, src, wgt) triples.
static std::multiset<std::tuple<uint32_t, uint32_t, uint32_t>> executed(const MicroKernel& k) {
  std::multiset<std::tuple<uint32_t, uint32_t, uint32_t>> out;
  for (uint32_t a = 0; a < k.loops[0].extent; ++a) {
    for (uint32_t b = 0; b < k.loops[1].extent; ++b) {
      for (const auto& u : k.uops) {
        out.insert({u.dst_idx + a * k.loops[0].dst_factor + b * k.loops[1].dst_factor,
                    u.src_idx + a * k.loops[0].src_factor + b * k.loops[1].src_factor,
                    u.wgt_idx + a * k.loops[0].wgt_factor + b * k.loops[1].wgt_factor});
      }
    }
  }
  return out;
}

TEST_CASE("GEMM kernels execute exactly the convolution's index triples", "[schedule]") {
  const HwConfig cfg = preset("pynq");
  struct Case {
    int to, ti, th, tw, kh, stride;
  };
  // Includes tiles with fewer than three accumulators, which need other loop choices.
  for (Case c : {Case{8, 1, 7, 14, 3, 1}, Case{1, 2, 3, 3, 3, 2}, Case{2, 1, 1, 1, 1, 1},
                 Case{1, 4, 1, 1, 1, 1}, Case{1, 3, 1, 1, 3, 1}, Case{3, 2, 2, 5, 7, 2},
                 Case{2, 2, 3, 4, 1, 2}, Case{1, 1, 5, 2, 1, 3}}) {
    INFO("to " << c.to << " ti " << c.ti << " th " << c.th << " tw " << c.tw << " k " << c.kh);
    Conv2dParams p;
    p.c = 16 * c.ti, p.k = 16 * c.to, p.kh = p.kw = c.kh, p.stride_h = p.stride_w = c.stride;
    p.h = (c.th - 1) * c.stride + c.kh, p.w = (c.tw - 1) * c.stride + c.kh;
    const TilePlan plan = TilePlan::make(p, Epilogue{}, sched(c.th, c.tw, c.to, c.ti, 1), cfg);
    const TileShape t = plan.full_shape();
    std::multiset<std::tuple<uint32_t, uint32_t, uint32_t>> got;
    for (const MicroKernel& k : make_gemm_step(plan, t, 100, 50, 10, cfg.uop_buff_depth)) {
      REQUIRE(k.satisfies_dep_rule());
      auto part = executed(k);
      got.insert(part.begin(), part.end());
    }
    // The window's SRAM rows: a 1-row kernel with a stride holds only the rows it uses.
    const bool skips = c.kh == 1 && c.stride > 1;
    const int rows = skips ? c.th : (c.th - 1) * c.stride + c.kh;
    auto row = [&](int y, int ky) { return skips ? y : y * c.stride + ky; };
    REQUIRE(t.ih == rows);
    std::multiset<std::tuple<uint32_t, uint32_t, uint32_t>> want;
    for (int o = 0; o < c.to; ++o) {
      for (int y = 0; y < c.th; ++y) {
        for (int x = 0; x < c.tw; ++x) {
          for (int i = 0; i < c.ti; ++i) {
            for (int ky = 0; ky < c.kh; ++ky) {
              for (int kx = 0; kx < c.kh; ++kx) {
                want.insert({uint32_t(10 + (o * c.th + y) * c.tw + x),
                             uint32_t(100 + (i * rows + row(y, ky)) * t.iw + x * c.stride + kx),
                             uint32_t(50 + ((o * c.ti + i) * c.kh + ky) * c.kh + kx)});
              }
            }
          }
        }
      }
    }
    REQUIRE(got == want);
  }
}

TEST_CASE("shapes beyond the ISA's size fields or the DRAM are rejected before scheduling",
          "[schedule]") {
  const HwConfig cfg = preset("pynq");
  Conv2dParams p;
  p.name = "big";
  p.kh = p.kw = 1;
  p.h = 1, p.w = 1 << 30;  // used to spin forever in the tile-size candidates
  const std::string too_wide =
      "conv2d 'big': w = 1073741824 exceeds 65535 (16-bit ISA size fields)";
  CHECK(error_of([&] { p.validate(); }) == too_wide);
  CHECK(error_of([&] { auto_schedule(p, Epilogue{}, cfg); }) == too_wide);
  // Every dimension in range, but 2 x 16 x 65535 x 65535 bytes of input and output.
  p.h = p.w = 65535;
  const uint64_t plane = uint64_t(65535) * 65535, in = 16 * plane, wgt = 16 * 16, out = 16 * plane;
  CHECK(error_of([&] { p.validate(); }) ==
        fmt::format("conv2d 'big': tensors need {} MiB (input {} + weights {} + output {} "
                    "bytes), more than the 1024 MiB a layer may use in the simulated DRAM",
                    (in + wgt + out + (1 << 20) - 1) >> 20, in, wgt, out));
  MatmulParams m;
  m.m = 2147483647;
  CHECK(error_of([&] { m.validate(); }) ==
        "matmul 'matmul': m = 2147483647 exceeds 65535 (16-bit ISA size fields)");
  m.m = m.k = m.n = 32768;  // 3 x 1 GiB
  CHECK(error_of([&] { m.validate(); }).find("matmul 'matmul': tensors need 3072 MiB") == 0);
}

TEST_CASE("a 1-row kernel with a row stride keeps only the rows it uses", "[schedule]") {
  const HwConfig cfg = preset("pynq");
  struct Case {
    int kh, stride, w;
    int step, rows;  // by hand, for 3 output rows: 3 used rows, or (3-1)*stride + KH
  };
  for (Case c : {Case{1, 2, 10, 2, 3}, Case{1, 3, 10, 3, 3}, Case{1, 1, 10, 1, 3},
                 Case{3, 2, 10, 1, 7}, Case{2, 3, 10, 1, 8},
                 // 2 x 32767 = 65534 fits the 16-bit DMA row pitch, 2 x 32768 does not
                 Case{1, 2, 32767, 2, 3}, Case{1, 2, 32768, 1, 5}}) {
    INFO("kernel " << c.kh << " stride " << c.stride << " W " << c.w);
    Conv2dParams p;
    p.kh = p.kw = c.kh, p.stride_h = p.stride_w = c.stride;
    p.h = 9, p.w = c.w;
    REQUIRE(window_row_step(p) == c.step);
    REQUIRE(window_rows(p, 3) == c.rows);
    const TilePlan plan = TilePlan::make(p, Epilogue{}, sched(3, 1, 1, 1, 2), cfg);
    REQUIRE(plan.full_shape().ih == c.rows);
    REQUIRE(plan.full_shape().row_step == c.step);
    const bool says =
        plan.describe(cfg).find(fmt::format("(1 input row in {})", c.step)) != std::string::npos;
    REQUIRE(says == (c.step > 1));
  }
}

TEST_CASE("the widest accepted row still gets a schedule that fits", "[schedule]") {
  const HwConfig cfg = preset("pynq");
  Conv2dParams p;
  p.name = "wide";
  p.kh = p.kw = 1;
  p.h = 1, p.w = 65535;
  const ConvSchedule s = auto_schedule(p, Epilogue{}, cfg);
  const TilePlan plan = TilePlan::make(p, Epilogue{}, s, cfg);
  REQUIRE(uint64_t(plan.w_tiles) * s.tile_w >= 65535);
}
