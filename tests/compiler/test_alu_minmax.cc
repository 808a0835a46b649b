// min and max on VTA's ALU (ops/minmax.cc through codegen/alu_elementwise.h): every pair of int8
// values on fsim, cycle and rtl against std::min / std::max, the epilogue's clamp, the estimate
// against the cycle model, placement and the shape error; with a constant operand (the clamp
// alone) on every int8 input. The scale operator's integer form on
// the ALU (ops/scale.cc): every int8 input against round((alpha q 2^-in + beta) 2^out) written
// here, and a scale with no integer form left on the host.
#include <algorithm>
#include <cmath>

#include <catch2/catch.hpp>

#include "test_paths.h"
#include "test_target.h"
#include "vta/compiler/ops/op_def.h"
#include "vta/sim/error.h"

using namespace vta::compiler;
using vta::HwConfig;

namespace {

NetworkLayer minmax_layer(const char* op) {
  NetworkLayer l;
  l.name = "m";
  l.op = op;
  l.input = "data";
  l.residual = "b";
  return l;
}

// Runs the layer's VTA lowering on a and b of n x c x h x w; the output must be `want`.
void run_on_vta(const Target& t, const NetworkLayer& l, int n, int c, int h, int w,
                const std::vector<int8_t>& a, const std::vector<int8_t>& b,
                const std::vector<int8_t>& want) {
  NetworkLayerJob job;
  job.input_shape = NetworkTensor{n, c, h, w, {}};
  job.conv.x = a;
  job.conv.residual = b;
  const VtaLayerResult r = op_def(l.op).vta.run(t, Network{}, l, job, NetworkOptions{});
  INFO(t.backend << " " << l.op << " " << r.run.shape);
  CHECK(r.run.mismatches == 0);
  CHECK(r.out.data == want);
}

// Every pair (qa, qb) once (1 x 16 x 64 x 64 values), clamped to lo..hi: the plain way.
void all_pairs(const char* backend, const char* op, int lo = -128, int hi = 127) {
  std::vector<int8_t> a(65536), b(65536), want(65536);
  for (size_t i = 0; i < a.size(); ++i) {
    a[i] = int8_t(int(i % 256) - 128), b[i] = int8_t(int(i / 256) - 128);
    const int v = std::string(op) == "min" ? std::min(a[i], b[i]) : std::max(a[i], b[i]);
    want[i] = int8_t(std::clamp(v, lo, hi));
  }
  NetworkLayer l = minmax_layer(op);
  if (lo > -128) {
    l.epilogue.clip_lo = lo;
  }
  if (hi < 127) {
    l.epilogue.clip_hi = hi;
  }
  run_on_vta(use(backend, "pynq"), l, 1, 16, 64, 64, a, b, want);
}

NetworkLayer scale_layer(double alpha, double beta, int in_exp, int out_exp) {
  NetworkLayer l;
  l.name = "s";
  l.op = "scale";
  l.input = "data";
  l.attrs = {{"alpha", alpha}, {"beta", beta}, {"in_exp", in_exp}, {"out_exp", out_exp}};
  return l;
}

// round(y * 2^out) of y = alpha * q * 2^-in + beta held in f32 (the float operator's
// precision), ties away from zero, saturated.
int8_t plain_scale(int q, double alpha, double beta, int in_exp, int out_exp) {
  const float y = float(alpha * (q * std::pow(2.0, -in_exp)) + beta);
  const double v = double(y) * std::pow(2.0, out_exp);
  const double r = v < 0 ? -std::floor(-v + 0.5) : std::floor(v + 0.5);
  return int8_t(std::min(127.0, std::max(-128.0, r)));
}

// Every int8 input (1 x 16 x 4 x 4 values) through the scale's ALU form.
void scale_all_inputs(const char* backend, double alpha, double beta, int in_exp, int out_exp) {
  std::vector<int8_t> a(256), want(256);
  for (size_t i = 0; i < a.size(); ++i) {
    a[i] = int8_t(int(i) - 128);
    want[i] = plain_scale(a[i], alpha, beta, in_exp, out_exp);
  }
  INFO("alpha " << alpha << " beta " << beta << " exps " << in_exp << " " << out_exp);
  run_on_vta(use(backend, "pynq"), scale_layer(alpha, beta, in_exp, out_exp), 1, 16, 4, 4, a, {},
             want);
}

}  // namespace

TEST_CASE("min and max on the ALU equal std::min / std::max for every pair", "[alu][fsim]") {
  all_pairs("fsim", "min");
  all_pairs("fsim", "max");
  all_pairs("fsim", "max", 0, 127);   // a ReLU after the max
  all_pairs("fsim", "min", -20, 60);  // a clip
}

TEST_CASE("min and max on the ALU on the cycle backend", "[alu][cycle]") {
  all_pairs("cycle", "min");
  all_pairs("cycle", "max");
}

#ifdef VTA_TEST_HAVE_RTL
TEST_CASE("min and max on the ALU on the rtl backend", "[alu][rtl]") {
  all_pairs("rtl", "min");
  all_pairs("rtl", "max");
}
#endif

// A min / max of an activation and a constant: no second operand, the constant the layer's
// clip_hi (min) or lower bound (max); every int8 input.
void constant_operand(const char* backend, const char* op, int bound) {
  std::vector<int8_t> a(256), want(256);
  const bool is_min = std::string(op) == "min";
  for (size_t i = 0; i < a.size(); ++i) {
    a[i] = int8_t(int(i) - 128);
    want[i] = int8_t(is_min ? std::min<int>(a[i], bound) : std::max<int>(a[i], bound));
  }
  NetworkLayer l = minmax_layer(op);
  l.residual.clear();
  (is_min ? l.epilogue.clip_hi : l.epilogue.clip_lo) = bound;
  run_on_vta(use(backend, "pynq"), l, 1, 16, 4, 4, a, {}, want);
}

TEST_CASE("a min / max with a constant operand on the ALU, on every backend", "[alu][fsim]") {
  constant_operand("fsim", "min", 37);
  constant_operand("fsim", "max", -5);
  constant_operand("fsim", "min", -128);
  constant_operand("cycle", "max", 100);
#ifdef VTA_TEST_HAVE_RTL
  constant_operand("rtl", "min", 12);
#endif
}

TEST_CASE("the min / max cycle estimate is close to the cycle model", "[alu][cycle]") {
  const Target t = use("cycle", "pynq");
  for (const char* op : {"min", "max"}) {
    const NetworkLayer l = minmax_layer(op);
    const TensorShape s{1, 64, 28, 28};
    NetworkLayerJob job;
    job.input_shape = NetworkTensor{s.n, s.c, s.h, s.w, {}};
    job.conv.x.assign(size_t(s.c) * s.h * s.w, 3);
    job.conv.residual.assign(job.conv.x.size(), 5);
    const VtaLayerResult r = op_def(op).vta.run(t, Network{}, l, job, NetworkOptions{});
    const double est = double(op_def(op).vta.estimate_cycles(l, s, t.config));
    INFO(op << " " << r.run.shape << ": estimate " << est << ", cycle model "
            << r.run.stats.cycles);
    CHECK(est >= 0.8 * double(r.run.stats.cycles));
    CHECK(est <= 1.25 * double(r.run.stats.cycles));
  }
}

TEST_CASE("a small min goes to VTA, a large one stays on the host", "[alu][place]") {
  const HwConfig cfg = HwConfig::from_file(config_path("pynq"));
  const PlacementChoice small = choose_placement(minmax_layer("min"), {1, 16, 4, 4}, &cfg);
  CHECK(small.place == Placement::kVta);
  const PlacementChoice big = choose_placement(minmax_layer("max"), {1, 64, 56, 56}, &cfg);
  CHECK(big.place == Placement::kHost);
  CHECK_THAT(big.reason, Catch::Contains("host (est"));
}

TEST_CASE("a min of two shapes is an error naming the layer", "[alu]") {
  const char* json = R"({"name": "mm", "input": {"c": 16, "h": 4, "w": 4}, "layers": [
    {"name": "g", "op": "global_avgpool", "input": "data"},
    {"name": "z", "op": "min", "input": "data", "residual": "g"}]})";
  try {
    Network::from_json(nlohmann::json::parse(json), "mm.json").validate();
    FAIL("no error");
  } catch (const vta::Error& e) {
    CHECK_THAT(e.what(), Catch::Contains("min layer 'z': operand 'data' has shape 1x16x4x4, 'g' "
                                         "has 1x16x1x1 (the same shape is needed)"));
  }
}

// x * 0.25 and x / 8 at one exponent and x * 0.25 from 2^-4 to 2^-6, x * 0.75 from 2^-5 to 2^-4, x
// * 2 + 0.5, -x / 2: exact forms; x * 0.3 (ties at q = 5, 15, ... tipped by the f32 product), x /
// sqrt(2) and x * 0.999 from 2^-7 to 2^0 (q = 64 gives 0.4995): a multiplier of many bits.
TEST_CASE("a scale on the ALU equals the formula for every input", "[alu][fsim]") {
  scale_all_inputs("fsim", 0.25, 0, 4, 4);
  scale_all_inputs("fsim", 0.125, 0, 3, 3);
  scale_all_inputs("fsim", 0.25, 0, 4, 6);  // m = 1, no shift: the clamp alone
  scale_all_inputs("fsim", 0.75, 0, 5, 4);
  scale_all_inputs("fsim", 2, 0.5, 4, 4);
  scale_all_inputs("fsim", -0.5, 0, 6, 6);
  scale_all_inputs("fsim", 0.3, 0, 4, 4);
  scale_all_inputs("fsim", 1 / std::sqrt(2.0), 0, 4, 7);
  scale_all_inputs("fsim", 0.999, 0, 7, 0);
}

TEST_CASE("a scale on the ALU on the cycle and rtl backends", "[alu][cycle][rtl]") {
  scale_all_inputs("cycle", 0.25, 0, 4, 4);
#ifdef VTA_TEST_HAVE_RTL
  scale_all_inputs("rtl", 0.25, 0, 4, 4);
#endif
}

// alpha 10^6 at one exponent: m beyond a 16-bit immediate; a per-channel alpha has no immediate.
TEST_CASE("a scale with no integer form stays on the host", "[alu][place]") {
  const HwConfig cfg = HwConfig::from_file(config_path("pynq"));
  const PlacementChoice big = choose_placement(scale_layer(1e6, 0, 4, 4), {1, 16, 4, 4}, &cfg);
  CHECK(big.place == Placement::kHost);
  CHECK_THAT(big.reason, Catch::Contains("scale layer 's': (alpha=1e+06 beta=0") &&
                             Catch::Contains("has no exact integer form on the ALU"));
  NetworkLayer per_channel = scale_layer(1, 0, 4, 4);
  per_channel.float_params = std::make_shared<const std::vector<float>>(16, 0.5f);
  CHECK(choose_placement(per_channel, {1, 16, 4, 4}, &cfg).place == Placement::kHost);
  CHECK(choose_placement(scale_layer(0.25, 0, 4, 4), {1, 16, 4, 4}, &cfg).place == Placement::kVta);
}
