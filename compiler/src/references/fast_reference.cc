#include "vta/compiler/references/fast_reference.h"

#include <immintrin.h>

#include <algorithm>

#include "vta/compiler/references/reference.h"

namespace vta::compiler {

namespace {

// The product's operand layout: the reduction rows r of the right-hand matrix (depth x cols)
// are stored in pairs, element (r, j) at ((r / 2) * cols + j) * 2 + r % 2 as int16 (an odd
// last row is paired with zeros), so one 32-bit lane holds rows 2p and 2p+1 of column j and a
// 16-bit multiply-add of two lanes gives w[2p] * x[2p][j] + w[2p+1] * x[2p+1][j] exactly.
struct PairedRows {
  size_t depth = 0, cols = 0;
  std::vector<int16_t> v;
  PairedRows(size_t d, size_t c) : depth(d), cols(c), v(((d + 1) / 2) * c * 2, 0) {}
  size_t pairs() const { return (depth + 1) / 2; }
  int16_t& at(size_t r, size_t j) { return v[((r / 2) * cols + j) * 2 + r % 2]; }
  const int16_t* pair_row(size_t p) const { return &v[p * cols * 2]; }
};

// An int8 tensor element as the int16 of the paired layout: the same signed value.
int16_t widen(int8_t v) {
  return v;  // NOLINT(bugprone-signed-char-misuse): int8 numbers, sign extension intended
}

// Output pixels per tile and output channels per block: a block's accumulators (8 x 512 x 4 B)
// stay in the first-level cache while the reduction streams over them; row pairs per pass:
// each pass loads and stores an accumulator once for eight multiply-adds.
constexpr size_t kPixelTile = 512;
constexpr size_t kChannelBlock = 8;
constexpr size_t kPairsPerPass = 4;

// acc[j] += sum over q < 4 of w[q].lo * src[q][2j] + w[q].hi * src[q][2j+1], modulo 2^32: the
// one hot loop, in portable C++ and with AVX2's 16-bit multiply-add (chosen at run time, no
// -march=native; both compared with the plain loops by the tests).
using MultiplyAddFn = void (*)(uint32_t* acc, const uint32_t* w, const int16_t* const* src,
                               size_t n);

void multiply_add_pairs_portable(uint32_t* acc, const uint32_t* w, const int16_t* const* src,
                                 size_t n) {
  for (size_t q = 0; q < kPairsPerPass; ++q) {
    const uint32_t lo = uint32_t(int32_t(int16_t(uint16_t(w[q] & 0xFFFF))));
    const uint32_t hi = uint32_t(int32_t(int16_t(uint16_t(w[q] >> 16))));
    const int16_t* s = src[q];
    for (size_t j = 0; j < n; ++j) {
      acc[j] += lo * uint32_t(int32_t(s[2 * j])) + hi * uint32_t(int32_t(s[2 * j + 1]));
    }
  }
}

// Eight 32-bit lanes (sixteen int16) from s.
__attribute__((target("avx2"), always_inline)) inline __m256i load_lanes(const int16_t* s) {
  return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s));
}

__attribute__((target("avx2"))) void multiply_add_pairs_avx2(uint32_t* acc, const uint32_t* w,
                                                             const int16_t* const* src, size_t n) {
  const __m256i w0 = _mm256_set1_epi32(int32_t(w[0])), w1 = _mm256_set1_epi32(int32_t(w[1]));
  const __m256i w2 = _mm256_set1_epi32(int32_t(w[2])), w3 = _mm256_set1_epi32(int32_t(w[3]));
  size_t j = 0;
  for (; j + 8 <= n; j += 8) {
    const __m256i s01 = _mm256_add_epi32(_mm256_madd_epi16(load_lanes(src[0] + 2 * j), w0),
                                         _mm256_madd_epi16(load_lanes(src[1] + 2 * j), w1));
    const __m256i s23 = _mm256_add_epi32(_mm256_madd_epi16(load_lanes(src[2] + 2 * j), w2),
                                         _mm256_madd_epi16(load_lanes(src[3] + 2 * j), w3));
    __m256i* a = reinterpret_cast<__m256i*>(acc + j);
    _mm256_storeu_si256(a, _mm256_add_epi32(_mm256_loadu_si256(a), _mm256_add_epi32(s01, s23)));
  }
  if (j < n) {
    const int16_t* rest[kPairsPerPass] = {src[0] + 2 * j, src[1] + 2 * j, src[2] + 2 * j,
                                          src[3] + 2 * j};
    multiply_add_pairs_portable(acc + j, w, rest, n - j);
  }
}

bool g_portable_only = false;

MultiplyAddFn multiply_add_pairs() {
  static const bool avx2 = __builtin_cpu_supports("avx2");
  return avx2 && !g_portable_only ? multiply_add_pairs_avx2 : multiply_add_pairs_portable;
}

// Rows 2p and 2p+1 of w's row k as one 32-bit lane (low half row 2p), 0 beyond the depth.
uint32_t weight_pair(const int8_t* w_row, size_t depth, size_t p) {
  const size_t r = 2 * p;
  const uint32_t lo = r < depth ? uint32_t(uint16_t(int16_t(w_row[r]))) : 0;
  const uint32_t hi = r + 1 < depth ? uint32_t(uint16_t(int16_t(w_row[r + 1]))) : 0;
  return lo | (hi << 16);
}

// out[k][j] = sum_r w[k][r] * x[r][j] (k < rows, r < x.depth, j < x.cols), modulo 2^32; w is
// row-major rows x depth.
std::vector<uint32_t> int8_matrix_product(const int8_t* w, size_t rows, const PairedRows& x) {
  const size_t cols = x.cols, depth = x.depth, pairs = x.pairs();
  std::vector<uint32_t> out(rows * cols, 0);
  const MultiplyAddFn multiply_add = multiply_add_pairs();
  for (size_t j0 = 0; j0 < cols; j0 += kPixelTile) {
    const size_t nj = std::min(kPixelTile, cols - j0);
    for (size_t k0 = 0; k0 < rows; k0 += kChannelBlock) {
      const size_t k_end = std::min(rows, k0 + kChannelBlock);
      for (size_t p0 = 0; p0 < pairs; p0 += kPairsPerPass) {
        const int16_t* src[kPairsPerPass];
        for (size_t q = 0; q < kPairsPerPass; ++q) {
          src[q] = x.pair_row(std::min(p0 + q, pairs - 1)) + 2 * j0;  // weight 0 beyond
        }
        for (size_t k = k0; k < k_end; ++k) {
          uint32_t wp[kPairsPerPass];
          for (size_t q = 0; q < kPairsPerPass; ++q) {
            wp[q] = p0 + q < pairs ? weight_pair(&w[k * depth], depth, p0 + q) : 0;
          }
          multiply_add(&out[k * cols + j0], wp, src, nj);
        }
      }
    }
  }
  return out;
}

// The input patches of image n as a (C*KH*KW) x (OH*OW) matrix; padding reads as 0.
PairedRows im2col(const Conv2dParams& p, const std::vector<int8_t>& x, int n) {
  const int oh = p.out_h(), ow = p.out_w();
  PairedRows col(size_t(p.c) * size_t(p.kh) * size_t(p.kw), size_t(oh) * size_t(ow));
  size_t r = 0;
  for (int c = 0; c < p.c; ++c) {
    const int8_t* plane = &x[(size_t(n) * size_t(p.c) + size_t(c)) * size_t(p.h) * size_t(p.w)];
    for (int ky = 0; ky < p.kh; ++ky) {
      for (int kx = 0; kx < p.kw; ++kx, ++r) {
        for (int y = 0; y < oh; ++y) {
          const int iy = y * p.stride_h - p.pad_top + ky;
          for (int xo = 0; xo < ow && iy >= 0 && iy < p.h; ++xo) {
            const int ix = xo * p.stride_w - p.pad_left + kx;
            if (ix >= 0 && ix < p.w) {
              col.at(r, size_t(y) * size_t(ow) + size_t(xo)) =
                  widen(plane[size_t(iy) * size_t(p.w) + size_t(ix)]);
            }
          }
        }
      }
    }
  }
  return col;
}

}  // namespace

void fast_reference_portable_only(bool on) {
  g_portable_only = on;
}

std::vector<int8_t> conv2d_reference_fast(const Conv2dParams& p, const Epilogue& e,
                                          const std::vector<int8_t>& x,
                                          const std::vector<int8_t>& w,
                                          const std::vector<int32_t>& bias,
                                          const std::vector<int8_t>& residual) {
  e.check_channels(size_t(p.k), p.name);
  const size_t pixels = size_t(p.out_h()) * size_t(p.out_w());
  const size_t k_out = size_t(p.k);
  std::vector<int8_t> out(size_t(p.n) * k_out * pixels);
  for (int n = 0; n < p.n; ++n) {
    const std::vector<uint32_t> acc = int8_matrix_product(w.data(), k_out, im2col(p, x, n));
    const size_t base = size_t(n) * k_out * pixels;
    for (size_t k = 0; k < k_out; ++k) {
      for (size_t j = 0; j < pixels; ++j) {
        const size_t o = base + k * pixels + j;
        out[o] = apply_epilogue(int32_t(acc[k * pixels + j]), e, e.bias ? bias[k] : 0,
                                e.residual ? residual[o] : int8_t(0), k);
      }
    }
  }
  return out;
}

std::vector<int8_t> matmul_reference_fast(const MatmulParams& p, const Epilogue& e,
                                          const std::vector<int8_t>& a,
                                          const std::vector<int8_t>& b,
                                          const std::vector<int32_t>& bias) {
  // C = A * B with A as the left-hand rows (M x K) and B (K x N) as the paired right-hand side.
  e.check_channels(size_t(p.n), p.name);
  const size_t m = size_t(p.m), k = size_t(p.k), n = size_t(p.n);
  PairedRows bx(k, n);
  for (size_t r = 0; r < k; ++r) {
    for (size_t j = 0; j < n; ++j) {
      bx.at(r, j) = widen(b[r * n + j]);
    }
  }
  const std::vector<uint32_t> acc = int8_matrix_product(a.data(), m, bx);
  std::vector<int8_t> out(m * n);
  for (size_t i = 0; i < m; ++i) {
    for (size_t j = 0; j < n; ++j) {
      out[i * n + j] = apply_epilogue(int32_t(acc[i * n + j]), e, e.bias ? bias[j] : 0, 0, j);
    }
  }
  return out;
}

}  // namespace vta::compiler
