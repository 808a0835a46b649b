// batch_matmul on VTA's GEMM core (ops/batch_matmul.cc through run/batch_matmul_runner.h):
// seeded random planes of several shapes (M, K, P off the block; K large enough that the sum
// needs its shift; scales with many ties; no shift; left shifts; shifts that round everything
// to 0) on fsim, cycle and rtl against a plain triple loop with the rounding written out here;
// the estimate against the cycle model; the placement.
#include <algorithm>
#include <cstdint>
#include <random>

#include <fmt/format.h>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "test_target.h"
#include "vta/compiler/frontend/network.h"
#include "vta/compiler/ops/op_def.h"
#include "vta/compiler/run/batch_matmul_runner.h"
#include "vta/sim/error.h"

using namespace vta::compiler;
using vta::HwConfig;

namespace {

// round(acc * 2^scale), ties away from zero, saturated to int8, in 64-bit integers.
int8_t plain_requant(int64_t acc, int scale) {
  int64_t q = 0;
  if (scale >= 0) {
    q = std::clamp<int64_t>(acc, -1024, 1024) * (int64_t(1) << std::min(scale, 20));
  } else if (-scale < 62) {
    const int64_t half = int64_t(1) << (-scale - 1), mag = acc < 0 ? -acc : acc;
    q = (mag + half) >> -scale;  // |acc| / 2^r rounded half up
    q = acc < 0 ? -q : q;
  }
  return int8_t(std::clamp<int64_t>(q, -128, 127));
}

// The product of every plane of a (planes x m x k) and b (planes x k x p).
std::vector<int8_t> plain_batch_matmul(const std::vector<int8_t>& a, const std::vector<int8_t>& b,
                                       int planes, int m, int k, int p, int scale) {
  std::vector<int8_t> out(size_t(planes) * size_t(m) * size_t(p));
  for (int pl = 0; pl < planes; ++pl) {
    for (int i = 0; i < m; ++i) {
      for (int j = 0; j < p; ++j) {
        int64_t acc = 0;
        for (int t = 0; t < k; ++t) {
          acc +=
              int64_t(a[(size_t(pl) * m + i) * k + t]) * int64_t(b[(size_t(pl) * k + t) * p + j]);
        }
        out[(size_t(pl) * m + i) * p + j] = plain_requant(acc, scale);
      }
    }
  }
  return out;
}

NetworkLayer matmul_layer(int scale, int p) {
  NetworkLayer l;
  l.name = "s";
  l.op = "batch_matmul";
  l.input = "data";
  l.residual = "t";
  const int a_exp = -scale / 2;  // out_exp 0: scale = -a_exp - b_exp
  l.attrs = {{"a_exp", a_exp}, {"b_exp", -scale - a_exp}, {"out_exp", 0}, {"p", p}};
  return l;
}

std::vector<int8_t> random_values(size_t n, std::mt19937& rng, int lo, int hi) {
  std::uniform_int_distribution<int> d(lo, hi);
  std::vector<int8_t> v(n);
  for (int8_t& x : v) {
    x = int8_t(d(rng));
  }
  return v;
}

// Runs the layer's VTA lowering on random planes (values in lo..hi), checks the output against
// the plain loop; returns the run.
LayerRun run_on_vta(const Target& t, int planes, int m, int k, int p, int scale, uint32_t seed,
                    int lo = -128, int hi = 127) {
  std::mt19937 rng(seed);
  NetworkLayerJob job;
  job.input_shape = NetworkTensor{1, planes, m, k, {}};
  job.conv.x = random_values(size_t(planes) * m * k, rng, lo, hi);
  job.conv.residual = random_values(size_t(planes) * k * p, rng, lo, hi);
  job.conv.x[0] = -128, job.conv.residual[0] = -128;  // the largest product, 2^14
  const std::vector<int8_t> want =
      plain_batch_matmul(job.conv.x, job.conv.residual, planes, m, k, p, scale);
  const NetworkLayer l = matmul_layer(scale, p);
  const VtaLayerResult r = op_def("batch_matmul").vta.run(t, Network{}, l, job, NetworkOptions{});
  INFO("seed " << seed << " " << t.backend << " " << r.run.shape << " " << r.run.first_mismatch);
  CHECK(r.run.checked);
  CHECK(r.run.mismatches == 0);
  CHECK(r.out.data == want);
  CHECK((r.out.n == 1 && r.out.c == planes && r.out.h == m && r.out.w == p));
  return r.run;
}

}  // namespace

TEST_CASE("batch_matmul on VTA equals the plain loop", "[batch_matmul][fsim]") {
  const Target t = use("fsim", "pynq");
  run_on_vta(t, 3, 5, 37, 9, -10, 901);       // off the block, K * 2^14 needs the shift
  run_on_vta(t, 2, 19, 300, 3, -13, 902);     // K = 300: sums up to 300 * 2^14
  run_on_vta(t, 2, 6, 8, 6, -1, 903);         // every odd sum a tie
  run_on_vta(t, 2, 6, 8, 6, -1, 904, -3, 3);  // small sums: ties of both signs near 0
  run_on_vta(t, 1, 7, 3, 17, -2, 905, -2, 2);
  run_on_vta(t, 2, 4, 16, 16, 0, 906, -4, 4);  // no shift: the clamp alone
  run_on_vta(t, 2, 4, 5, 4, 3, 907, -3, 3);    // a left shift, some saturate
  run_on_vta(t, 1, 4, 5, 4, 12, 908, -3, 3);   // << 12: every nonzero saturates
  run_on_vta(t, 1, 3, 40, 5, -31, 909);        // r = 31: everything rounds to 0
  run_on_vta(t, 1, 3, 40, 5, -44, 910);        // beyond: the same
  run_on_vta(t, 1, 1, 1, 1, -1, 911);
}

TEST_CASE("batch_matmul on VTA with four samples per element", "[batch_matmul][fsim]") {
  run_on_vta(use("fsim", "batch4"), 3, 7, 20, 11, -6, 921);
}

TEST_CASE("batch_matmul on the cycle backend; the estimate is near it", "[batch_matmul][cycle]") {
  const Target t = use("cycle", "pynq");
  run_on_vta(t, 2, 6, 8, 6, -1, 931, -3, 3);
  run_on_vta(t, 1, 4, 5, 4, 3, 932, -3, 3);
  const LayerRun r = run_on_vta(t, 4, 49, 32, 49, -7, 933);
  const BatchMatmulPlan plan = BatchMatmulPlan::make("s", 4, 49, 32, 49, -7, t.config);
  const double est = double(batch_matmul_cycle_estimate(plan, t.config));
  INFO("estimate " << est << " measured " << r.stats.cycles);
  CHECK(est > 0.7 * double(r.stats.cycles));
  CHECK(est < 1.3 * double(r.stats.cycles));
}

#ifdef VTA_TEST_HAVE_RTL
TEST_CASE("batch_matmul on the rtl backend", "[batch_matmul][rtl]") {
  const Target t = use("rtl", "pynq");
  run_on_vta(t, 2, 3, 20, 5, -5, 941);
  run_on_vta(t, 1, 2, 5, 3, 2, 942, -3, 3);
}
#endif

// Attention's weighted values of 2 heads of 128 tokens (128x128 by 128x64) are faster on VTA
// than on the board's two Cortex-A9 cores, B's repacking counted; MaxViT's 49-token windows (128
// planes of 49x32 by 32x49) are not on pynq, nor are an encoder's 8 planes of 6x8 by 8x6.
TEST_CASE("batch_matmul placement compares VTA with the host", "[batch_matmul]") {
  const HwConfig block32 = HwConfig::from_file(config_path("block32"));
  const HwConfig pynq = HwConfig::from_file(config_path("pynq"));
  const NetworkLayer values = matmul_layer(-7, 64);
  const TensorShape heads{1, 2, 128, 128};
  const PlacementChoice v = choose_placement(values, heads, &block32);
  INFO(v.reason);
  CHECK(v.place == Placement::kVta);
  CHECK(v.reason.find(" + repack ") != std::string::npos);
  const TensorShape windows{1, 128, 49, 32};
  CHECK(choose_placement(matmul_layer(-7, 49), windows, &pynq).place == Placement::kHost);
  const PlacementChoice h = choose_placement(matmul_layer(-7, 6), TensorShape{2, 4, 6, 8}, &pynq);
  INFO(h.reason);
  CHECK(h.place == Placement::kHost);
  NetworkLayer no_width = values;
  no_width.attrs.erase("p");
  const PlacementChoice n = choose_placement(no_width, heads, &block32);
  CHECK(n.place == Placement::kHost);
  CHECK(n.reason.find("does not give the width of B") != std::string::npos);
  CHECK(choose_placement(values, heads, nullptr).place == Placement::kHost);
}

// A network from JSON: the layer's "p" is checked against B, and with it the layer runs on VTA
// where the estimates say so (block32), its output equal to the network's int8 reference.
TEST_CASE("batch_matmul in a network: \"p\" checked, placed on VTA, equal to the reference",
          "[batch_matmul][fsim]") {
  const auto network = [](int p) {
    return nlohmann::json::parse(fmt::format(R"({{"name": "att", "input": {{"n": 1, "c": 2,
      "h": 128, "w": 128}}, "layers": [
      {{"name": "v", "op": "slice", "input": "data", "begin": [0, 0, 0], "end": [2, 128, 64]}},
      {{"name": "s", "op": "batch_matmul", "input": "data", "residual": "v", "a_exp": 4,
       "b_exp": 4, "out_exp": 1, "p": {}}}]}})",
                                             p));
  };
  CHECK_THROWS_WITH(Network::from_json(network(63), "att.json"),
                    Catch::Contains("batch_matmul layer 's': \"p\" is 63 but 'v' is 64 wide"));
  const Network net = Network::from_json(network(64), "att.json");
  CHECK(Network::from_json(net.to_json(), "again").to_json() == net.to_json());
  const NetworkRun r = run_network(use("fsim", "block32"), net, NetworkOptions{});
  REQUIRE(r.runs.size() == 1);
  CHECK(r.runs[0].kind == "batch_matmul");
  CHECK(r.runs[0].mismatches == 0);
  CHECK(r.output == reference_network_tensors(net).at("s").data);
}

// The rounding shift of the GEMM epilogue that batch_matmul uses needs a shift to round.
TEST_CASE("an epilogue that rounds needs one shift and no residual", "[batch_matmul]") {
  const std::string want =
      "epilogue: round needs one shift of 1..31 for every channel and no "
      "residual";
  CHECK_THROWS_WITH(Epilogue::from_json(nlohmann::json{{"round", true}}, "e.json"), want);
  CHECK_THROWS_WITH(
      Epilogue::from_json(nlohmann::json{{"round", true}, {"shift", 3}, {"residual", true}},
                          "e.json"),
      want);
  const Epilogue e = Epilogue::from_json(nlohmann::json{{"round", true}, {"shift", 3}}, "e.json");
  CHECK(e.describe() == ">>3 rounded");
  CHECK(Epilogue::from_json(e.to_json(), "again").round);
}
