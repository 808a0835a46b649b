// The float interpreter's library kernels (oneDNN: Conv of any groups, MaxPool, AveragePool,
// Gemm, MatMul) against its plain loops (double accumulation, written from the operators'
// definitions): one-node graphs on seeded random values, every output within float rounding.
// In a build without the library both sides are the plain loops and the cases pass trivially.
// Also the float forms Swin needs (a slice past its input, L2 normalisation, a scale per
// channel) against values worked out by hand.
#include <algorithm>
#include <cmath>
#include <random>
#include <string>

#include <catch2/catch.hpp>

#include "vta/compiler/frontend/float_graph.h"

using namespace vta::compiler;

namespace {

FloatTensor random_tensor(std::vector<int> dims, std::mt19937& rng) {
  FloatTensor t{std::move(dims), {}};
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  t.data.resize(t.size());
  for (float& v : t.data) {
    v = d(rng);
  }
  return t;
}

struct Window {
  int k = 3, stride = 1, pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0;
};

GraphNode window_node(GraphOp op, const Window& w) {
  GraphNode n;
  n.name = "node", n.op = op, n.inputs = {"x"}, n.output = "y";
  n.kh = n.kw = w.k, n.stride_h = n.stride_w = w.stride;
  n.pad_top = w.pad_top, n.pad_left = w.pad_left;
  n.pad_bottom = w.pad_bottom, n.pad_right = w.pad_right;
  return n;
}

// Runs g on both kernel sets from seeded values of `in_dims` and compares every output value.
void check_library_against_plain(FloatGraph g, const std::vector<int>& in_dims, uint64_t seed) {
  INFO("seed " << seed << ", node " << graph_op_name(g.nodes.back().op));
  std::mt19937 rng{uint32_t(seed)};
  g.name = "kernels", g.input = "x", g.input_dims = in_dims, g.output = g.nodes.back().output;
  for (GraphNode& n : g.nodes) {
    if (n.op == GraphOp::kConv || n.op == GraphOp::kGemm) {
      n.weight = random_tensor(n.weight.dims, rng);
      n.bias = random_tensor(n.bias.dims, rng);
    }
  }
  FloatTensor x = random_tensor(in_dims, rng);
  const auto fast = run_float(g, x, FloatKernels::kLibrary);
  const auto plain = run_float(g, x, FloatKernels::kPlain);
  const FloatTensor& a = fast.at(g.output);
  const FloatTensor& b = plain.at(g.output);
  REQUIRE(a.dims == b.dims);
  REQUIRE(a.data.size() == b.data.size());
  double worst = 0, mag = 1;
  for (size_t i = 0; i < a.data.size(); ++i) {
    worst = std::max(worst, std::fabs(double(a.data[i]) - b.data[i]));
    mag = std::max(mag, std::fabs(double(b.data[i])));
  }
  INFO("max |library - plain| = " << worst << " of max |plain| " << mag);
  CHECK(worst <= 1e-5 * mag * std::sqrt(double(a.size())));
}

FloatGraph conv_graph(int c, int k, int groups, const Window& w) {
  GraphNode n = window_node(GraphOp::kConv, w);
  n.groups = groups;
  n.weight.dims = {k, c / groups, w.k, w.k};
  n.bias.dims = {k};
  FloatGraph g;
  g.nodes = {n};
  return g;
}

}  // namespace

TEST_CASE("float kernels: convolutions of any groups, strides and padding", "[frontend]") {
  struct Case {
    std::vector<int> in;
    int k, groups;
    Window w;
  };
  const Case cases[] = {
      {{1, 16, 9, 9}, 8, 1, {3, 1, 1, 1, 1, 1}},      // 3x3, same padding
      {{1, 3, 23, 21}, 16, 1, {7, 2, 3, 3, 2, 3}},    // the stem: 7x7 stride 2, uneven end padding
      {{2, 16, 6, 5}, 8, 4, {3, 1, 1, 0, 1, 2}},      // grouped, batch 2
      {{1, 24, 14, 14}, 24, 24, {3, 2, 1, 1, 1, 1}},  // depthwise, stride 2
      {{1, 8, 7, 7}, 16, 8, {5, 1, 2, 2, 2, 2}},      // depthwise with a channel multiplier of 2
      {{3, 32, 4, 4}, 64, 1, {1, 1, 0, 0, 0, 0}},     // pointwise
  };
  uint64_t seed = 100;
  for (const Case& c : cases) {
    check_library_against_plain(conv_graph(c.in[1], c.k, c.groups, c.w), c.in, seed++);
  }
}

TEST_CASE("float kernels: max and average pools, ceil-mode end padding included", "[frontend]") {
  struct Case {
    GraphOp op;
    bool include_pad;
    Window w;
  };
  const Case cases[] = {
      {GraphOp::kMaxPool, false, {3, 2, 1, 1, 1, 1}},  // ResNet's stem pool
      {GraphOp::kMaxPool, false, {3, 2, 0, 0, 1, 1}},  // ceil mode: one column of end padding
      {GraphOp::kAvgPool, false, {3, 1, 1, 1, 1, 1}},  // the padding not counted
      {GraphOp::kAvgPool, true, {3, 1, 1, 1, 1, 1}},   // the padding counted
      {GraphOp::kAvgPool, false, {3, 2, 0, 0, 1, 1}},  // ceil mode, partial end windows
      {GraphOp::kAvgPool, true, {3, 2, 0, 0, 1, 1}},   // ... counting the end padding
  };
  uint64_t seed = 200;
  for (const Case& c : cases) {
    GraphNode n = window_node(c.op, c.w);
    n.count_include_pad = c.include_pad;
    FloatGraph g;
    g.nodes = {n};
    check_library_against_plain(g, {2, 5, 8, 8}, seed++);
  }
}

TEST_CASE("float kernels: Gemm and the MatMul of two activations", "[frontend]") {
  GraphNode dense;
  dense.name = "fc", dense.op = GraphOp::kGemm, dense.inputs = {"x"}, dense.output = "y";
  dense.weight.dims = {7, 50};
  dense.bias.dims = {7};
  FloatGraph g;
  g.nodes = {dense};
  check_library_against_plain(g, {3, 50, 1, 1}, 300);

  // x (2x3x5x4) times its own transpose over the last two axes: 2x3x5x5.
  GraphNode t;
  t.name = "t", t.op = GraphOp::kPermute, t.inputs = {"x"}, t.output = "xt";
  t.perm = {0, 1, 3, 2};
  GraphNode mm;
  mm.name = "mm", mm.op = GraphOp::kBatchMatMul, mm.inputs = {"x", "xt"}, mm.output = "y";
  FloatGraph a;
  a.nodes = {t, mm};
  check_library_against_plain(a, {2, 3, 5, 4}, 301);
}

namespace {

// Node `n` of graph input x (dims `in`) run by the float interpreter: its output.
FloatTensor run_one(GraphNode n, const FloatTensor& x) {
  FloatGraph g;
  n.name = "n", n.inputs = {"x"}, n.output = "y";
  g.name = "one", g.input = "x", g.input_dims = x.dims, g.output = "y";
  g.nodes = {n};
  return run_float(g, x).at("y");
}

}  // namespace

TEST_CASE("float interpreter: Swin's padding, L2 normalisation and per-head scale", "[frontend]") {
  // A slice whose box reaches past the input reads zeros (Pad): [[1, 2], [3, 4]] padded by one
  // row above and one column right.
  GraphNode pad;
  pad.op = GraphOp::kSlice;
  pad.slice_begin = {0, -1, 0}, pad.slice_end = {1, 2, 3};
  const FloatTensor p = run_one(pad, FloatTensor{{1, 1, 2, 2}, {1, 2, 3, 4}});
  CHECK(p.dims == std::vector<int>{1, 1, 3, 3});
  CHECK(p.data == std::vector<float>{0, 0, 0, 1, 2, 0, 3, 4, 0});

  // F.normalize over the last axis: [3, 4] / 5 and [1, -1] / sqrt 2; a zero row stays zero
  // (divided by eps).
  GraphNode l2;
  l2.op = GraphOp::kLayerNorm, l2.l2 = true, l2.axis = 3, l2.eps = 1e-12f;
  const FloatTensor n = run_one(l2, FloatTensor{{1, 3, 1, 2}, {3, 4, 1, -1, 0, 0}});
  CHECK(n.data[0] == Approx(0.6f));
  CHECK(n.data[1] == Approx(0.8f));
  CHECK(n.data[2] == Approx(0.70710678f));
  CHECK(n.data[3] == Approx(-0.70710678f));
  CHECK(n.data[4] == 0.0f);

  // One factor per channel (head): channel 0 times 2, channel 1 times -1, plus 0.5.
  GraphNode s;
  s.op = GraphOp::kScale, s.alpha = 1, s.beta = 0.5f;
  s.weight = FloatTensor{{2}, {2, -1}};
  const FloatTensor y = run_one(s, FloatTensor{{1, 2, 1, 2}, {3, 4, 1, -1}});
  CHECK(y.data == std::vector<float>{6.5f, 8.5f, -0.5f, 1.5f});
}
