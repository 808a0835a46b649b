// Compiled layers on the rtl backend: conv2d and matmul layers compiled by vta_compiler with
// its automatic schedule, run through the runtime on rtl (checked bit for bit against the C++
// reference by the layer runner) and on the cycle backend: both must take the same number of
// cycles and count the same upstream statistics. Three layers on two configs.
#include <catch2/catch.hpp>

#include <random>
#include <string>

#include "test_paths.h"
#include "vta/compiler/run/layer_runner.h"
#include "vta/compiler/scheduling/auto_schedule.h"
#include "vta/runtime_cpp.h"

using namespace vta::compiler;
using vta::HwConfig;

namespace {

struct Pair {
  LayerRun rtl, cycle;
};

template <class Run>
Pair run_both(const char* config, const Run& run) {
  vta::set_error_mode(vta::ErrorMode::kThrow);
  const HwConfig cfg = HwConfig::from_file(config_path(config));
  Pair p;
  p.rtl = run(Target(cfg, "rtl"));
  p.cycle = run(Target(cfg, "cycle"));
  return p;
}

void check_pair(const Pair& p) {
  INFO(p.rtl.shape << " " << p.rtl.schedule.describe());
  REQUIRE(p.rtl.checked);
  CHECK(p.rtl.mismatches == 0);
  CHECK(p.cycle.mismatches == 0);
  CHECK(p.rtl.stats.cycles > 0);
  CHECK(p.rtl.stats.cycles == p.cycle.stats.cycles);
  CHECK(p.rtl.stats.runs == p.cycle.stats.runs);
  CHECK(p.rtl.stats.gemm_counter == p.cycle.stats.gemm_counter);
  CHECK(p.rtl.stats.alu_counter == p.cycle.stats.alu_counter);
  CHECK(p.rtl.stats.inp_load_nbytes == p.cycle.stats.inp_load_nbytes);
  CHECK(p.rtl.stats.wgt_load_nbytes == p.cycle.stats.wgt_load_nbytes);
  CHECK(p.rtl.stats.acc_load_nbytes == p.cycle.stats.acc_load_nbytes);
  CHECK(p.rtl.stats.out_store_nbytes == p.cycle.stats.out_store_nbytes);
}

void conv_layer(const char* config, const Conv2dParams& p, const Epilogue& e, uint64_t seed) {
  check_pair(run_both(config, [&](const Target& target) {
    const ConvSchedule s = auto_schedule(p, e, target.config);
    return run_conv2d(target, p, e, s, random_conv_data(p, e, seed), true);
  }));
}

Conv2dParams conv(int c, int k, int hw, int kernel, int stride, int pad) {
  Conv2dParams p;
  p.name = "conv2d";
  p.c = c;
  p.k = k;
  p.h = p.w = hw;
  p.kh = p.kw = kernel;
  p.stride_h = p.stride_w = stride;
  p.pad_top = p.pad_bottom = p.pad_left = p.pad_right = pad;
  return p;
}

Epilogue resnet_epilogue() {
  Epilogue e;
  e.bias = true;
  e.shift = 8;
  e.relu = true;
  e.clip_hi = 127;
  return e;
}

}  // namespace

TEST_CASE("rtl layers: 3x3 conv pad 1 equals cycle on pynq", "[rtl][e2e]") {
  conv_layer("pynq", conv(32, 32, 8, 3, 1, 1), resnet_epilogue(), 11);
}

TEST_CASE("rtl layers: 1x1 conv stride 2 equals cycle on pynq", "[rtl][e2e]") {
  conv_layer("pynq", conv(48, 16, 10, 1, 2, 0), resnet_epilogue(), 12);
}

TEST_CASE("rtl layers: 3x3 conv pad 1 equals cycle on small", "[rtl][e2e]") {
  conv_layer("small", conv(16, 24, 6, 3, 1, 1), resnet_epilogue(), 13);
}

TEST_CASE("rtl layers: 1x1 conv stride 2 equals cycle on small", "[rtl][e2e]") {
  conv_layer("small", conv(24, 16, 9, 1, 2, 0), Epilogue{}, 14);
}

TEST_CASE("rtl layers: matmul equals cycle on pynq and small", "[rtl][e2e]") {
  for (const char* config : {"pynq", "small"}) {
    MatmulParams m;
    m.m = 8;
    m.k = 40;
    m.n = 24;
    Epilogue e;
    e.bias = true;
    e.shift = 4;
    check_pair(run_both(config, [&](const Target& target) {
      const ConvSchedule s = auto_schedule(matmul_as_conv(m, target.config), e, target.config);
      return run_matmul(target, m, e, s, random_matmul_data(m, e, 15), true);
    }));
  }
}

TEST_CASE("rtl layers: seeded random conv2d layers equal cycle on pynq and small", "[rtl][e2e]") {
  const uint32_t seed = 2026;
  std::mt19937 rng(seed);
  const auto uni = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int trial = 0; trial < 4; ++trial) {
    const char* config = trial % 2 == 0 ? "pynq" : "small";
    Conv2dParams p;
    p.name = "random";
    p.n = uni(1, 2);
    p.c = uni(1, 40);
    p.k = uni(1, 40);
    p.kh = p.kw = uni(0, 1) ? 3 : 1;
    p.stride_h = p.stride_w = uni(1, 2);
    const int pad = p.kh == 3 ? uni(0, 1) : 0;
    p.pad_top = p.pad_bottom = p.pad_left = p.pad_right = pad;
    p.h = uni(p.kh, 12);
    p.w = uni(p.kw, 12);
    Epilogue e;
    e.bias = uni(0, 1);
    e.shift = uni(0, 1) ? uni(1, 9) : 0;
    e.relu = uni(0, 1);
    INFO("seed " << seed << " trial " << trial << " " << config << ": " << p.describe() << " "
                 << e.describe());
    conv_layer(config, p, e, seed + static_cast<uint32_t>(trial));
  }
}
