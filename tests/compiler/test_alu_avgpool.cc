// Average pools on VTA's ALU (ops/average_pool_alu.h through codegen/alu_pool.h): every sum a
// 2x2 window can give at several rescales, strided and padded windows, count_include_pad, global
// pools, on fsim, cycle and rtl against a plain mean written here; the estimate against the cycle
// model; pools without one power-of-two divisor stay on the host.
#include <algorithm>
#include <cmath>
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

struct Pool {
  int k, s, pad;
  bool include_pad;
  int rescale;
};

NetworkLayer pool_layer(const Pool& p) {
  NetworkLayer l;
  l.name = "avg";
  l.op = "avgpool";
  l.input = "data";
  l.kh = l.kw = p.k;
  l.stride_h = l.stride_w = p.s;
  l.pad_top = l.pad_left = l.pad_bottom = l.pad_right = p.pad;
  l.count_include_pad = p.include_pad;
  l.rescale = p.rescale;
  return l;
}

// The mean the plain way: the window's real pixels summed, over k * k (every case here has it
// so), times 2^rescale, rounded half away from zero, saturated.
std::vector<int8_t> plain_avgpool(const Pool& p, int n, int c, int h, int w,
                                  const std::vector<int8_t>& x) {
  const int oh = (h + 2 * p.pad - p.k) / p.s + 1, ow = (w + 2 * p.pad - p.k) / p.s + 1;
  std::vector<int8_t> out;
  for (int nc = 0; nc < n * c; ++nc) {
    for (int oy = 0; oy < oh; ++oy) {
      for (int ox = 0; ox < ow; ++ox) {
        double sum = 0;
        for (int ky = 0; ky < p.k; ++ky) {
          for (int kx = 0; kx < p.k; ++kx) {
            const int iy = oy * p.s - p.pad + ky, ix = ox * p.s - p.pad + kx;
            if (iy >= 0 && iy < h && ix >= 0 && ix < w) {
              sum += x[(size_t(nc) * h + iy) * w + ix];
            }
          }
        }
        const double v = sum / (p.k * p.k) * std::pow(2.0, p.rescale);
        const double r = v < 0 ? -std::floor(-v + 0.5) : std::floor(v + 0.5);
        out.push_back(int8_t(std::min(127.0, std::max(-128.0, r))));
      }
    }
  }
  return out;
}

void run_pool_on_vta(const Target& t, const NetworkLayer& l, int n, int c, int h, int w,
                     const std::vector<int8_t>& x, const std::vector<int8_t>& want) {
  NetworkLayerJob job;
  job.input_shape = NetworkTensor{n, c, h, w, {}};
  job.conv.x = x;
  const VtaLayerResult r = op_def(l.op).vta.run(t, Network{}, l, job, NetworkOptions{});
  INFO(t.backend << " " << r.run.shape << " rescale " << l.rescale);
  CHECK(r.run.kind == "avgpool");
  CHECK(r.run.mismatches == 0);
  CHECK(r.out.data == want);
}

// Every sum of four int8 values (-512..508) once: window i of 1x16x2x128 sums to i - 512.
void every_2x2_sum(const char* backend, int rescale) {
  std::vector<int8_t> x(size_t(16) * 2 * 128);
  for (int i = 0; i < 16 * 64; ++i) {
    const int sum = std::min(i - 512, 508);
    const int base = sum >= 0 ? sum / 4 : -((-sum + 3) / 4);  // floor
    const int extra = sum - 4 * base;                         // 0..3 values get one more
    const int c = i / 64, col = 2 * (i % 64);
    for (int j = 0; j < 4; ++j) {
      x[(size_t(c) * 2 + size_t(j / 2)) * 128 + size_t(col + j % 2)] =
          int8_t(base + (j < extra ? 1 : 0));
    }
  }
  const Pool p{2, 2, 0, false, rescale};
  run_pool_on_vta(use(backend, "pynq"), pool_layer(p), 1, 16, 2, 128, x,
                  plain_avgpool(p, 1, 16, 2, 128, x));
}

void random_pool(const Target& t, const Pool& p, int n, int c, int h, int w, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> d(-128, 127);
  std::vector<int8_t> x(size_t(n) * c * h * w);
  for (int8_t& v : x) {
    v = int8_t(d(rng));
  }
  std::fill(x.begin(), x.begin() + std::min<size_t>(x.size(), size_t(w)), int8_t(-128));
  INFO("seed " << seed << " kernel " << p.k << " stride " << p.s << " pad " << p.pad);
  run_pool_on_vta(t, pool_layer(p), n, c, h, w, x, plain_avgpool(p, n, c, h, w, x));
}

void random_pools(const char* backend, uint32_t seed) {
  const Target t = use(backend, "pynq");
  random_pool(t, Pool{2, 2, 0, false, 0}, 1, 20, 9, 9, seed);       // the last row unused
  random_pool(t, Pool{2, 1, 1, true, 1}, 1, 16, 5, 6, seed + 1);    // padding counted
  random_pool(t, Pool{4, 4, 0, false, -1}, 2, 16, 8, 8, seed + 2);  // >> 5
  random_pool(t, Pool{2, 2, 0, false, 3}, 1, 16, 4, 4, seed + 3);   // << 1
}

}  // namespace

TEST_CASE("a 2x2 average pool on the ALU gives the plain mean for every sum", "[alu][fsim]") {
  for (int rescale : {0, 1, -2, 2, 4}) {  // >> 2, >> 1, >> 4, no shift, << 2
    every_2x2_sum("fsim", rescale);
  }
}

TEST_CASE("average pools on the ALU equal the plain mean on fsim", "[alu][fsim]") {
  random_pools("fsim", 801);
  random_pool(use("fsim", "batch4"), Pool{2, 2, 0, false, 0}, 5, 20, 6, 6, 805);
}

TEST_CASE("average pools on the ALU on the cycle backend", "[alu][cycle]") {
  every_2x2_sum("cycle", 0);
  random_pools("cycle", 811);
}

#ifdef VTA_TEST_HAVE_RTL
TEST_CASE("an average pool on the ALU on the rtl backend", "[alu][rtl]") {
  random_pool(use("rtl", "pynq"), Pool{2, 2, 0, false, 0}, 1, 16, 4, 6, 821);
}
#endif

// A global pool over 4x4 (16 values: >> 4) and 16x16 (256 values: two sign shifts).
TEST_CASE("a global average pool on the ALU equals the plain mean", "[alu][fsim]") {
  const Target t = use("fsim", "pynq");
  for (int side : {4, 16}) {
    std::mt19937 rng(830 + uint32_t(side));
    std::uniform_int_distribution<int> d(-128, 127);
    std::vector<int8_t> x(size_t(32) * side * side);
    for (int8_t& v : x) {
      v = int8_t(d(rng));
    }
    std::fill(x.begin(), x.begin() + side * side, int8_t(-128));  // the lowest mean
    NetworkLayer l;
    l.name = "gap", l.op = "global_avgpool", l.input = "data", l.rescale = 1;
    INFO("seed " << 830 + side);
    run_pool_on_vta(t, l, 1, 32, side, side, x,
                    plain_avgpool(Pool{side, 1, 0, false, 1}, 1, 32, side, side, x));
  }
}

TEST_CASE("the average pool cycle estimate is close to the cycle model", "[alu][cycle]") {
  const Target t = use("cycle", "pynq");
  const NetworkLayer l = pool_layer(Pool{2, 2, 0, false, 0});
  const TensorShape s{1, 64, 28, 28};
  NetworkLayerJob job;
  job.input_shape = NetworkTensor{s.n, s.c, s.h, s.w, {}};
  job.conv.x.assign(size_t(s.c) * s.h * s.w, 3);
  const VtaLayerResult r = op_def("avgpool").vta.run(t, Network{}, l, job, NetworkOptions{});
  const double est = double(op_def("avgpool").vta.estimate_cycles(l, s, t.config));
  INFO(r.run.shape << ": estimate " << est << ", cycle model " << r.run.stats.cycles);
  CHECK(est >= 0.8 * double(r.run.stats.cycles));
  CHECK(est <= 1.25 * double(r.run.stats.cycles));
}

TEST_CASE("average pools without one power-of-two divisor stay on the host", "[alu][place]") {
  const HwConfig cfg = HwConfig::from_file(config_path("pynq"));
  const TensorShape in{1, 16, 8, 8};
  const PlacementChoice three = choose_placement(pool_layer(Pool{3, 1, 0, false, 0}), in, &cfg);
  CHECK(three.place == Placement::kHost);
  CHECK_THAT(three.reason, Catch::Contains("do not share one power-of-two divisor"));
  // Padding not counted: the border windows average fewer pixels.
  const PlacementChoice pad = choose_placement(pool_layer(Pool{2, 2, 1, false, 0}), in, &cfg);
  CHECK(pad.place == Placement::kHost);
  // Counted: one divisor, so VTA's estimate decides (ultra96: VTA is faster).
  const HwConfig u96 = HwConfig::from_file(config_path("ultra96"));
  const PlacementChoice ok = choose_placement(pool_layer(Pool{2, 2, 0, true, 0}), in, &u96);
  CHECK(ok.place == Placement::kVta);
  CHECK_THAT(ok.reason, Catch::Contains("vta (est"));
}
