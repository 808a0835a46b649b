// Grouped and depthwise convolutions on VTA (run/grouped_conv_runner.h): sets of groups with
// block-diagonal weights, run on fsim, cycle and rtl and compared bit for bit with a plain
// grouped convolution written here; the split into sets and the placement rule.
#include <algorithm>
#include <random>

#include <catch2/catch.hpp>

#include "test_paths.h"
#include "test_target.h"
#include "vta/backend_factory.h"
#include "vta/compiler/ops/op_def.h"
#include "vta/compiler/run/grouped_conv_runner.h"
#include "vta/compiler/scheduling/auto_schedule.h"
#include "vta/runtime_cpp.h"

using namespace vta::compiler;
using vta::HwConfig;

namespace {

struct GroupCase {
  int n, c, h, w, k, groups, kernel, stride, pad;
  Conv2dParams whole() const {
    Conv2dParams p;
    p.name = "g";
    p.n = n, p.c = c, p.h = h, p.w = w, p.k = k, p.kh = p.kw = kernel;
    p.stride_h = p.stride_w = stride;
    p.pad_top = p.pad_left = p.pad_bottom = p.pad_right = pad;
    return p;
  }
};

// The plain way: per output channel, the sum over its group's input channels and the window
// (zero padding), + bias, >> shift (arithmetic), then the bounds.
std::vector<int8_t> reference_grouped(const GroupCase& g, const Epilogue& e, const ConvData& d) {
  const Conv2dParams p = g.whole();
  const int oh = p.out_h(), ow = p.out_w(), ci = g.c / g.groups, co = g.k / g.groups;
  const int lo = e.lower_bound().value_or(-128), hi = e.clip_hi.value_or(127);
  std::vector<int8_t> out;
  for (int n = 0; n < g.n; ++n) {
    for (int o = 0; o < g.k; ++o) {
      for (int y = 0; y < oh; ++y) {
        for (int x = 0; x < ow; ++x) {
          int64_t acc = e.bias ? d.bias[size_t(o)] : 0;
          for (int i = 0; i < ci; ++i) {
            const int c = (o / co) * ci + i;
            for (int ky = 0; ky < g.kernel; ++ky) {
              for (int kx = 0; kx < g.kernel; ++kx) {
                const int iy = y * g.stride - g.pad + ky, ix = x * g.stride - g.pad + kx;
                if (iy < 0 || iy >= g.h || ix < 0 || ix >= g.w) {
                  continue;
                }
                acc += int64_t(d.x[((size_t(n) * g.c + c) * g.h + iy) * g.w + ix]) *
                       d.w[((size_t(o) * ci + i) * g.kernel + ky) * g.kernel + kx];
              }
            }
          }
          acc >>= e.shift;
          out.push_back(int8_t(std::clamp<int64_t>(acc, lo, hi)));
        }
      }
    }
  }
  return out;
}

ConvData random_group_data(const GroupCase& g, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> d8(-128, 127), db(-2000, 2000);
  ConvData d;
  d.x.resize(size_t(g.n) * g.c * g.h * g.w);
  d.w.resize(size_t(g.k) * (g.c / g.groups) * g.kernel * g.kernel);
  d.bias.resize(size_t(g.k));
  for (auto& v : d.x) {
    v = int8_t(d8(rng));
  }
  for (auto& v : d.w) {
    v = int8_t(d8(rng));
  }
  for (auto& v : d.bias) {
    v = db(rng);
  }
  return d;
}

void run_case(const Target& t, const GroupCase& g, const Epilogue& e, uint32_t seed) {
  const ConvData d = random_group_data(g, seed);
  const std::vector<int8_t> ref = reference_grouped(g, e, d);
  const GroupedConvSplit split = GroupedConvSplit::make(g.whole(), g.groups, t.config);
  INFO("seed " << seed << " " << g.whole().describe() << " groups " << g.groups << " on "
               << t.backend);
  const LayerRun r =
      run_conv2d_in_group_sets(t, split, e, auto_schedule(split.set, e, t.config), d, &ref);
  CHECK(r.out == ref);
  CHECK(r.mismatches == 0);
  CHECK(r.macs == uint64_t(g.n) * g.k * (g.c / g.groups) * g.kernel * g.kernel *
                      uint64_t(g.whole().out_h()) * uint64_t(g.whole().out_w()));
}

Epilogue epilogue(bool relu) {
  Epilogue e;
  e.bias = true;
  e.shift = 8;
  e.relu = relu;
  e.clip_lo = -128;
  e.clip_hi = relu ? 96 : 127;  // ReLU6 at 2^-4, or int8 saturation
  return e;
}

const GroupCase kCases[] = {
    {1, 32, 9, 9, 32, 32, 3, 1, 1},  // depthwise: 2 sets of 16 channels
    {1, 32, 9, 9, 32, 32, 3, 2, 1},  // depthwise, stride 2
    {1, 20, 6, 7, 20, 20, 3, 1, 1},  // 20 channels: one set of all, padded to two blocks
    {1, 32, 8, 8, 64, 8, 3, 1, 1},   // ResNeXt-like: 4 in / 8 out per group, 2 sets of 4
    {1, 48, 5, 5, 48, 2, 1, 1, 0},   // 24 per group: one set of both
};

void random_groups(const char* backend, const char* config, uint32_t seed) {
  const Target t = use(backend, config);
  for (const GroupCase& g : kCases) {
    run_case(t, g, epilogue(seed % 2 == 0), seed);
    ++seed;
  }
}

}  // namespace

TEST_CASE("grouped conv2d on VTA equals the reference on fsim", "[grouped][fsim]") {
  random_groups("fsim", "pynq", 701);
  random_groups("fsim", "block32", 711);
}

TEST_CASE("grouped conv2d on VTA equals the reference on the cycle backend", "[grouped][cycle]") {
  random_groups("cycle", "pynq", 721);
}

#ifdef VTA_TEST_HAVE_RTL
TEST_CASE("grouped conv2d on VTA equals the reference on the rtl backend", "[grouped][rtl]") {
  run_case(use("rtl", "pynq"), GroupCase{1, 16, 4, 4, 16, 16, 3, 1, 1}, epilogue(true), 731);
}
#endif

TEST_CASE("groups are taken in sets that fill whole blocks", "[grouped]") {
  const HwConfig cfg = HwConfig::from_file(config_path("pynq"));  // BLOCK 16
  struct Want {
    GroupCase g;
    int per_set, sets;
  };
  for (const Want& w : {Want{kCases[0], 16, 2}, Want{kCases[2], 20, 1}, Want{kCases[3], 4, 2},
                        Want{kCases[4], 2, 1}}) {
    const GroupedConvSplit s = GroupedConvSplit::make(w.g.whole(), w.g.groups, cfg);
    CHECK(s.per_set == w.per_set);
    CHECK(s.sets == w.sets);
  }
  CHECK_THROWS_WITH(GroupedConvSplit::make(kCases[0].whole(), 5, cfg),
                    Catch::Contains("5 groups do not divide 32 input and 32 output channels"));
}

// pynq: VTA's GEMM does 16 useful MACs per cycle on a depthwise set (100 MHz: 1.6 G/s), the
// host model 2 cores x 650 MHz x 4 int8 MACs (5.2 G/s): a large depthwise layer stays on the
// host. A ResNeXt-like layer with 8 channels per group uses 128 of the 256 multipliers.
TEST_CASE("grouped conv2d placement compares VTA's estimate with the host model", "[grouped]") {
  const HwConfig cfg = HwConfig::from_file(config_path("pynq"));
  NetworkLayer l;
  l.name = "g";
  l.op = "conv2d";
  l.input = "data";
  l.kh = l.kw = 3;
  l.pad_top = l.pad_left = l.pad_bottom = l.pad_right = 1;
  l.k = 96, l.groups = 96;
  const PlacementChoice dw = choose_placement(l, TensorShape{1, 96, 56, 56}, &cfg);
  CHECK(dw.place == Placement::kHost);
  CHECK_THAT(dw.reason, Catch::StartsWith("host (est "));
  l.k = 256, l.groups = 32;  // 8 channels per group
  const PlacementChoice rx = choose_placement(l, TensorShape{1, 256, 28, 28}, &cfg);
  CHECK(rx.place == Placement::kVta);
  CHECK_THAT(rx.reason, Catch::StartsWith("vta (est "));
  l.groups = 1;  // an ordinary convolution is not compared
  const PlacementChoice one = choose_placement(l, TensorShape{1, 256, 28, 28}, &cfg);
  CHECK(one.place == Placement::kVta);
  CHECK(one.reason.empty());
}

// A network whose grouped layer VTA runs faster (16 channels per group on pynq): the runner
// places it as the place pass does, runs the sets and its output is the plain reference's.
TEST_CASE("a network runs its grouped conv2d on VTA when VTA is faster", "[grouped][network]") {
  const Target target = use("fsim", "pynq");
  const GroupCase g{1, 64, 28, 28, 64, 4, 3, 1, 1};
  const Epilogue e = epilogue(true);
  const ConvData d = random_group_data(g, 741);
  Network net;
  net.name = "grouped_net";
  net.n = g.n, net.c = g.c, net.h = g.h, net.w = g.w;
  net.input_data = std::make_shared<const std::vector<int8_t>>(d.x);
  NetworkLayer l;
  l.name = "g";
  l.op = "conv2d";
  l.input = "data";
  l.k = g.k, l.groups = g.groups;
  l.kh = l.kw = g.kernel;
  l.pad_top = l.pad_left = l.pad_bottom = l.pad_right = g.pad;
  l.epilogue = e;
  l.weights = std::make_shared<const std::vector<int8_t>>(d.w);
  l.bias = std::make_shared<const std::vector<int32_t>>(d.bias);
  net.layers.push_back(l);
  const NetworkRun r = run_network(target, net, NetworkOptions{});
  REQUIRE(r.runs.size() == 1);
  CHECK(r.runs[0].checked);
  CHECK(r.runs[0].mismatches == 0);
  CHECK(r.host_ops.empty());
  CHECK(r.output == reference_grouped(g, e, d));
}
