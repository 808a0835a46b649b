// The fast reference (im2col + vectorised int8 product) and the per-process reference cache,
// against the plain loops of reference.h, which stay the oracle: random small shapes (seeded,
// seed printed) with stride, padding, 1x1 / 3x3 / 7x7 and non-square kernels, odd channel
// counts, every epilogue part, residual adds, and dense layers.
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "test_paths.h"
#include "vta/compiler/references/fast_reference.h"
#include "vta/compiler/references/reference.h"
#include "vta/compiler/references/reference_cache.h"
#include "vta/compiler/run/layer_runner.h"
#include "vta/compiler/scheduling/auto_schedule.h"

using namespace vta::compiler;

namespace {

constexpr uint32_t kSeed = 4242;

int uni(std::mt19937& rng, int lo, int hi) {
  return std::uniform_int_distribution<int>(lo, hi)(rng);
}

Epilogue random_epilogue(std::mt19937& rng, bool allow_residual) {
  Epilogue e;
  e.bias = uni(rng, 0, 1) == 1;
  e.shift = uni(rng, 0, 1) ? uni(rng, 1, 12) : 0;
  e.residual = allow_residual && uni(rng, 0, 1) == 1;
  e.relu = uni(rng, 0, 2) == 0;
  if (uni(rng, 0, 2) == 0) {
    e.clip_lo = uni(rng, -100, 10);
  }
  if (uni(rng, 0, 1)) {
    e.clip_hi = uni(rng, 20, 127);
  }
  return e;
}

Conv2dParams random_conv(std::mt19937& rng) {
  static const int kKernels[] = {1, 3, 7};
  Conv2dParams p;
  p.n = uni(rng, 1, 2);
  p.c = uni(rng, 1, 37);
  p.k = uni(rng, 1, 21);
  p.kh = kKernels[uni(rng, 0, 2)];
  p.kw = uni(rng, 0, 3) == 0 ? kKernels[uni(rng, 0, 2)] : p.kh;
  p.stride_h = uni(rng, 1, 3);
  p.stride_w = uni(rng, 0, 1) ? p.stride_h : uni(rng, 1, 3);
  p.pad_top = uni(rng, 0, 3);
  p.pad_bottom = uni(rng, 0, 3);
  p.pad_left = uni(rng, 0, 3);
  p.pad_right = uni(rng, 0, 3);
  // The padded input must hold the kernel.
  p.h = std::max(uni(rng, 1, 19), p.kh - p.pad_top - p.pad_bottom);
  p.w = std::max(uni(rng, 1, 19), p.kw - p.pad_left - p.pad_right);
  return p;
}

}  // namespace

TEST_CASE("fast conv2d reference equals the plain loop on random shapes", "[reference]") {
  const bool portable = GENERATE(false, true);
  std::printf("fast conv2d reference (%s kernel): seed %u\n", portable ? "portable" : "best",
              kSeed);
  fast_reference_portable_only(portable);
  std::mt19937 rng(kSeed);
  for (int trial = 0; trial < 300; ++trial) {
    const Conv2dParams p = random_conv(rng);
    const Epilogue e = random_epilogue(rng, true);
    const ConvData d = random_conv_data(p, e, kSeed + uint64_t(trial));
    INFO("seed " << kSeed << " trial " << trial << ": " << p.describe() << " epilogue "
                 << e.describe());
    REQUIRE(conv2d_reference_fast(p, e, d.x, d.w, d.bias, d.residual) ==
            conv2d_reference(p, e, d.x, d.w, d.bias, d.residual));
  }
  fast_reference_portable_only(false);
}

TEST_CASE("fast conv2d reference wraps modulo 2^32 like the plain loop", "[reference]") {
  // 65535 channels x 3x3 taps of -128 * -128: the sum 9,663,528,960 wraps to 1,073,594,368
  // (mod 2^32), >> 20 = 1023, stored low byte 0xFF = -1.
  Conv2dParams p;
  p.c = 65535;
  p.k = 2;
  p.h = 3;
  p.w = 4;
  p.kh = p.kw = 3;
  Epilogue e;
  e.shift = 20;
  const std::vector<int8_t> x(size_t(p.c) * size_t(p.h) * size_t(p.w), int8_t(-128));
  const std::vector<int8_t> w(size_t(p.k) * size_t(p.c) * 9, int8_t(-128));
  const std::vector<int8_t> oracle = conv2d_reference(p, e, x, w, {}, {});
  REQUIRE(oracle == std::vector<int8_t>(4, int8_t(-1)));
  REQUIRE(conv2d_reference_fast(p, e, x, w, {}, {}) == oracle);
  fast_reference_portable_only(true);
  REQUIRE(conv2d_reference_fast(p, e, x, w, {}, {}) == oracle);
  fast_reference_portable_only(false);
}

TEST_CASE("fast matmul reference equals the plain loop on random shapes", "[reference]") {
  const bool portable = GENERATE(false, true);
  std::printf("fast matmul reference (%s kernel): seed %u\n", portable ? "portable" : "best",
              kSeed + 1);
  fast_reference_portable_only(portable);
  std::mt19937 rng(kSeed + 1);
  for (int trial = 0; trial < 200; ++trial) {
    MatmulParams p;
    p.m = uni(rng, 1, 9);
    p.k = uni(rng, 1, 600);
    p.n = uni(rng, 1, 1100);
    const Epilogue e = random_epilogue(rng, false);
    const MatmulData d = random_matmul_data(p, e, kSeed + 7u * uint64_t(trial));
    INFO("seed " << kSeed + 1 << " trial " << trial << ": " << p.describe() << " epilogue "
                 << e.describe());
    REQUIRE(matmul_reference_fast(p, e, d.a, d.b, d.bias) ==
            matmul_reference(p, e, d.a, d.b, d.bias));
  }
  fast_reference_portable_only(false);
}

TEST_CASE("reference cache: keyed exactly, bounded, reused across designs", "[reference]") {
  std::printf("reference cache: seed %u\n", kSeed + 2);
  Conv2dParams p;
  p.c = 24;
  p.k = 20;
  p.h = p.w = 6;
  p.pad_top = p.pad_bottom = p.pad_left = p.pad_right = 1;
  Epilogue e;
  e.bias = true;
  e.shift = 6;
  e.relu = true;
  const ConvData d = random_conv_data(p, e, kSeed + 2);
  const std::vector<int8_t> oracle = conv2d_reference(p, e, d.x, d.w, d.bias, d.residual);

  SECTION("a second design reuses the reference and still checks") {
    ReferenceCache& cache = ReferenceCache::process();
    cache.clear();
    const Target pynq(vta::HwConfig::from_file(config_path("pynq")), "fsim");
    const Target small(vta::HwConfig::from_file(config_path("small")), "fsim");
    const LayerRun a = run_conv2d(pynq, p, e, auto_schedule(p, e, pynq.config), d, true);
    REQUIRE(cache.counters().misses == 1);
    REQUIRE(cache.counters().hits == 0);
    const LayerRun b = run_conv2d(small, p, e, auto_schedule(p, e, small.config), d, true);
    REQUIRE(cache.counters().misses == 1);
    REQUIRE(cache.counters().hits == 1);
    REQUIRE(a.checked);
    REQUIRE(b.checked);
    REQUIRE(a.mismatches == 0);
    REQUIRE(b.mismatches == 0);
    REQUIRE(b.out == oracle);
  }

  SECTION("any change of shape, epilogue or data is a different entry") {
    ReferenceCache cache;
    REQUIRE(*cache.conv2d(p, e, d.x, d.w, d.bias, d.residual) == oracle);
    REQUIRE(*cache.conv2d(p, e, d.x, d.w, d.bias, d.residual) == oracle);
    REQUIRE(cache.counters().hits == 1);
    ConvData d2 = d;
    d2.x[17] = int8_t(d2.x[17] ^ 1);
    Epilogue e2 = e;
    e2.shift = 7;
    Conv2dParams p2 = p;
    p2.pad_bottom = 0;
    REQUIRE(*cache.conv2d(p, e, d2.x, d2.w, d2.bias, d2.residual) ==
            conv2d_reference(p, e, d2.x, d2.w, d2.bias, d2.residual));
    REQUIRE(*cache.conv2d(p, e2, d.x, d.w, d.bias, d.residual) ==
            conv2d_reference(p, e2, d.x, d.w, d.bias, d.residual));
    REQUIRE(*cache.conv2d(p2, e, d.x, d.w, d.bias, d.residual) ==
            conv2d_reference(p2, e, d.x, d.w, d.bias, d.residual));
    REQUIRE(cache.counters().hits == 1);
    REQUIRE(cache.counters().misses == 4);
    REQUIRE(cache.counters().entries == 4);
  }

  SECTION("the byte bound evicts the least recently used entry") {
    ReferenceCache cache;
    cache.conv2d(p, e, d.x, d.w, d.bias, d.residual);
    const size_t one = cache.counters().bytes;
    REQUIRE(one >= d.x.size() + d.w.size() + 4 * d.bias.size() + oracle.size());
    cache.set_capacity_bytes(one + one / 2);  // room for one entry of this size
    Epilogue e2 = e;
    e2.relu = false;
    cache.conv2d(p, e2, d.x, d.w, d.bias, d.residual);
    REQUIRE(cache.counters().entries == 1);
    REQUIRE(cache.counters().evictions == 1);
    REQUIRE(cache.counters().bytes <= one + one / 2);
    cache.conv2d(p, e2, d.x, d.w, d.bias, d.residual);  // the newer one stayed
    REQUIRE(cache.counters().hits == 1);
  }
}
