// The mul operator on VTA's ALU (ops/mul.cc through codegen/alu_elementwise.h): every pair of
// int8 values at several scales on fsim and cycle, a per-channel operand (squeeze-and-excitation)
// over whole planes and over planes larger than a tile, rtl on small shapes, all against the plain
// formula round(qa * qb * 2^scale) written here; the estimate against the cycle model; placement.
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

// The int8 product the plain way: qa * qb scaled by 2^(out - a - b), rounded half away from
// zero, saturated.
int8_t plain_mul(int qa, int qb, int a_exp, int b_exp, int out_exp) {
  const double v = double(qa) * double(qb) * std::pow(2.0, out_exp - a_exp - b_exp);
  const double r = v < 0 ? -std::floor(-v + 0.5) : std::floor(v + 0.5);
  return int8_t(std::min(127.0, std::max(-128.0, r)));
}

NetworkLayer mul_layer(int a_exp, int b_exp, int out_exp, bool per_channel) {
  NetworkLayer l;
  l.name = "m";
  l.op = "mul";
  l.input = "data";
  l.residual = "b";
  l.attrs = {{"a_exp", a_exp}, {"b_exp", b_exp}, {"out_exp", out_exp}};
  if (per_channel) {
    l.attrs["per_channel"] = 1;
  }
  return l;
}

// Runs the layer's VTA lowering on a of n x c x h x w and b (same shape or n x c), checks the
// output against the plain formula.
void run_mul_on_vta(const Target& t, const NetworkLayer& l, int n, int c, int h, int w,
                    const std::vector<int8_t>& a, const std::vector<int8_t>& b) {
  NetworkLayerJob job;
  job.input_shape = NetworkTensor{n, c, h, w, {}};
  job.conv.x = a;
  job.conv.residual = b;
  std::vector<int8_t> want(a.size());
  const size_t per = b.size() == a.size() ? 1 : size_t(h) * size_t(w);
  const int ae = int(l.attrs.at("a_exp")), be = int(l.attrs.at("b_exp"));
  const int oe = int(l.attrs.at("out_exp"));
  for (size_t i = 0; i < a.size(); ++i) {
    want[i] = plain_mul(a[i], b[i / per], ae, be, oe);
  }
  Network net;
  NetworkOptions opt;
  const VtaLayerResult r = op_def("mul").vta.run(t, net, l, job, opt);
  INFO(t.backend << " " << r.run.shape << " exps " << ae << " " << be << " " << oe);
  CHECK(r.run.mismatches == 0);
  CHECK(r.out.data == want);
}

// Every pair (qa, qb) once: 1 x 16 x 64 x 64 values.
void mul_all_pairs(const char* backend, int a_exp, int b_exp, int out_exp) {
  std::vector<int8_t> a(65536), b(65536);
  for (size_t i = 0; i < a.size(); ++i) {
    a[i] = int8_t(int(i % 256) - 128), b[i] = int8_t(int(i / 256) - 128);
  }
  run_mul_on_vta(use(backend, "pynq"), mul_layer(a_exp, b_exp, out_exp, false), 1, 16, 64, 64, a,
                 b);
}

void random_per_channel(const Target& t, int n, int c, int h, int w, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> d(-128, 127);
  std::vector<int8_t> a(size_t(n) * c * h * w), b(size_t(n) * c);
  for (int8_t& v : a) {
    v = int8_t(d(rng));
  }
  for (int8_t& v : b) {
    v = int8_t(d(rng));
  }
  a[0] = -128, b[0] = -128;  // the largest product, 2^14
  INFO("seed " << seed);
  run_mul_on_vta(t, mul_layer(4, 7, 4, true), n, c, h, w, a, b);
}

}  // namespace

// The importer's usual scales (a right shift with its ties), no shift, a left shift, shifts
// beyond the product's range both ways.
TEST_CASE("mul on the ALU equals the formula for every pair of int8 values", "[alu][fsim]") {
  mul_all_pairs("fsim", 4, 4, 3);    // >> 5
  mul_all_pairs("fsim", 7, 7, 0);    // >> 14: ties at +-2^13
  mul_all_pairs("fsim", 8, 8, 1);    // >> 15: 2^14 / 2^15 rounds away from zero
  mul_all_pairs("fsim", 2, 2, 4);    // no shift
  mul_all_pairs("fsim", 0, 0, 3);    // << 3, saturates
  mul_all_pairs("fsim", 0, 0, 20);   // << 20
  mul_all_pairs("fsim", 12, 12, 2);  // >> 22: every product rounds to 0
}

TEST_CASE("mul on the ALU on the cycle backend", "[alu][cycle]") {
  mul_all_pairs("cycle", 4, 4, 3);
}

// b one value per sample and channel: tiles of whole planes (batch4: four samples per element),
// channels not a multiple of the block, and planes larger than a tile (pynq: 1,024 elements).
TEST_CASE("a per-channel mul on the ALU equals the formula", "[alu][fsim]") {
  random_per_channel(use("fsim", "pynq"), 1, 40, 7, 7, 701);
  random_per_channel(use("fsim", "batch4"), 5, 20, 3, 5, 702);
  random_per_channel(use("fsim", "pynq"), 1, 32, 48, 48, 703);
}

TEST_CASE("a per-channel mul on the cycle backend", "[alu][cycle]") {
  random_per_channel(use("cycle", "pynq"), 1, 40, 7, 7, 711);
}

#ifdef VTA_TEST_HAVE_RTL
TEST_CASE("mul on the ALU on the rtl backend", "[alu][rtl]") {
  const Target t = use("rtl", "pynq");
  random_per_channel(t, 1, 16, 3, 4, 721);
  std::vector<int8_t> a(192), b(192);
  for (size_t i = 0; i < a.size(); ++i) {
    a[i] = int8_t(int(i * 37 % 256) - 128), b[i] = int8_t(int(i * 91 % 256) - 128);
  }
  run_mul_on_vta(t, mul_layer(4, 4, 3, false), 1, 16, 3, 4, a, b);
}
#endif

TEST_CASE("the mul cycle estimate is close to the cycle model", "[alu][cycle]") {
  const Target t = use("cycle", "pynq");
  for (bool per_channel : {false, true}) {
    const NetworkLayer l = mul_layer(4, 4, 3, per_channel);
    const TensorShape s{1, 64, 28, 28};
    const size_t size = size_t(s.c) * s.h * s.w;
    NetworkLayerJob job;
    job.input_shape = NetworkTensor{s.n, s.c, s.h, s.w, {}};
    job.conv.x.assign(size, 3);
    job.conv.residual.assign(per_channel ? size_t(s.c) : size, 5);
    const VtaLayerResult r = op_def("mul").vta.run(t, Network{}, l, job, NetworkOptions{});
    const double est = double(op_def("mul").vta.estimate_cycles(l, s, t.config));
    INFO(r.run.shape << ": estimate " << est << ", cycle model " << r.run.stats.cycles);
    CHECK(est >= 0.8 * double(r.run.stats.cycles));
    CHECK(est <= 1.25 * double(r.run.stats.cycles));
  }
}

TEST_CASE("a small mul goes to VTA, a large one stays on the host", "[alu][place]") {
  const HwConfig cfg = HwConfig::from_file(config_path("pynq"));
  const NetworkLayer l = mul_layer(4, 4, 3, false);
  const PlacementChoice small = choose_placement(l, TensorShape{1, 16, 4, 4}, &cfg);
  CHECK(small.place == Placement::kVta);
  const PlacementChoice big = choose_placement(l, TensorShape{1, 64, 56, 56}, &cfg);
  CHECK(big.place == Placement::kHost);
  CHECK_THAT(big.reason, Catch::Contains("host (est"));
}

TEST_CASE("a per-channel mul needs its operand's shape to say so", "[alu]") {
  const char* json = R"({"name": "se", "input": {"c": 16, "h": 4, "w": 4}, "layers": [
    {"name": "g", "op": "global_avgpool", "input": "data"},
    {"name": "z", "op": "mul", "input": "data", "residual": "g"}]})";
  try {
    Network::from_json(nlohmann::json::parse(json), "se.json").validate();
    FAIL("no error");
  } catch (const vta::Error& e) {
    CHECK_THAT(e.what(),
               Catch::Contains("mul layer 'z'") && Catch::Contains("needs \"per_channel\": true"));
  }
}
