// Layout packing and the reference implementation, checked against hand-derived positions and
// hand-computed values.
#include <random>

#include <catch2/catch.hpp>

#include "random_bytes.h"
#include "vta/compiler/codegen/layout.h"
#include "vta/compiler/references/reference.h"

using namespace vta::compiler;

TEST_CASE("ceil_div does not overflow near INT_MAX", "[layout]") {
  REQUIRE(ceil_div(2147483647, 2) == 1073741824);
  REQUIRE(ceil_div(2147483647, 1) == 2147483647);
  REQUIRE(ceil_div(0, 16) == 0);
  REQUIRE(ceil_div(17, 16) == 2);
}

TEST_CASE("activation packing round-trips and places elements in NCHWnc", "[layout]") {
  const uint32_t seed = 1234;
  INFO("seed " << seed);
  std::mt19937 rng(seed);
  for (int trial = 0; trial < 50; ++trial) {
    std::uniform_int_distribution<int> d(1, 9);
    const int n = d(rng), c = d(rng) * 3, h = d(rng), w = d(rng);
    const int batch = 1 << (trial % 3), block = 8 << (trial % 3);
    INFO("n " << n << " c " << c << " h " << h << " w " << w << " batch " << batch << " block "
              << block);
    auto x = random_bytes(size_t(n) * c * h * w, rng);
    auto packed = pack_nchw(x, n, c, h, w, batch, block);
    REQUIRE(packed.size() ==
            size_t(ceil_div(n, batch)) * ceil_div(c, block) * h * w * batch * block);
    REQUIRE(unpack_nchw(packed, n, c, h, w, batch, block) == x);
    // Every element by the layout formula [N/B][C/BI][H][W][B][BI].
    const int cb = ceil_div(c, block);
    size_t plain = 0;
    for (int in = 0; in < n; ++in) {
      for (int ic = 0; ic < c; ++ic) {
        for (int y = 0; y < h; ++y) {
          for (int xx = 0; xx < w; ++xx, ++plain) {
            const size_t pos =
                ((((size_t(in / batch) * cb + ic / block) * h + y) * w + xx) * batch + in % batch) *
                    block +
                ic % block;
            REQUIRE(packed[pos] == x[plain]);
          }
        }
      }
    }
  }
}

TEST_CASE("padding lanes of packed activations are zero", "[layout]") {
  std::vector<int8_t> x(3 * 2 * 2, 7);  // N=1, C=3, 2x2
  auto packed = pack_nchw(x, 1, 3, 2, 2, 1, 16);
  REQUIRE(packed.size() == 4 * 16);
  for (int e = 0; e < 4; ++e) {
    for (int lane = 0; lane < 16; ++lane) {
      REQUIRE(packed[e * 16 + lane] == (lane < 3 ? 7 : 0));
    }
  }
}

TEST_CASE("weight packing round-trips and places elements in OIHWoi", "[layout]") {
  const uint32_t seed = 99;
  INFO("seed " << seed);
  std::mt19937 rng(seed);
  for (int trial = 0; trial < 30; ++trial) {
    std::uniform_int_distribution<int> d(1, 40);
    const int o = d(rng), i = d(rng), kh = 1 + trial % 3, kw = 1 + (trial / 3) % 3;
    const int block = 8 << (trial % 3);
    auto w = random_bytes(size_t(o) * i * kh * kw, rng);
    auto packed = pack_oihw(w, o, i, kh, kw, block, block);
    REQUIRE(unpack_oihw(packed, o, i, kh, kw, block, block) == w);
    // W[o-1][0][kh-1][0]: tile row = output channel, column = input channel.
    const int ib = ceil_div(i, block);
    const size_t elem = ((size_t((o - 1) / block) * ib + 0) * kh + (kh - 1)) * kw + 0;
    REQUIRE(packed[(elem * block + (o - 1) % block) * block + 0] ==
            w[((size_t(o - 1) * i + 0) * kh + kh - 1) * kw]);
  }
}

TEST_CASE("bias packing replicates over batch lanes", "[layout]") {
  std::vector<int32_t> b = {5, -6, 70000};
  auto packed = pack_bias(b, 3, 2, 4);  // 1 block of 4, batch 2
  REQUIRE(packed == std::vector<int32_t>{5, -6, 70000, 0, 5, -6, 70000, 0});
}

TEST_CASE("reference conv2d matches hand-computed values", "[reference]") {
  // 1x1x3x3 input 1..9, one 2x2 kernel of ones, stride 1, pad 0 -> 2x2 sums of windows.
  Conv2dParams p;
  p.n = 1, p.c = 1, p.h = 3, p.w = 3, p.k = 1, p.kh = 2, p.kw = 2;
  std::vector<int8_t> x = {1, 2, 3, 4, 5, 6, 7, 8, 9}, w = {1, 1, 1, 1};
  Epilogue e;
  REQUIRE(conv2d_reference(p, e, x, w, {}, {}) == std::vector<int8_t>{12, 16, 24, 28});
  // Padding 1 on every side, stride 2: windows centred at (0,0),(0,2),(2,0),(2,2) of the
  // padded image -> top-left 1, top-right 3, bottom-left 7, bottom-right 9 plus neighbours.
  p.pad_top = p.pad_bottom = p.pad_left = p.pad_right = 1;
  p.stride_h = p.stride_w = 2;
  REQUIRE(conv2d_reference(p, e, x, w, {}, {}) == std::vector<int8_t>{1, 5, 11, 28});
}

TEST_CASE("epilogue order and truncation", "[reference]") {
  Epilogue e;
  REQUIRE(apply_epilogue(300, e, 0, 0) == int8_t(44));  // 300 mod 256 = 44: store truncates
  e.bias = true;
  e.shift = 2;
  REQUIRE(apply_epilogue(100, e, 20, 0) == int8_t(30));  // (100 + 20) >> 2
  REQUIRE(apply_epilogue(-9, e, 0, 0) == int8_t(-3));    // arithmetic shift rounds down
  e.residual = true;
  REQUIRE(apply_epilogue(100, e, 20, -40) == int8_t(-10));
  e.relu = true;
  REQUIRE(apply_epilogue(100, e, 20, -40) == int8_t(0));
  e.clip_hi = 20;
  REQUIRE(apply_epilogue(1000, e, 0, 0) == int8_t(20));
  e.clip_lo = 5;  // relu and clip_lo: the larger bound wins
  REQUIRE(apply_epilogue(0, e, 0, 0) == int8_t(5));
}

TEST_CASE("reference matmul matches hand-computed values", "[reference]") {
  MatmulParams p;
  p.m = 2, p.k = 2, p.n = 2;
  std::vector<int8_t> a = {1, 2, 3, 4}, b = {5, 6, 7, 8};
  Epilogue e;
  e.bias = true;
  REQUIRE(matmul_reference(p, e, a, b, {1, -1}) == std::vector<int8_t>{20, 21, 44, 49});
}
