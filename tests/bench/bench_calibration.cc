// Time of the front end's quantization of a ResNet-50-sized float graph, generated here (the
// torchvision ResNet-50 topology at 1x3x224x224: 7x7 stem, max pool, bottleneck stages of 3, 4,
// 6 and 3 blocks, global average pool, 2048 -> 1000 dense; BatchNormalization already folded;
// seeded He-scaled weights): the whole quantize_graph with `--calib N` samples (float runs plus
// the int8 reference of each), and one float run on the float library and, with --plain, on the
// plain loops. Usage: bench_calibration [CALIB] [--plain]
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>

#include "vta/compiler/frontend/float_graph.h"
#include "vta/compiler/frontend/quantize.h"

using namespace vta::compiler;

namespace {

template <typename F>
double seconds_of(const F& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

struct Builder {
  FloatGraph g;
  std::mt19937 rng{50};
  int count = 0;

  // A node reading `in`, named and output-named after its index.
  GraphNode& add(GraphOp op, std::vector<std::string> in) {
    GraphNode n;
    n.op = op, n.inputs = std::move(in);
    n.name = n.output = "n" + std::to_string(count++);
    g.nodes.push_back(n);
    return g.nodes.back();
  }
  void weights(GraphNode& n, std::vector<int> dims, int fan_in) {
    std::normal_distribution<float> d(0.0f, float(std::sqrt(2.0 / fan_in)));
    n.weight.dims = std::move(dims);
    n.weight.data.resize(n.weight.size());
    for (float& v : n.weight.data) {
      v = d(rng);
    }
    n.bias = FloatTensor{{n.weight.dims[0]}, std::vector<float>(size_t(n.weight.dims[0]), 0.01f)};
  }
  std::string conv(const std::string& in, int c, int k, int kernel, int stride, bool relu) {
    GraphNode& n = add(GraphOp::kConv, {in});
    n.kh = n.kw = kernel, n.stride_h = n.stride_w = stride;
    n.pad_top = n.pad_left = n.pad_bottom = n.pad_right = kernel / 2;
    weights(n, {k, c, kernel, kernel}, c * kernel * kernel);
    const std::string out = n.output;
    return relu ? add(GraphOp::kRelu, {out}).output : out;
  }
  // A bottleneck: 1x1 -> 3x3 (stride) -> 1x1 (x4), the shortcut projected when the shape changes.
  std::string bottleneck(const std::string& in, int c, int width, int stride) {
    const std::string a = conv(in, c, width, 1, 1, true);
    const std::string b = conv(a, width, width, 3, stride, true);
    const std::string m = conv(b, width, width * 4, 1, 1, false);
    const std::string skip =
        c != width * 4 || stride != 1 ? conv(in, c, width * 4, 1, stride, false) : in;
    return add(GraphOp::kRelu, {add(GraphOp::kAdd, {m, skip}).output}).output;
  }
};

FloatGraph resnet50_sized() {
  Builder b;
  b.g.name = "resnet50_sized", b.g.input = "x", b.g.input_dims = {1, 3, 224, 224};
  std::string t = b.conv("x", 3, 64, 7, 2, true);
  GraphNode& pool = b.add(GraphOp::kMaxPool, {t});
  pool.kh = pool.kw = 3, pool.stride_h = pool.stride_w = 2;
  pool.pad_top = pool.pad_left = pool.pad_bottom = pool.pad_right = 1;
  t = pool.output;
  int c = 64;
  const int blocks[] = {3, 4, 6, 3};
  for (int s = 0; s < 4; ++s) {
    for (int i = 0; i < blocks[s]; ++i) {
      t = b.bottleneck(t, c, 64 << s, i == 0 && s > 0 ? 2 : 1);
      c = (64 << s) * 4;
    }
  }
  t = b.add(GraphOp::kGlobalAvgPool, {t}).output;
  GraphNode& fc = b.add(GraphOp::kGemm, {t});
  b.weights(fc, {1000, 2048}, 2048);
  b.g.output = fc.output;
  return b.g;
}

}  // namespace

int main(int argc, char** argv) {
  int calib = 4;
  bool plain = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--plain") == 0) {
      plain = true;
    } else {
      calib = std::atoi(argv[i]);
    }
  }
  const FloatGraph g = resnet50_sized();
  uint64_t macs = 0;
  for (const auto& [name, m] : g.node_macs()) {
    macs += m;
  }
  std::printf("graph: %s, %zu nodes, input 1x3x224x224, %.2f G MACs; float library: %s\n",
              g.name.c_str(), g.nodes.size(), double(macs) / 1e9,
              float_library_available() ? "oneDNN" : "none (plain loops)");
  const FloatTensor x = calibration_inputs(g, 1, 1)[0];
  const double lib = seconds_of([&] { run_float(g, x, FloatKernels::kLibrary); });
  std::printf("one float run, float library: %.3f s (%.1f GMAC/s)\n", lib,
              double(macs) / lib / 1e9);
  if (plain) {
    const double p = seconds_of([&] { run_float(g, x, FloatKernels::kPlain); });
    std::printf("one float run, plain loops:   %.3f s (%.1fx the library)\n", p, p / lib);
  }
  QuantOptions opt;
  opt.calib = calib;
  QuantizedModel m;
  const double q = seconds_of([&] { m = quantize_graph(g, opt); });
  std::printf(
      "quantize_graph, --calib %d: %.3f s (%d float runs and %d int8 reference runs); output "
      "cosine %.4f\n",
      calib, q, calib, calib, m.cosine);
  return 0;
}
