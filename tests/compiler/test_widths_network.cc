// Networks at element widths other than int8 (docs/element_widths.md): a network with VTA
// convolutions (a residual one), host operators and a dense layer at int4 x int4 -> int16 and
// int4 x int4 -> int32 on fsim and cycle, bit for bit against the network's width reference; one
// convolution's accumulator wrap and saturation and a host add's saturation against plain loops
// written here; a float graph quantized to int4 lanes; the error for lanes wider than 8 bits.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "test_target.h"
#include "vta/compiler/frontend/network.h"
#include "vta/compiler/frontend/quantize.h"
#include "vta/compiler/run/layer_widths.h"
#include "widths_network_fixture.h"

using namespace vta::compiler;

namespace {

uint64_t test_seed() {
  return widths_test_seed("test_widths_network", 4711);
}

// Convolutions with shifts for int4 data (their clip bounds int8's, narrowed to the lane), a
// residual conv, a host add and maxpool, a dense.
Network small_network(uint64_t seed) {
  WidthsNetworkLanes l;
  l.name = "int4_net", l.hw = 12;
  l.stem_shift = 3, l.c1_shift = 4, l.c2_shift = 4, l.fc_shift = 2;
  return widths_test_network(l, seed);
}

int wrap(int64_t v, int bits) {
  const int64_t m = int64_t(1) << bits;
  int64_t r = ((v % m) + m) % m;
  return int(r >= m / 2 ? r - m : r);
}

}  // namespace

TEST_CASE("a network at int4 lanes runs on fsim and cycle bit for bit against its width reference",
          "[compiler][widths][network]") {
  const uint64_t seed = test_seed();
  const Network net = small_network(seed);
  for (const char* config : {"pynq_int4", "pynq_int4_acc32"}) {
    INFO(config);
    const Target target = use("fsim", config);
    const LayerWidths widths = LayerWidths::of(target.config);
    const NetworkRun r = run_network(target, net, NetworkOptions{});
    REQUIRE(r.runs.size() == 4);  // stem, c1, c2, fc
    for (const LayerRun& l : r.runs) {
      INFO(l.name << " " << l.first_mismatch);
      REQUIRE(l.checked);
      REQUIRE(l.mismatches == 0);
    }
    const auto ref = reference_network_tensors(net, widths);
    REQUIRE(r.output == ref.at("fc").data);
    REQUIRE(run_network(use("cycle", config), net, NetworkOptions{}).output == r.output);
    // Every tensor holds int4 lanes, and the values are not all clipped or zero.
    for (const auto& [name, t] : ref) {
      INFO(name);
      const auto [lo, hi] = std::minmax_element(t.data.begin(), t.data.end());
      REQUIRE(*lo >= -8);
      REQUIRE(*hi <= 7);
      REQUIRE(*hi > *lo);
    }
    // The host add saturates at the output lane: c2 + c1 clamped to [-8, 7], by hand.
    const auto& c1 = ref.at("c1").data;
    const auto& c2 = ref.at("c2").data;
    const auto& sum = ref.at("sum").data;
    int saturated = 0;
    for (size_t i = 0; i < sum.size(); ++i) {
      const int s = int(c1[i]) + int(c2[i]);
      REQUIRE(int(sum[i]) == std::clamp(s, -8, 7));
      saturated += s > 7 || s < -8 ? 1 : 0;
    }
    REQUIRE(saturated > 0);
  }
}

TEST_CASE("a network conv at int4 wraps its int16 accumulator and saturates like a plain loop",
          "[compiler][widths][network]") {
  const uint64_t seed = test_seed();
  const int c = 128, k = 16, hw = 4;
  // Inputs and weights near -8: the sums of 512 to 1152 products of 36 to 64 pass 2^15 (the
  // inner pixels all of them) and wrap at int16.
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> near_min(-8, -6), lane(-8, 7);
  auto x = std::make_shared<std::vector<int8_t>>(size_t(c) * hw * hw);
  auto w = std::make_shared<std::vector<int8_t>>(size_t(k) * c * 9);
  auto bias = std::make_shared<std::vector<int32_t>>(size_t(k));
  for (auto& v : *x) {
    v = int8_t(near_min(rng));
  }
  for (auto& v : *w) {
    v = int8_t(near_min(rng));
  }
  for (auto& v : *bias) {
    v = lane(rng) * 100;
  }
  Network net = Network::from_json(nlohmann::json::parse(R"({
    "name": "wrap", "input": {"name": "data", "n": 1, "c": 128, "h": 4, "w": 4},
    "layers": [{"name": "conv", "op": "conv2d", "input": "data", "k": 16, "kernel": 3, "pad": 1,
                "epilogue": {"bias": true, "shift": 7, "clip_lo": -128, "clip_hi": 127}}]})"),
                                   "wrap");
  net.input_data = x;
  net.layers[0].weights = w;
  net.layers[0].bias = bias;
  for (const int acc : {16, 32}) {
    INFO("acc " << acc);
    const NetworkRun r =
        run_network(use("fsim", acc == 16 ? "pynq_int4" : "pynq_int4_acc32"), net, {});
    REQUIRE(r.runs.at(0).mismatches == 0);
    int wrapped = 0, clipped = 0;
    for (int o = 0; o < k; ++o) {
      for (int y = 0; y < hw; ++y) {
        for (int xo = 0; xo < hw; ++xo) {
          int64_t sum = 0;
          for (int ci = 0; ci < c; ++ci) {
            for (int ky = 0; ky < 3; ++ky) {
              for (int kx = 0; kx < 3; ++kx) {
                const int iy = y + ky - 1, ix = xo + kx - 1;
                if (iy >= 0 && iy < hw && ix >= 0 && ix < hw) {
                  sum += int64_t((*x)[(size_t(ci) * hw + iy) * hw + ix]) *
                         (*w)[((size_t(o) * c + ci) * 3 + ky) * 3 + kx];
                }
              }
            }
          }
          const int64_t a = wrap(wrap(sum, acc) + (*bias)[o], acc);  // the ALU's ADD wraps too
          const int want = std::clamp(int(a >> 7), -8, 7);           // clip bounds narrowed to int4
          wrapped += a != sum + (*bias)[o] ? 1 : 0;
          clipped += want != int(a >> 7) ? 1 : 0;
          REQUIRE(int(r.output[(size_t(o) * hw + y) * hw + xo]) == want);
        }
      }
    }
    if (acc == 16) {
      REQUIRE(wrapped >= k * 4);  // at least the 2x2 inner pixels of every channel
    } else {
      REQUIRE(wrapped == 0);
    }
    REQUIRE(clipped > 0);
  }
}

TEST_CASE("a float graph quantized to int4 lanes runs on fsim as its reference",
          "[compiler][widths][network]") {
  const uint64_t seed = test_seed();
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> d(0.f, 0.3f);
  auto tensor = [&](std::vector<int> dims) {
    FloatTensor t{dims, {}};
    t.data.resize(t.size());
    for (auto& v : t.data) {
      v = d(rng);
    }
    return t;
  };
  FloatGraph g;
  g.name = "f4", g.input = "x", g.input_dims = {1, 4, 8, 8}, g.output = "y";
  GraphNode conv;
  conv.name = "conv", conv.op = GraphOp::kConv, conv.inputs = {"x"}, conv.output = "c";
  conv.kh = conv.kw = 3, conv.pad_top = conv.pad_left = conv.pad_bottom = conv.pad_right = 1;
  conv.weight = tensor({16, 4, 3, 3}), conv.bias = tensor({16});
  GraphNode relu;
  relu.name = "relu", relu.op = GraphOp::kRelu, relu.inputs = {"c"}, relu.output = "r";
  GraphNode gap;
  gap.name = "gap", gap.op = GraphOp::kGlobalAvgPool, gap.inputs = {"r"}, gap.output = "p";
  GraphNode fc;
  fc.name = "fc", fc.op = GraphOp::kGemm, fc.inputs = {"p"}, fc.output = "y";
  fc.weight = tensor({10, 16}), fc.bias = tensor({10});
  g.nodes = {conv, relu, gap, fc};
  QuantOptions opt;
  opt.calib = 2;
  const Target target = use("fsim", "pynq_int4");
  opt.widths = LayerWidths::of(target.config);
  const QuantizedModel m = quantize_graph(g, opt);
  for (const NetworkLayer& l : m.net.layers) {
    INFO(l.name);
    if (l.weights) {
      const auto [lo, hi] = std::minmax_element(l.weights->begin(), l.weights->end());
      REQUIRE(*lo >= -8);
      REQUIRE(*hi <= 7);
      REQUIRE(std::max(-int(*lo), int(*hi)) >= 4);  // the largest exponent: over half the lane
      REQUIRE(l.epilogue.clip_hi.value_or(0) == 7);
    }
  }
  const auto [lo, hi] = std::minmax_element(m.net.input_data->begin(), m.net.input_data->end());
  REQUIRE(*lo >= -8);
  REQUIRE(*hi <= 7);
  REQUIRE(m.cosine > 0.5);  // int4 keeps the output's direction on this small graph
  const NetworkRun r = run_network(target, m.net, NetworkOptions{});
  REQUIRE(r.output == m.reference_output);
  REQUIRE(m.to_json()["widths"] == "int4 x int4 -> int16");
  // At int8 the quantized weights are finer (the same graph, 127 instead of 7 at the top).
  QuantOptions int8 = opt;
  int8.widths = LayerWidths{};
  const QuantizedModel m8 = quantize_graph(g, int8);
  REQUIRE(m8.cosine > m.cosine);
  REQUIRE_FALSE(m8.to_json().contains("widths"));
}

TEST_CASE("quantization refuses lanes wider than 16 bits", "[compiler][widths][network]") {
  const Target int32 = use("fsim", "pynq_int32");
  FloatGraph g;
  g.name = "g";
  QuantOptions opt;
  opt.widths = LayerWidths::of(int32.config);
  REQUIRE_THROWS_WITH(quantize_graph(g, opt),
                      Catch::Contains("quantization of g to int32 x int32 -> int32 lanes"));
}
