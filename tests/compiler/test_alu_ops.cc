// Operators on VTA's ALU (codegen/alu_pool.h): max pooling run on fsim, cycle and rtl and
// compared bit for bit with a plain reference written here (explicit padding with the most
// negative int8), the cycle estimate against the cycle model, and the placement rule.
#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include <catch2/catch.hpp>

#include "test_paths.h"
#include "test_target.h"
#include "vta/backend_factory.h"
#include "vta/compiler/ops/op_def.h"
#include "vta/compiler/run/alu_runner.h"
#include "vta/runtime_cpp.h"
#include "vta/sim/error.h"

using namespace vta::compiler;
using vta::HwConfig;

namespace {

// A pool case: input n x c x h x w, kernel, stride, pads (top, left, bottom, right). Ceil mode
// is the extra bottom / right padding that makes the last partial window count.
struct PoolCase {
  int n, c, h, w, kh, kw, sh, sw, pt, pl, pb, pr;
  PoolWindow window() const {
    PoolWindow p;
    p.n = n, p.c = c, p.h = h, p.w = w, p.kh = kh, p.kw = kw, p.stride_h = sh, p.stride_w = sw;
    p.pad_top = pt, p.pad_left = pl;
    p.oh = (h + pt + pb - kh) / sh + 1;
    p.ow = (w + pl + pr - kw) / sw + 1;
    return p;
  }
};

// The pool the plain way: the input copied into a tensor padded with -128 on every side, then
// the maximum of each window.
std::vector<int8_t> reference_maxpool(const PoolCase& k, const std::vector<int8_t>& x) {
  const PoolWindow p = k.window();
  const int ph = k.h + k.pt + k.pb, pw = k.w + k.pl + k.pr;
  const int8_t lowest = std::numeric_limits<int8_t>::min();
  std::vector<int8_t> out;
  for (int nc = 0; nc < k.n * k.c; ++nc) {
    std::vector<int8_t> padded(size_t(ph) * pw, lowest);
    for (int y = 0; y < k.h; ++y) {
      for (int xx = 0; xx < k.w; ++xx) {
        padded[size_t(y + k.pt) * pw + (xx + k.pl)] = x[(size_t(nc) * k.h + y) * k.w + xx];
      }
    }
    for (int oy = 0; oy < p.oh; ++oy) {
      for (int ox = 0; ox < p.ow; ++ox) {
        int8_t m = lowest;
        for (int ky = 0; ky < k.kh; ++ky) {
          for (int kx = 0; kx < k.kw; ++kx) {
            m = std::max(m, padded[size_t(oy * k.sh + ky) * pw + (ox * k.sw + kx)]);
          }
        }
        out.push_back(m);
      }
    }
  }
  return out;
}

// Uniform int8 in [lo, hi], with the extremes -128 and 127 at the first two places when inside.
std::vector<int8_t> random_input(const PoolCase& k, std::mt19937& rng, int lo, int hi) {
  std::uniform_int_distribution<int> d(lo, hi);
  std::vector<int8_t> x(size_t(k.n) * k.c * k.h * k.w);
  for (auto& v : x) {
    v = int8_t(d(rng));
  }
  x[0] = int8_t(lo);
  x[x.size() - 1] = int8_t(hi);
  return x;
}

void run_case(const Target& target, const PoolCase& k, uint32_t seed, int lo, int hi) {
  std::mt19937 rng(seed);
  const std::vector<int8_t> x = random_input(k, rng, lo, hi);
  const std::vector<int8_t> ref = reference_maxpool(k, x);
  INFO("seed " << seed << " " << k.window().describe() << " on " << target.backend);
  const LayerRun r = run_alu_pool(target, "pool", k.window(), x, &ref);
  CHECK(r.out == ref);
  CHECK(r.mismatches == 0);
  CHECK(r.stats.alu_counter > 0);
  CHECK(r.stats.gemm_counter == 0);
}

// Edge cases: channels not a multiple of the block, resnet18's stem pool shape (small), ceil
// mode, asymmetric kernel / stride / pads, a stride above the kernel, several row tiles and
// batch blocks.
const PoolCase kCases[] = {
    {1, 20, 15, 13, 3, 3, 2, 2, 1, 1, 1, 1},  // 3x3/2 pad 1, 20 channels
    {1, 16, 7, 9, 2, 2, 2, 2, 0, 0, 1, 1},    // ceil mode: 7x9 -> 4x5
    {1, 16, 9, 8, 3, 2, 2, 1, 1, 0, 1, 1},    // 3x2 kernel, stride 2x1, pads 1,0,1,1
    {1, 16, 8, 8, 1, 1, 2, 2, 0, 0, 0, 0},    // 1x1/2: the stride skips rows
    {2, 16, 64, 40, 3, 3, 1, 1, 1, 1, 1, 1},  // rows in several tiles, two batch blocks
};

void random_pools(const char* backend, const char* config, uint32_t seed) {
  const Target target = use(backend, config);
  for (const PoolCase& k : kCases) {
    run_case(target, k, seed++, -128, 127);
  }
  // All negative: a window's padding (zero on a plain load) must never win.
  run_case(target, kCases[0], seed, -128, -1);
}

}  // namespace

TEST_CASE("maxpool on the ALU equals the reference on fsim", "[alu][fsim]") {
  random_pools("fsim", "pynq", 501);
  random_pools("fsim", "batch4", 511);  // 4 batch lanes, 3 of 4 used
}

TEST_CASE("maxpool on the ALU equals the reference on the cycle backend", "[alu][cycle]") {
  random_pools("cycle", "pynq", 521);
}

#ifdef VTA_TEST_HAVE_RTL
TEST_CASE("maxpool on the ALU equals the reference on the rtl backend", "[alu][rtl]") {
  const Target target = use("rtl", "pynq");
  run_case(target, PoolCase{1, 16, 6, 7, 3, 3, 2, 2, 1, 1, 1, 1}, 531, -128, 127);
  run_case(target, PoolCase{1, 16, 5, 5, 2, 2, 2, 2, 0, 0, 1, 1}, 532, -128, -1);
}
#endif

TEST_CASE("the maxpool cycle estimate is close to the cycle model", "[alu][cycle]") {
  const Target target = use("cycle", "pynq");
  for (const PoolCase& k : {kCases[0], kCases[4]}) {
    std::mt19937 rng(541);
    const LayerRun r =
        run_alu_pool(target, "pool", k.window(), random_input(k, rng, -9, 9), nullptr);
    const double est = double(
        alu_pool_cycle_estimate(AluPoolPlan::make(k.window(), target.config), target.config));
    INFO(k.window().describe() << ": estimate " << est << ", cycle model " << r.stats.cycles);
    CHECK(est >= 0.8 * double(r.stats.cycles));
    CHECK(est <= 1.25 * double(r.stats.cycles));
  }
}

TEST_CASE("a row the accumulator buffer cannot hold is refused by name", "[alu]") {
  const HwConfig cfg = HwConfig::from_file(config_path("pynq"));
  const PoolCase wide{1, 16, 3, 3000, 3, 3, 1, 1, 0, 0, 0, 0};
  CHECK_THROWS_WITH(AluPoolPlan::make(wide.window(), cfg),
                    Catch::Contains("one output row needs 11998 accumulator elements, the "
                                    "buffer holds 2048"));
}

namespace {

NetworkLayer maxpool_layer(int k, int s, int pad) {
  NetworkLayer l;
  l.name = "pool";
  l.op = "maxpool";
  l.input = "data";
  l.kh = l.kw = k;
  l.stride_h = l.stride_w = s;
  l.pad_top = l.pad_left = l.pad_bottom = l.pad_right = pad;
  return l;
}

}  // namespace

// pynq: VTA at 100 MHz, 16 lanes per ALU op, 2 cycles per vector op; the host two Cortex-A9 at
// 650 MHz with 2 elementwise operations per core and cycle, 5 us per layer (docs/host_cpu.md).
TEST_CASE("maxpool placement compares VTA's estimate with the host model", "[alu][place]") {
  const HwConfig cfg = HwConfig::from_file(config_path("pynq"));
  const NetworkLayer l = maxpool_layer(3, 2, 1);
  // 16x4x4 -> 2x2: 4 outputs x (2 init + 9 taps x 2) cycles, 11 micro-op kernels of one DRAM
  // latency (16 cycles) each to load, the input's 256 bytes: a few hundred cycles, under 5 us,
  // against the host's 5 us per-layer overhead alone.
  const PlacementChoice small = choose_placement(l, TensorShape{1, 16, 4, 4}, &cfg);
  CHECK(small.place == Placement::kVta);
  CHECK_THAT(small.reason, Catch::Matches(R"(vta \(est \d+ cy = [0-9.]+ us < host [0-9.]+ us\))"));
  // resnet18's stem pool: 12544 output elements x 20 ALU cycles = 251 k cycles (2.5 ms) alone,
  // against 1.8 M compares / (2 x 2 x 650 M/s) = 0.7 ms on the host.
  const PlacementChoice stem = choose_placement(l, TensorShape{1, 64, 112, 112}, &cfg);
  CHECK(stem.place == Placement::kHost);
  CHECK_THAT(stem.reason, Catch::StartsWith("host (est "));
  // No program fits: the host, saying why.
  NetworkLayer row = maxpool_layer(3, 1, 0);
  const PlacementChoice wide = choose_placement(row, TensorShape{1, 16, 3, 3000}, &cfg);
  CHECK(wide.place == Placement::kHost);
  CHECK_THAT(wide.reason, Catch::Contains("no VTA program: maxpool"));
  // Without a design, the operator's own placement and no reason.
  const PlacementChoice none = choose_placement(l, TensorShape{1, 16, 8, 8}, nullptr);
  CHECK(none.place == Placement::kHost);
  CHECK(none.reason.empty());
}

// A network whose small pool goes to VTA: the runner places it as the place pass does, runs it
// on the ALU and its output is the reference's.
TEST_CASE("a network runs its maxpool on the ALU when VTA is faster", "[alu][network]") {
  const Target target = use("fsim", "pynq");
  const PoolCase k{1, 16, 4, 4, 3, 3, 2, 2, 1, 1, 1, 1};
  Network net;
  net.name = "pool_net";
  net.n = k.n, net.c = k.c, net.h = k.h, net.w = k.w;
  net.layers.push_back(maxpool_layer(3, 2, 1));
  std::mt19937 rng(551);
  const auto x = std::make_shared<const std::vector<int8_t>>(random_input(k, rng, -128, 127));
  net.input_data = x;
  const NetworkRun r = run_network(target, net, NetworkOptions{});
  REQUIRE(r.runs.size() == 1);
  CHECK(r.runs[0].kind == "maxpool");
  CHECK(r.runs[0].checked);
  CHECK(r.runs[0].mismatches == 0);
  CHECK(r.host_ops.empty());
  CHECK(r.output == reference_maxpool(k, *x));
}

namespace {

// The sum the plain way: int arithmetic, then the bounds.
std::vector<int8_t> reference_add(const std::vector<int8_t>& a, const std::vector<int8_t>& b,
                                  int lo, int hi) {
  std::vector<int8_t> out(a.size());
  for (size_t i = 0; i < a.size(); ++i) {
    int v = int(a[i]) + int(b[i]);
    v = v < lo ? lo : v;
    v = v > hi ? hi : v;
    out[i] = int8_t(v);
  }
  return out;
}

struct AddCase {
  int n, c, h, w, lo, hi;
};

void run_add_case(const Target& target, const AddCase& k, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> d(-128, 127);
  const size_t size = size_t(k.n) * k.c * k.h * k.w;
  std::vector<int8_t> a(size), b(size);
  for (size_t i = 0; i < size; ++i) {
    a[i] = int8_t(d(rng)), b[i] = int8_t(d(rng));
  }
  a[0] = b[0] = 127;   // saturates high: 254
  a[1] = b[1] = -128;  // saturates low: -256
  const std::vector<int8_t> ref = reference_add(a, b, k.lo, k.hi);
  const AluAddPlan plan = AluAddPlan::make(k.n, k.c, k.h, k.w, k.lo, k.hi, target.config);
  INFO("seed " << seed << " " << plan.describe() << " on " << target.backend);
  const LayerRun r = run_alu_add(target, "add", plan, a, b, &ref);
  CHECK(r.out == ref);
  CHECK(r.mismatches == 0);
}

// Channels not a multiple of the block; several tiles in two slots; ReLU, a ReLU6-like clip
// (0..6 at 2^-4: 96) and a two-sided clip.
const AddCase kAddCases[] = {
    {1, 20, 5, 7, -128, 127},
    {2, 16, 40, 40, 0, 127},
    {1, 32, 9, 9, 0, 96},
    {1, 16, 3, 5, -20, 30},
};

void random_adds(const char* backend, const char* config, uint32_t seed) {
  const Target target = use(backend, config);
  for (const AddCase& k : kAddCases) {
    run_add_case(target, k, seed++);
  }
}

}  // namespace

TEST_CASE("add on the ALU equals the reference on fsim", "[alu][fsim]") {
  random_adds("fsim", "pynq", 601);
  random_adds("fsim", "batch4", 611);
}

TEST_CASE("add on the ALU equals the reference on the cycle backend", "[alu][cycle]") {
  random_adds("cycle", "pynq", 621);
}

#ifdef VTA_TEST_HAVE_RTL
TEST_CASE("add on the ALU equals the reference on the rtl backend", "[alu][rtl]") {
  run_add_case(use("rtl", "pynq"), AddCase{1, 16, 3, 4, 0, 96}, 631);
}
#endif

TEST_CASE("the add cycle estimate is close to the cycle model", "[alu][cycle]") {
  const Target target = use("cycle", "pynq");
  for (const AddCase& k : {kAddCases[0], kAddCases[1]}) {
    const AluAddPlan plan = AluAddPlan::make(k.n, k.c, k.h, k.w, k.lo, k.hi, target.config);
    const std::vector<int8_t> x(size_t(k.n) * k.c * k.h * k.w, 3);
    const LayerRun r = run_alu_add(target, "add", plan, x, x, nullptr);
    const double est = double(alu_add_cycle_estimate(plan, target.config));
    INFO(plan.describe() << ": estimate " << est << ", cycle model " << r.stats.cycles);
    CHECK(est >= 0.8 * double(r.stats.cycles));
    CHECK(est <= 1.25 * double(r.stats.cycles));
  }
}

namespace {

// ONNX HardSigmoid in int8, the plain way: dequantize, alpha x + beta clamped to [0, 1],
// quantize (round half away from zero), saturate.
int8_t plain_hardsigmoid(double alpha, double beta, int in_exp, int out_exp, int q) {
  const double y = std::min(1.0, std::max(0.0, alpha * q / std::pow(2.0, in_exp) + beta));
  const double v = std::round(y * std::pow(2.0, out_exp));
  return int8_t(std::min(127.0, std::max(-128.0, v)));
}

NetworkLayer hardsigmoid_layer(double alpha, double beta, int in_exp, int out_exp) {
  NetworkLayer l;
  l.name = "hs";
  l.op = "hardsigmoid";
  l.input = "data";
  l.attrs = {{"alpha", alpha}, {"beta", beta}, {"in_exp", in_exp}, {"out_exp", out_exp}};
  return l;
}

// Every int8 value once (1x16x4x4 = 256), through a one-layer network placed on VTA.
void hardsigmoid_all_inputs(const char* backend, double alpha, double beta, int ie, int oe) {
  const Target target = use(backend, "pynq");
  Network net;
  net.name = "hs_net";
  net.n = 1, net.c = 16, net.h = 4, net.w = 4;
  std::vector<int8_t> x(256), want(256);
  for (int i = 0; i < 256; ++i) {
    x[size_t(i)] = int8_t(i - 128);
    want[size_t(i)] = plain_hardsigmoid(alpha, beta, ie, oe, i - 128);
  }
  net.input_data = std::make_shared<const std::vector<int8_t>>(x);
  net.layers.push_back(hardsigmoid_layer(alpha, beta, ie, oe));
  INFO(backend << " alpha " << alpha << " beta " << beta << " in_exp " << ie << " out_exp " << oe);
  const NetworkRun r = run_network(target, net, NetworkOptions{});
  REQUIRE(r.runs.size() == 1);  // on VTA
  CHECK(r.runs[0].kind == "elementwise");
  CHECK(r.runs[0].mismatches == 0);
  CHECK(r.output == want);
}

}  // namespace

// ONNX's default (0.2, 0.5) and torch's (1/6, 0.5), at two scale pairs.
TEST_CASE("hardsigmoid on the ALU equals the reference for every int8 input", "[alu][fsim]") {
  hardsigmoid_all_inputs("fsim", 0.2, 0.5, 4, 7);
  hardsigmoid_all_inputs("fsim", 1.0 / 6, 0.5, 5, 6);
  hardsigmoid_all_inputs("fsim", 0.2, 0.5, 3, 8);  // the output saturates at 127
}

// torch's 1/6 as ONNX stores it (float32, a little above 1/6): the ties of q / 12 and q / 48 go
// away from zero on both sides, which only the rounded form round(q * m / 2^s) + c matches.
TEST_CASE("hardsigmoid with a float32 alpha on the ALU for every int8 input", "[alu][fsim]") {
  const double sixth = double(1.0f / 6.0f);
  hardsigmoid_all_inputs("fsim", sixth, 0.5, 8, 7);
  hardsigmoid_all_inputs("fsim", sixth, 0.5, 10, 7);
  hardsigmoid_all_inputs("cycle", sixth, 0.5, 9, 7);
}

TEST_CASE("hardsigmoid on the ALU on the cycle backend", "[alu][cycle]") {
  hardsigmoid_all_inputs("cycle", 1.0 / 6, 0.5, 4, 7);
}

#ifdef VTA_TEST_HAVE_RTL
TEST_CASE("hardsigmoid on the ALU on the rtl backend", "[alu][rtl]") {
  hardsigmoid_all_inputs("rtl", 0.2, 0.5, 4, 7);
  hardsigmoid_all_inputs("rtl", double(1.0f / 6.0f), 0.5, 8, 7);  // the rounded form
}
#endif

TEST_CASE("a hardsigmoid without an exact integer form stays on the host", "[alu][place]") {
  const HwConfig cfg = HwConfig::from_file(config_path("pynq"));
  // a = 1000 * 2^7: no 16-bit multiplier at any shift.
  const PlacementChoice p =
      choose_placement(hardsigmoid_layer(1000, 0.5, 0, 7), TensorShape{1, 16, 4, 4}, &cfg);
  CHECK(p.place == Placement::kHost);
  CHECK_THAT(p.reason, Catch::Contains("has no exact integer form on the ALU"));
}
