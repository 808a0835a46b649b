// End to end: conv2d and matmul compiled, run through the runtime on a backend, and compared
// bit for bit with the plain C++ reference (layer_runner does the comparison).
#include <algorithm>
#include <random>
#include <tuple>
#include <utility>

#include <catch2/catch.hpp>

#include "test_paths.h"
#include "vta/backend_factory.h"
#include "vta/compiler/check/program_check.h"
#include "vta/compiler/run/layer_runner.h"
#include "vta/compiler/scheduling/auto_schedule.h"
#include "vta/driver.h"
#include "vta/runtime_cpp.h"

using namespace vta::compiler;
using vta::HwConfig;

namespace {

// Problems the static verifier found in the programs synchronised since the last check.
std::vector<std::string> g_program_problems;

Target use(const std::string& backend, const char* config) {
  vta::set_error_mode(vta::ErrorMode::kThrow);
  Target target(HwConfig::from_file(config_path(config)), backend);
  // The compiler checks every synchronised program for races between stages and leftover
  // tokens; the problems are also collected here.
  target.on_program_check = [](const ProgramCheck& c) {
    if (!c.ok()) {
      g_program_problems.push_back(c.first_problem.empty()
                                       ? std::to_string(c.leftover_tokens) + " leftover tokens"
                                       : c.first_problem);
    }
  };
  return target;
}

// use() for a backend that must be built: a missing one fails the test instead of passing
// silently.
Target use_built(const std::string& backend, const char* config) {
  const auto names = vta::available_backends();
  REQUIRE(std::find(names.begin(), names.end(), backend) != names.end());
  return use(backend, config);
}

// Asserts that the programs run since the last call were race free.
void require_race_free() {
  const std::vector<std::string> problems = std::exchange(g_program_problems, {});
  INFO((problems.empty() ? std::string() : problems.front()));
  REQUIRE(problems.empty());
}

Conv2dParams random_conv(std::mt19937& rng) {
  auto uni = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  Conv2dParams p;
  p.name = "random";
  p.n = uni(1, 3);
  p.c = uni(1, 40);
  p.k = uni(1, 40);
  const int kernels[] = {1, 3, 7};
  p.kh = p.kw = kernels[uni(0, 2)];
  if (uni(0, 4) == 0) {
    p.kw = kernels[uni(0, 1)];  // non-square now and then
  }
  p.stride_h = p.stride_w = uni(1, 2);
  p.pad_top = uni(0, 3);
  p.pad_left = uni(0, 3);
  const bool symmetric = uni(0, 1);
  p.pad_bottom = symmetric ? p.pad_top : uni(0, 3);
  p.pad_right = symmetric ? p.pad_left : uni(0, 3);
  p.h = std::max(uni(1, 14), p.kh - p.pad_top - p.pad_bottom);
  p.w = std::max(uni(1, 14), p.kw - p.pad_left - p.pad_right);
  return p;
}

Epilogue random_epilogue(std::mt19937& rng) {
  auto uni = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  Epilogue e;
  e.bias = uni(0, 1);
  e.shift = uni(0, 1) ? uni(1, 10) : 0;
  e.residual = uni(0, 3) == 0;
  e.relu = uni(0, 1);
  if (uni(0, 1)) {
    e.clip_hi = uni(0, 127);
  }
  if (uni(0, 2) == 0) {
    e.clip_lo = -uni(0, 128);
  }
  return e;
}

// A schedule from the ranked list (not always the best), sometimes with 3 virtual threads.
ConvSchedule random_schedule(const Conv2dParams& p, const Epilogue& e, const HwConfig& cfg,
                             std::mt19937& rng) {
  auto ranked = rank_schedules(p, e, cfg, 40);
  ConvSchedule s =
      ranked[std::uniform_int_distribution<size_t>(0, ranked.size() - 1)(rng)].schedule;
  if (std::uniform_int_distribution<int>(0, 3)(rng) == 0) {
    ConvSchedule t = s;
    t.threads = 3;
    try {
      (void)TilePlan::make(p, e, t, cfg);
      s = t;
    } catch (const vta::Error&) {
    }
  }
  return s;
}

void random_convs(const std::string& backend, const char* config, uint32_t seed, int trials) {
  const Target target = use(backend, config);
  const HwConfig& cfg = target.config;
  std::mt19937 rng(seed);
  for (int trial = 0; trial < trials; ++trial) {
    const Conv2dParams p = random_conv(rng);
    const Epilogue e = random_epilogue(rng);
    const ConvSchedule s = random_schedule(p, e, cfg, rng);
    INFO("seed " << seed << " trial " << trial << " config " << config << ": " << p.describe()
                 << " epilogue " << e.describe() << " schedule " << s.describe());
    const LayerRun r =
        run_conv2d(target, p, e, s, random_conv_data(p, e, seed * 1000u + trial), true);
    INFO("first mismatch: " << r.first_mismatch);
    REQUIRE(r.mismatches == 0);
    require_race_free();
    // fsim counting rule: every GEMM micro-op with reset 0 counts once; the plan executes each
    // (output element, input block, tap) exactly once. A kernel fold with f rows (row step a)
    // has C*f*KW channels and KH' = 1 (f >= KH) or ceil((KH - f) / a) + 1 rows of 1 tap.
    const BlockedConv g = BlockedConv::make(p, cfg);
    uint64_t taps = uint64_t(g.icb) * p.kh * p.kw;
    if (s.fold_rows) {
      const int f = s.fold_rows, a = (p.stride_h == 2 && f >= 2) ? 2 : 1;
      const int kh = f >= p.kh ? 1 : (p.kh - f + a - 1) / a + 1;
      taps = uint64_t((p.c * f * p.kw + cfg.block_in - 1) / cfg.block_in) * kh;
    }
    REQUIRE(r.stats.gemm_counter == uint64_t(g.nb) * g.ocb * g.oh * g.ow * taps);
    REQUIRE(r.stats.out_store_nbytes == uint64_t(g.nb) * g.ocb * g.oh * g.ow * cfg.out_elem_bytes);
  }
}

}  // namespace

TEST_CASE("a network layer's random weights are the layer run's, without its input", "[e2e]") {
  // Input sizes that are and are not multiples of the eight values one draw gives.
  for (const auto& [c, h, w] : {std::tuple{16, 7, 7}, std::tuple{3, 5, 5}, std::tuple{8, 1, 1}}) {
    Conv2dParams p;
    p.n = 1, p.c = c, p.h = h, p.w = w, p.k = 24, p.kh = 3, p.kw = 3;
    p.pad_top = p.pad_bottom = p.pad_left = p.pad_right = 1;
    Epilogue e;
    e.bias = true;
    e.residual = true;
    INFO("c " << c << " h " << h << " w " << w);
    const ConvData all = random_conv_data(p, e, 77);
    const ConvData weights = random_conv_weights(p, e, 77);
    CHECK(weights.w == all.w);
    CHECK(weights.bias == all.bias);
    CHECK(weights.x.empty());
    CHECK(weights.residual.empty());
  }
}

TEST_CASE("random conv2d on fsim with pynq", "[e2e]") {
  random_convs("fsim", "pynq", 101, 25);
}
TEST_CASE("random conv2d on fsim with small", "[e2e]") {
  random_convs("fsim", "small", 202, 25);
}
TEST_CASE("random conv2d on fsim with block32", "[e2e]") {
  random_convs("fsim", "block32", 303, 15);
}
TEST_CASE("random conv2d on fsim with batch4", "[e2e]") {
  random_convs("fsim", "batch4", 404, 15);
}

TEST_CASE("random matmul on fsim with three configs", "[e2e]") {
  for (const char* config : {"pynq", "batch4", "small"}) {
    const Target target = use("fsim", config);
    const HwConfig& cfg = target.config;
    const uint32_t seed = 505;
    std::mt19937 rng(seed);
    for (int trial = 0; trial < 10; ++trial) {
      auto uni = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
      MatmulParams p;
      p.m = uni(1, 70), p.k = uni(1, 100), p.n = uni(1, 70);
      Epilogue e = random_epilogue(rng);
      e.residual = false;
      const ConvSchedule s = auto_schedule(matmul_as_conv(p, cfg), e, cfg);
      INFO("seed " << seed << " trial " << trial << " " << config << ": " << p.describe()
                   << " epilogue " << e.describe() << " schedule " << s.describe());
      const LayerRun r = run_matmul(target, p, e, s, random_matmul_data(p, e, seed + trial), true);
      INFO("first mismatch: " << r.first_mismatch);
      REQUIRE(r.mismatches == 0);
    }
  }
}

TEST_CASE("every ResNet-18 layer on the default config (fsim, auto schedule)", "[e2e]") {
  const Target target = use("fsim", "pynq");
  const HwConfig& cfg = target.config;
  for (const auto& layer : resnet18_conv_layers()) {
    INFO(layer.params.name);
    Epilogue e = layer.epilogue;
    e.bias = true;
    const ConvSchedule s = auto_schedule(layer.params, e, cfg);
    const LayerRun r =
        run_conv2d(target, layer.params, e, s, random_conv_data(layer.params, e, 7), true);
    INFO("schedule " << s.describe() << " first mismatch: " << r.first_mismatch);
    REQUIRE(r.mismatches == 0);
    require_race_free();
    REQUIRE(r.stats.gemm_counter == r.gemm_bound);
  }
}

TEST_CASE("tutorial schedule of resnet18.C8 on fsim", "[e2e]") {
  const Target target = use("fsim", "pynq");
  const auto layer = find_named_layer("resnet18.C8");
  const ConvSchedule s =
      ConvSchedule::from_file(std::string(VTA_SOURCE_DIR) + "/compiler/schedules/tutorial_c8.json");
  const LayerRun r = run_conv2d(target, layer.params, *s.epilogue, s,
                                random_conv_data(layer.params, *s.epilogue, 8), true);
  REQUIRE(r.mismatches == 0);
  // Upstream counting rules, hand-derived for this schedule: 14*14*16 output tiles x 16 input
  // blocks x 9 taps GEMM micro-ops; 3 ALU ops (>>, max, min) per output tile; weights loaded
  // once per (oc tile, ic chunk, spatial tile) = 2*16*2 loads of 8*9 tiles of 256 bytes.
  CHECK(r.stats.gemm_counter == 14ull * 14 * 16 * 16 * 9);
  CHECK(r.stats.alu_counter == 3ull * 14 * 14 * 16);
  CHECK(r.stats.wgt_load_nbytes == 2ull * 16 * 2 * 8 * 9 * 256);
  CHECK(r.stats.out_store_nbytes == 14ull * 14 * 16 * 16);
}

namespace {
// A few small random convolutions on a timed backend (the test cases are only registered for
// backends that are built, so a missing one fails here instead of passing silently).
void timed_backend_convs(const std::string& backend, const char* config, uint32_t seed,
                         int trials) {
  const Target target = use_built(backend, config);
  const HwConfig& cfg = target.config;
  std::mt19937 rng(seed);
  for (int trial = 0; trial < trials; ++trial) {
    Conv2dParams p = random_conv(rng);
    const Epilogue e = random_epilogue(rng);
    const ConvSchedule s = random_schedule(p, e, cfg, rng);
    INFO("seed " << seed << " trial " << trial << ": " << p.describe() << " " << s.describe());
    const LayerRun r = run_conv2d(target, p, e, s, random_conv_data(p, e, seed + trial), true);
    REQUIRE(r.mismatches == 0);
    require_race_free();
    REQUIRE(r.stats.timed);
    // Every GEMM micro-op takes at least one cycle.
    REQUIRE(r.stats.cycles >= r.stats.gemm_counter);
  }
}
}  // namespace

namespace {
// Random convolutions with one or two input chunks on two virtual threads: each weight slot
// keeps the weights of one (oc tile, chunk), so every weight is loaded once per batch block, a
// single-chunk layer's weights into one slot only (TilePlan::weight_slot). Bit-exact, race free,
// and the weight bytes equal the layer's weights once per batch block (once in all with a single oc
// tile).
void kept_weight_convs(const std::string& backend, const char* config, uint32_t seed, int trials) {
  const Target target = use_built(backend, config);
  const HwConfig& cfg = target.config;
  std::mt19937 rng(seed);
  auto uni = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int trial = 0; trial < trials; ++trial) {
    Conv2dParams p = random_conv(rng);
    p.c = uni(cfg.block_in + 1, 3 * cfg.block_in);  // two or three input blocks
    const Epilogue e = random_epilogue(rng);
    const BlockedConv g = BlockedConv::make(p, cfg);
    ConvSchedule s;
    s.threads = 2;
    s.tile_ic_blocks = uni(0, 2) == 0 ? g.icb : (g.icb + 1) / 2;  // one chunk or two
    s.tile_oc_blocks = uni(1, g.ocb);
    s.tile_h = uni(1, g.oh);
    s.tile_w = uni(1, g.ow);
    INFO("seed " << seed << " trial " << trial << " config " << config << ": " << p.describe()
                 << " epilogue " << e.describe() << " schedule " << s.describe());
    try {
      (void)TilePlan::make(p, e, s, cfg);
    } catch (const vta::Error&) {
      s.tile_h = s.tile_w = s.tile_oc_blocks = 1;  // the smallest tile fits every config here
    }
    const LayerRun r = run_conv2d(target, p, e, s, random_conv_data(p, e, seed + trial), true);
    INFO("first mismatch: " << r.first_mismatch);
    REQUIRE(r.mismatches == 0);
    require_race_free();
    // Once per batch block; once in all when one oc tile holds every output channel (the
    // slots still hold its weights when the next batch block starts).
    const uint64_t passes = s.tile_oc_blocks >= g.ocb ? 1 : uint64_t(g.nb);
    REQUIRE(r.stats.wgt_load_nbytes ==
            passes * g.ocb * g.icb * p.kh * p.kw * uint64_t(cfg.wgt_elem_bytes));
  }
}
}  // namespace

TEST_CASE("weights kept in their slots across one or two input chunks (fsim, four configs)",
          "[e2e]") {
  kept_weight_convs("fsim", "pynq", 801, 10);
  kept_weight_convs("fsim", "small", 802, 10);
  kept_weight_convs("fsim", "block32", 803, 10);
  kept_weight_convs("fsim", "batch4", 804, 10);
}

TEST_CASE("weights kept in their slots across one or two input chunks (cycle)", "[e2e][cycle]") {
  kept_weight_convs("cycle", "pynq", 811, 6);
  kept_weight_convs("cycle", "block32", 812, 4);
}

#ifdef VTA_TEST_HAVE_RTL
TEST_CASE("weights kept in their slots across one or two input chunks (rtl)", "[e2e][rtl]") {
  kept_weight_convs("rtl", "pynq", 821, 3);
}
#endif

namespace {
// Loads longer than kShortLoadBeats are cut (load_split.h), on pynq (8-byte bus: 8 KiB per LOAD;
// the layer is not load-heavy, TilePlan::max_load_beats).
// 1x64x28x28 * 32x3x3 p1 with a residual, bit-exact on each backend; the load unit's
// instruction counts are derived by hand:
//  A: h28 w28 oc1 ic1: 2 oc tiles x 4 chunks = 8 steps; each input window has 28 data rows of
//     448 B, cut at 18 rows (8064 B) into 2 loads (the first keeps the padding row above, the
//     second the one below); 4 chunks > 2 slots, so one weight load per step: 8 x (2 + 1) = 24.
//  B: h14 w14 oc2 ic4: 4 steps of 4 input windows of at most 16x16 x 16 B = 4 KiB (uncut); one
//     chunk, so the weights are loaded once: 2 rows of 36 x 256 B = 9216 B, each cut into 32 +
//     4 tiles: 16 + 4 = 20 (the two rows are also the two parts the compute unit gets them in,
//     TilePlan::weight_parts), and the weight bytes are the layer's weights once.
//  C: 1x16x20x20 * 16x11x11 p5, h8 w8 oc1 ic1: 9 tiles of one window of at most 18x18 x 16 B
//     (uncut); one block of 121 x 256 B = 30,976 B, at least two 8 KiB parts, so it goes to the
//     compute unit in parts of 8192 / (11 x 256) = 2 kernel rows: 6 loads (2,2,2,2,2,1 rows, at
//     most 5,632 B, uncut; the whole block in one load would have been cut into 4): 9 + 6 = 15.
// Each run also ends with 3 load NOPs: two pop the g2l tokens left at the end, one hands the
// load unit over to FINISH.
void cut_load_convs(const std::string& backend) {
  const Target target = use(backend, "pynq");
  Epilogue e;
  e.shift = 6;
  e.residual = true;
  e.relu = true;
  struct Case {
    int c, hw, k, kernel, h, w, oc, ic;
    uint64_t load_insns, wgt_bytes;  // wgt_bytes 0: not checked
  };
  const Case cases[] = {{64, 28, 32, 3, 28, 28, 1, 1, 24, 0},
                        {64, 28, 32, 3, 14, 14, 2, 4, 20, 64ull * 32 * 9},
                        {16, 20, 16, 11, 8, 8, 1, 1, 15, 16ull * 16 * 121}};
  for (const Case& c : cases) {
    Conv2dParams p;
    p.name = "cut";
    p.n = 1, p.c = c.c, p.h = p.w = c.hw, p.k = c.k;
    p.kh = p.kw = c.kernel;
    p.pad_top = p.pad_bottom = p.pad_left = p.pad_right = c.kernel / 2;
    ConvSchedule s;
    s.tile_h = c.h, s.tile_w = c.w, s.tile_oc_blocks = c.oc, s.tile_ic_blocks = c.ic;
    INFO(backend << " " << p.describe() << " schedule " << s.describe());
    const LayerRun r = run_conv2d(target, p, e, s, random_conv_data(p, e, 31), true);
    INFO("first mismatch: " << r.first_mismatch);
    REQUIRE(r.mismatches == 0);
    require_race_free();
    if (c.wgt_bytes != 0) {
      CHECK(r.stats.wgt_load_nbytes == c.wgt_bytes);
    }
    if (const vta::NamedCounter* n = r.stats.find("insns.load")) {
      CHECK(uint64_t(n->value) == c.load_insns + 3);
    } else {
      REQUIRE(backend == "fsim");
    }
  }
}
}  // namespace

TEST_CASE("long loads cut into pieces stay bit-exact (fsim, cycle)", "[e2e][cycle]") {
  cut_load_convs("fsim");
  cut_load_convs("cycle");
}

#ifdef VTA_TEST_HAVE_RTL
TEST_CASE("long loads cut into pieces stay bit-exact (rtl)", "[e2e][rtl]") {
  cut_load_convs("rtl");
}
#endif

namespace {
// Input bytes of a 1-row kernel with a row stride > 1, tile by tile, from the schedule alone: a
// tile of th x tw outputs at (oy0, ox0) loads, per input block, the input rows
// (oy0 + y) * SH - PT (y < th) inside the image, each with the columns of its window
// [ox0 * SW - PL, + (tw - 1) * SW + KW) inside the image; a window with no row or no column in
// the image loads its whole th x window-width from the zero buffer. Padding is not counted
// (upstream rule). Each input block is loaded once per (batch block, oc tile, spatial tile).
// A fold (only fold 1 exists for KH = 1) turns the layer into C*KW channels, a 1x1 kernel of
// column stride 1, H' = (OH-1)*SH + 1 rows, W' = OW columns and no padding.
uint64_t strided_rows_inp_bytes(Conv2dParams p, const ConvSchedule& s, const HwConfig& cfg) {
  const int oh = p.out_h(), ow = p.out_w();
  if (s.fold_rows) {
    p.c *= p.kw;
    p.kw = 1;
    p.stride_w = 1;
    p.h = (oh - 1) * p.stride_h + 1;
    p.w = ow;
    p.pad_top = p.pad_bottom = p.pad_left = p.pad_right = 0;
  }
  auto blocks = [](int n, int b) { return uint64_t((n + b - 1) / b); };
  uint64_t elems = 0;  // per input block, over the spatial tiles
  for (int oy0 = 0; oy0 < oh; oy0 += s.tile_h) {
    for (int ox0 = 0; ox0 < ow; ox0 += s.tile_w) {
      const int th = std::min(s.tile_h, oh - oy0), tw = std::min(s.tile_w, ow - ox0);
      uint64_t rows = 0;
      for (int y = 0; y < th; ++y) {
        const int iy = (oy0 + y) * p.stride_h - p.pad_top;
        rows += (iy >= 0 && iy < p.h) ? 1 : 0;
      }
      const int width = (tw - 1) * p.stride_w + p.kw, x0 = ox0 * p.stride_w - p.pad_left;
      const int cols = std::max(0, std::min(x0 + width, p.w) - std::max(x0, 0));
      elems += rows == 0 || cols == 0 ? uint64_t(th) * width : rows * uint64_t(cols);
    }
  }
  return elems * blocks(p.n, cfg.batch) * blocks(p.k, cfg.block_out * s.tile_oc_blocks) *
         blocks(p.c, cfg.block_in) * uint64_t(cfg.inp_elem_bytes);
}

// Random 1-row kernels (KW 1 or 3) with row stride 2 or 3 and padding 0-3 on each side: the
// input window holds only the rows the kernel uses (window_row_step). Bit-exact, race free, and
// the input bytes are those of strided_rows_inp_bytes.
void strided_row_convs(const std::string& backend, const char* config, uint32_t seed, int trials) {
  const Target target = use_built(backend, config);
  const HwConfig& cfg = target.config;
  std::mt19937 rng(seed);
  auto uni = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int trial = 0; trial < trials; ++trial) {
    Conv2dParams p;
    p.name = "strided rows";
    p.n = uni(1, 3);
    p.c = uni(1, 40);
    p.k = uni(1, 40);
    p.kh = 1;
    p.kw = uni(0, 1) ? 1 : 3;
    p.stride_h = uni(2, 3);
    p.stride_w = uni(1, 3);
    p.pad_top = uni(0, 3), p.pad_bottom = uni(0, 3);
    p.pad_left = uni(0, 3), p.pad_right = uni(0, 3);
    p.h = uni(1, 16);
    p.w = std::max(uni(1, 16), p.kw - p.pad_left - p.pad_right);
    const Epilogue e = random_epilogue(rng);
    const ConvSchedule s = random_schedule(p, e, cfg, rng);
    INFO("seed " << seed << " trial " << trial << " " << config << " " << backend << ": "
                 << p.describe() << " epilogue " << e.describe() << " schedule " << s.describe());
    const LayerRun r =
        run_conv2d(target, p, e, s, random_conv_data(p, e, seed * 100u + trial), true);
    INFO("first mismatch: " << r.first_mismatch);
    REQUIRE(r.mismatches == 0);
    require_race_free();
    REQUIRE(r.stats.inp_load_nbytes == strided_rows_inp_bytes(p, s, cfg));
  }
}
}  // namespace

TEST_CASE("1-row kernels with a row stride load only the rows they use (fsim, three configs)",
          "[e2e]") {
  strided_row_convs("fsim", "pynq", 1401, 25);
  strided_row_convs("fsim", "small", 1402, 20);
  strided_row_convs("fsim", "batch4", 1403, 15);
}

TEST_CASE("1-row kernels with a row stride load only the rows they use (cycle)", "[e2e][cycle]") {
  strided_row_convs("cycle", "pynq", 1411, 8);
}

#ifdef VTA_TEST_HAVE_RTL
TEST_CASE("1-row kernels with a row stride load only the rows they use (rtl)", "[e2e][rtl]") {
  strided_row_convs("rtl", "pynq", 1421, 3);
}
#endif

// ResNet-18's stride-2 downsample layers on pynq, input bytes by hand (16 B per element):
//  C4 (1x64x56x56 * 128x1x1 s2 -> 28x28), h7 w4 oc8 ic2: 4 x 7 tiles, each window 7 used rows
//    (0, 2, .., 12 of its 13) x 7 columns ((4-1)*2+1) of each of 4 input blocks, one oc tile:
//    28 x 4 x 49 x 16 = 87,808 B (the 13-row window: 163,072 B).
//  C10 (1x256x14x14 * 512x1x1 s2 -> 7x7), h7 w7 oc16 ic1: one spatial tile of 7 rows x 13
//    columns, 16 input blocks, loaded for each of 2 oc tiles: 2 x 16 x 91 x 16 = 46,592 B
//    (13 x 13 rows: 86,528 B).
TEST_CASE("input bytes of resnet18.C4 and C10 on pynq, by hand", "[e2e]") {
  const Target target = use("fsim", "pynq");
  struct Case {
    const char* layer;
    ConvSchedule s;
    uint64_t inp_bytes;
  };
  ConvSchedule c4, c10;
  c4.tile_h = 7, c4.tile_w = 4, c4.tile_oc_blocks = 8, c4.tile_ic_blocks = 2;
  c10.tile_h = 7, c10.tile_w = 7, c10.tile_oc_blocks = 16, c10.tile_ic_blocks = 1;
  for (const Case& c : {Case{"resnet18.C4", c4, 87808}, Case{"resnet18.C10", c10, 46592}}) {
    INFO(c.layer << " schedule " << c.s.describe());
    const auto layer = find_named_layer(c.layer);
    const LayerRun r = run_conv2d(target, layer.params, layer.epilogue, c.s,
                                  random_conv_data(layer.params, layer.epilogue, 14), true);
    REQUIRE(r.mismatches == 0);
    require_race_free();
    CHECK(r.stats.inp_load_nbytes == c.inp_bytes);
  }
}

// The timed backends run the units concurrently, so they also catch missing dependency tokens
// that fsim's execution order could hide.
TEST_CASE("conv2d on the cycle backend matches the reference (pynq)", "[e2e][cycle]") {
  timed_backend_convs("cycle", "pynq", 606, 12);
}

TEST_CASE("conv2d on the cycle backend matches the reference (small)", "[e2e][cycle]") {
  timed_backend_convs("cycle", "small", 616, 8);
}

#ifdef VTA_TEST_HAVE_RTL  // set by tests/compiler/CMakeLists.txt when the RTL model is built
TEST_CASE("conv2d on the rtl backend matches the reference", "[e2e][rtl]") {
  timed_backend_convs("rtl", "pynq", 707, 4);
}
#endif

TEST_CASE("tuning runs the ranked candidates and keeps the cheapest", "[e2e]") {
  const Target target = use("fsim", "pynq");
  const HwConfig& cfg = target.config;
  const auto layer = find_named_layer("resnet18.C11");
  const ConvData data = random_conv_data(layer.params, layer.epilogue, 11);
  const TuneResult t = tune_conv2d(target, layer.params, layer.epilogue, data, 5, true);
  REQUIRE(t.trials.size() == 5);
  for (const TuneTrial& trial : t.trials) {
    INFO(trial.schedule.describe());
    REQUIRE(trial.run.mismatches == 0);
    // fsim cost: GEMM + ALU micro-ops + bytes moved / bus bytes, from the upstream counters.
    const auto& s = trial.run.stats;
    const double bytes = double(s.inp_load_nbytes + s.wgt_load_nbytes + s.acc_load_nbytes +
                                s.uop_load_nbytes + s.out_store_nbytes);
    REQUIRE(trial.cost == Approx(double(s.gemm_counter + s.alu_counter) + bytes / cfg.bus_bytes));
    REQUIRE(t.trials[t.best].cost <= trial.cost);
  }
}

TEST_CASE("a layer split by automatic synchronisations stays correct", "[e2e]") {
  // 32 instructions per program: the runtime synchronises many times inside the pipelined
  // layer and carries the outstanding dependency tokens across runs.
  const Target target = use("fsim", "pynq");
  {
    // Restores the default buffer size however the block ends, so the run after it uses the
    // default.
    struct MaxXferGuard {
      vta::Runtime& rt;
      ~MaxXferGuard() {
        rt.set_max_xfer(VTA_MAX_XFER);
        rt.reset();
      }
    } guard{*target.runtime};
    target.runtime->set_max_xfer(32 * 16);
    target.runtime->reset();
    const auto layer = find_named_layer("resnet18.C11");
    Epilogue e = layer.epilogue;
    e.bias = true;
    const ConvSchedule s = auto_schedule(layer.params, e, target.config);
    // The verifier checks each program on its own: the tokens this layer carries across its
    // automatic synchronisations would count as left over.
    Target split = target;
    split.verify_programs = false;
    const LayerRun r =
        run_conv2d(split, layer.params, e, s, random_conv_data(layer.params, e, 3), true);
    REQUIRE(r.stats.runs > 10);
    REQUIRE(r.mismatches == 0);
    REQUIRE(r.stats.gemm_counter == r.gemm_bound);
  }
  // Back to the default buffers: a small layer is one synchronisation again.
  Conv2dParams p;
  p.name = "small";
  p.pad_top = p.pad_bottom = p.pad_left = p.pad_right = 1;
  const ConvSchedule s = auto_schedule(p, Epilogue{}, target.config);
  const LayerRun r = run_conv2d(target, p, Epilogue{}, s, random_conv_data(p, Epilogue{}, 4), true);
  REQUIRE(r.mismatches == 0);
  REQUIRE(r.stats.runs == 1);
}

TEST_CASE("the program verifier finds a load/GEMM race and accepts the synchronised version",
          "[e2e]") {
  const HwConfig cfg = HwConfig::from_file(config_path("pynq"));
  const vta::IsaCodec codec(cfg);
  auto build = [&](bool tokens) {
    vta::SyncedProgram p;
    p.uop_phys = 0x10000;
    p.uops = {codec.encode_uop(vta::Uop{0, 0, 0})};
    vta::Insn load;
    load.opcode = vta::kOpLoad, load.memory_type = vta::kMemInp, load.x_size = load.y_size = 1;
    load.x_stride = 1, load.push_next_dep = tokens;
    vta::Insn uop;
    uop.opcode = vta::kOpLoad, uop.memory_type = vta::kMemUop, uop.x_size = uop.y_size = 1;
    uop.x_stride = 1, uop.dram_base = p.uop_phys / 4;
    vta::Insn gemm;
    gemm.opcode = vta::kOpGemm, gemm.uop_bgn = 0, gemm.uop_end = 1, gemm.iter_out = 1;
    gemm.iter_in = 1, gemm.pop_prev_dep = tokens;
    vta::Insn finish;
    finish.opcode = vta::kOpFinish;
    for (const vta::Insn& i : {load, uop, gemm, finish}) {
      p.insns.push_back(codec.encode(i));
    }
    return p;
  };
  const ProgramCheck racy = check_program(build(false), cfg);
  REQUIRE(racy.races == 1);
  REQUIRE(racy.first_problem.find("race on the input buffer: instruction 0") == 0);
  const ProgramCheck good = check_program(build(true), cfg);
  REQUIRE(good.ok());
  REQUIRE(good.checked_pairs == 1);
}
