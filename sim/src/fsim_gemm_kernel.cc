#include "vta/sim/fsim_gemm_kernel.h"

#include <algorithm>
#include <cstring>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define VTA_FSIM_X86 1
#endif

#include "vta/sim/error.h"

namespace vta {
namespace {

// The GEMM loop nest shared by every kernel: for each (outer, inner, uop) step it hands `tile`
// the step's input tile, weight tile and accumulator tile, then marks the output row stale.
// Always inlined. The AVX kernels are `flatten` and give their tile lambda the kernel's target
// (a lambda does not inherit it), so each compiles to one call-free function as before.
// inp_tile and wgt_tile are in bytes, acc_tile in int32 lanes.
template <class Tile>
__attribute__((always_inline)) inline void for_each_gemm_tile(const GemmLoop& l,
                                                              const GemmBuffers& b, size_t inp_tile,
                                                              size_t wgt_tile, size_t acc_tile,
                                                              Tile&& tile) {
  // Everything the loop reads, in locals: the out_stale byte store may alias any memory, so a
  // field read through `l` or `b` would be reloaded on every step.
  const Uop* const uops = l.uops;
  const uint32_t n_uops = l.n_uops, iter_out = l.iter_out, iter_in = l.iter_in;
  const uint32_t dst_fo = l.dst_factor_out, dst_fi = l.dst_factor_in;
  const uint32_t src_fo = l.src_factor_out, src_fi = l.src_factor_in;
  const uint32_t wgt_fo = l.wgt_factor_out, wgt_fi = l.wgt_factor_in;
  const uint8_t* const inp = b.inp;
  const uint8_t* const wgt = b.wgt;
  int32_t* const acc = b.acc;
  uint8_t* const out_stale = b.out_stale;
  for (uint32_t io = 0; io < iter_out; ++io) {
    for (uint32_t ii = 0; ii < iter_in; ++ii) {
      const uint32_t dst0 = io * dst_fo + ii * dst_fi;
      const uint32_t src0 = io * src_fo + ii * src_fi;
      const uint32_t wgt0 = io * wgt_fo + ii * wgt_fi;
      for (uint32_t u = 0; u < n_uops; ++u) {
        const Uop& uop = uops[u];
        const uint32_t dst = uop.dst_idx + dst0;
        tile(inp + (uop.src_idx + src0) * inp_tile, wgt + (uop.wgt_idx + wgt0) * wgt_tile,
             acc + dst * acc_tile);
        out_stale[dst] = 1;
      }
    }
  }
}

// Portable kernel: for each output row, a[oc] += x[2j]*w[j][oc][0] + x[2j+1]*w[j][oc][1].
// Sums are taken in uint32 so the accumulator wraps modulo 2^32 like the hardware.
void gemm_generic(const GemmShape& s, const GemmLoop& l, const GemmBuffers& b) {
  const int batch = s.batch, bin = s.block_in, bout = s.block_out;
  const size_t inp_tile = static_cast<size_t>(batch) * bin * 2;
  const size_t wgt_tile = static_cast<size_t>(bin) * bout * 2;
  const size_t acc_tile = static_cast<size_t>(batch) * bout;
  for_each_gemm_tile(l, b, inp_tile, wgt_tile, acc_tile,
                     [&](const uint8_t* x_bytes, const uint8_t* w_bytes, int32_t* acc_s) {
                       const int16_t* x_tile = reinterpret_cast<const int16_t*>(x_bytes);
                       const int16_t* w = reinterpret_cast<const int16_t*>(w_bytes);
                       uint32_t* acc = reinterpret_cast<uint32_t*>(acc_s);
                       for (int r = 0; r < batch; ++r) {
                         const int16_t* x = x_tile + r * bin;
                         uint32_t* a = acc + r * bout;
                         for (int j = 0; j < bin / 2; ++j) {
                           const int32_t x0 = x[2 * j], x1 = x[2 * j + 1];
                           const int16_t* wj = w + j * bout * 2;
                           for (int oc = 0; oc < bout; ++oc) {
                             a[oc] += static_cast<uint32_t>(x0 * wj[2 * oc] + x1 * wj[2 * oc + 1]);
                           }
                         }
                       }
                     });
}

#ifdef VTA_FSIM_X86
// AVX2 kernel: kAcc accumulators of 8 int32 lanes cover BLOCK_OUT = 8*kAcc output channels;
// each step broadcasts one int16 input pair and multiply-adds it (vpmaddwd) with the matching
// weight pairs. The int8 x int8 pair sums never saturate int32. kPairs = BLOCK_IN/2 when known at
// compile time (the BLOCK=16 case), else 0 = taken from the shape.
template <int kAcc, int kPairs>
__attribute__((target("avx2"), flatten)) void gemm_avx2(const GemmShape& s, const GemmLoop& l,
                                                        const GemmBuffers& b) {
  const int batch = s.batch;
  const int pairs = kPairs != 0 ? kPairs : s.block_in / 2;
  constexpr int bout = 8 * kAcc;
  const size_t inp_tile = static_cast<size_t>(batch) * pairs * 4;
  const size_t wgt_tile = static_cast<size_t>(pairs) * 4 * bout;
  const size_t acc_tile = static_cast<size_t>(batch) * bout;
  for_each_gemm_tile(
      l, b, inp_tile, wgt_tile, acc_tile,
      [&](const uint8_t* x_bytes, const uint8_t* w_bytes,
          int32_t* acc) __attribute__((target("avx2"))) {
        const int16_t* x_tile = reinterpret_cast<const int16_t*>(x_bytes);
        const int16_t* w = reinterpret_cast<const int16_t*>(w_bytes);
        for (int r = 0; r < batch; ++r) {
          const int16_t* x = x_tile + r * pairs * 2;
          int32_t* a = acc + r * bout;
          __m256i sum[kAcc];
          for (int c = 0; c < kAcc; ++c) {
            sum[c] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a + 8 * c));
          }
          for (int j = 0; j < pairs; ++j) {
            int32_t pair;
            std::memcpy(&pair, x + 2 * j, sizeof(pair));
            const __m256i xv = _mm256_set1_epi32(pair);
            const int16_t* wj = w + j * 2 * bout;
            for (int c = 0; c < kAcc; ++c) {
              const __m256i wv = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(wj + 16 * c));
              sum[c] = _mm256_add_epi32(sum[c], _mm256_madd_epi16(xv, wv));
            }
          }
          for (int c = 0; c < kAcc; ++c) {
            _mm256_storeu_si256(reinterpret_cast<__m256i*>(a + 8 * c), sum[c]);
          }
        }
      });
}

// AVX-512 VNNI kernel: one zmm holds 16 output channels; vpdpwssd multiplies a broadcast int16
// input pair with the weight pairs and accumulates in one instruction.
template <int kAcc, int kPairs>
__attribute__((target("avx512f,avx512bw,avx512vnni"), flatten)) void gemm_avx512(
    const GemmShape& s, const GemmLoop& l, const GemmBuffers& b) {
  const int batch = s.batch;
  const int pairs = kPairs != 0 ? kPairs : s.block_in / 2;
  constexpr int bout = 16 * kAcc;
  const size_t inp_tile = static_cast<size_t>(batch) * pairs * 4;
  const size_t wgt_tile = static_cast<size_t>(pairs) * 4 * bout;
  const size_t acc_tile = static_cast<size_t>(batch) * bout;
  for_each_gemm_tile(
      l, b, inp_tile, wgt_tile, acc_tile,
      [&](const uint8_t* x_bytes, const uint8_t* w_bytes, int32_t* acc)
          __attribute__((target("avx512f,avx512bw,avx512vnni"))) {
            const int16_t* x_tile = reinterpret_cast<const int16_t*>(x_bytes);
            const int16_t* w = reinterpret_cast<const int16_t*>(w_bytes);
            for (int r = 0; r < batch; ++r) {
              const int16_t* x = x_tile + r * pairs * 2;
              int32_t* a = acc + r * bout;
              // kSets independent accumulator sets (pair j goes to set j % kSets) keep vpdpwssd's
              // latency off the critical path.
              constexpr int kSets = 4;
              __m512i sum[kSets][kAcc];
              for (int c = 0; c < kAcc; ++c) {
                sum[0][c] = _mm512_loadu_si512(a + 16 * c);
                for (int t = 1; t < kSets; ++t) {
                  sum[t][c] = _mm512_setzero_si512();
                }
              }
              int j = 0;
              for (; j + kSets <= pairs; j += kSets) {
                for (int t = 0; t < kSets; ++t) {
                  int32_t pair;
                  std::memcpy(&pair, x + 2 * (j + t), sizeof(pair));
                  const __m512i xv = _mm512_set1_epi32(pair);
                  const int16_t* wj = w + (j + t) * 2 * bout;
                  for (int c = 0; c < kAcc; ++c) {
                    sum[t][c] = _mm512_dpwssd_epi32(sum[t][c], xv, _mm512_loadu_si512(wj + 32 * c));
                  }
                }
              }
              for (; j < pairs; ++j) {
                int32_t pair;
                std::memcpy(&pair, x + 2 * j, sizeof(pair));
                const __m512i xv = _mm512_set1_epi32(pair);
                for (int c = 0; c < kAcc; ++c) {
                  sum[0][c] = _mm512_dpwssd_epi32(sum[0][c], xv,
                                                  _mm512_loadu_si512(w + j * 2 * bout + 32 * c));
                }
              }
              for (int c = 0; c < kAcc; ++c) {
                const __m512i lo = _mm512_add_epi32(sum[0][c], sum[1][c]);
                const __m512i hi = _mm512_add_epi32(sum[2][c], sum[3][c]);
                _mm512_storeu_si512(a + 16 * c, _mm512_add_epi32(lo, hi));
              }
            }
          });
}

// One output row of the byte kernel: a = a - bias + sum_j dpbusd(w quad j, x quad j). `wreg`
// holds the weight zmm when kKeep (else they are loaded from `w`).
template <int kAcc, bool kKeep, int kHeld>
__attribute__((target("avx512f,avx512bw,avx512vnni"), always_inline)) inline void int8_row(
    const uint8_t* x, int quads, const uint8_t* w, const __m512i (&wreg)[kHeld][kAcc], int32_t bias,
    int32_t* a) {
  constexpr int bout = 16 * kAcc;
  // With the weights in registers one accumulator chain per zmm suffices (steps overlap);
  // otherwise two sets (quad j goes to set j % 2) halve the chain.
  constexpr int kSets = kKeep ? 1 : 2;
  const __m512i bias_v = _mm512_set1_epi32(bias);
  __m512i sum[kSets][kAcc];
  for (int c = 0; c < kAcc; ++c) {
    sum[0][c] = _mm512_sub_epi32(_mm512_loadu_si512(a + 16 * c), bias_v);
    for (int t = 1; t < kSets; ++t) {
      sum[t][c] = _mm512_setzero_si512();
    }
  }
  for (int j = 0; j < quads; ++j) {
    int32_t quad;
    std::memcpy(&quad, x + 4 * j, sizeof(quad));
    const __m512i xv = _mm512_set1_epi32(quad);
    for (int c = 0; c < kAcc; ++c) {
      const __m512i wv =
          kKeep ? wreg[kKeep ? j : 0][c] : _mm512_loadu_si512(w + j * 4 * bout + 64 * c);
      sum[j % kSets][c] = _mm512_dpbusd_epi32(sum[j % kSets][c], wv, xv);
    }
  }
  for (int c = 0; c < kAcc; ++c) {
    __m512i total = sum[0][c];
    for (int t = 1; t < kSets; ++t) {
      total = _mm512_add_epi32(total, sum[t][c]);
    }
    _mm512_storeu_si512(a + 16 * c, total);
  }
}

// AVX-512 VNNI kernel on bytes: vpdpbusd multiplies four unsigned weight bytes (w + 128) with
// four signed input bytes per int32 lane and accumulates, twice the work of vpdpwssd per
// instruction. The 128 * sum_k x that the bias adds is stored after each input tile (one int32
// per row) and subtracted once per output row; everything wraps modulo 2^32, so the result is
// exact. When the weight tile fits in registers (kAcc * kQuads <= 16) it stays there while
// consecutive steps use the same one (a convolution's output columns). kBatch = BATCH when known
// at compile time (1), else 0 = taken from the shape.
template <int kAcc, int kQuads, int kBatch>
__attribute__((target("avx512f,avx512bw,avx512vnni"), flatten)) void gemm_avx512_int8(
    const GemmShape& s, const GemmLoop& l, const GemmBuffers& b) {
  const int batch = kBatch != 0 ? kBatch : s.batch;
  const int quads = kQuads != 0 ? kQuads : s.block_in / 4;
  constexpr int bout = 16 * kAcc;
  constexpr bool kKeep = kQuads != 0 && kAcc * kQuads <= 16;
  constexpr int kHeld = kKeep ? kQuads : 1;
  const size_t inp_tile = static_cast<size_t>(batch) * (quads * 4 + 4);
  const size_t wgt_tile = static_cast<size_t>(quads) * 4 * bout;
  const size_t acc_tile = static_cast<size_t>(batch) * bout;
  const uint8_t* held = nullptr;
  __m512i wreg[kHeld][kAcc];
  for (int j = 0; j < kHeld; ++j) {
    for (int c = 0; c < kAcc; ++c) {
      wreg[j][c] = _mm512_setzero_si512();
    }
  }
  for_each_gemm_tile(
      l, b, inp_tile, wgt_tile, acc_tile,
      [&](const uint8_t* x_tile, const uint8_t* w, int32_t* acc)
          __attribute__((target("avx512f,avx512bw,avx512vnni"))) {
            if (kKeep && w != held) {
              for (int j = 0; j < kHeld; ++j) {
                for (int c = 0; c < kAcc; ++c) {
                  wreg[j][c] = _mm512_loadu_si512(w + j * 4 * bout + 64 * c);
                }
              }
              held = w;
            }
            const uint8_t* bias_sum = x_tile + static_cast<size_t>(batch) * quads * 4;
            for (int r = 0; r < batch; ++r) {
              int32_t bias;
              std::memcpy(&bias, bias_sum + 4 * r, sizeof(bias));
              int8_row<kAcc, kKeep, kHeld>(x_tile + r * quads * 4, quads, w, wreg, bias,
                                           acc + r * bout);
            }
          });
}

// The byte layout's weight tile (BLOCK_IN a multiple of 16): each 4x4 block of int32 quads
// (4 output channels x 4 quads) is four 16-byte row loads, one in-register transpose and four
// masked stores; + 128 per byte is xor 0x80.
__attribute__((target("avx512f,avx512bw"))) void pack_quads_avx512(const GemmShape& s,
                                                                   const int8_t* src,
                                                                   uint8_t* dst) {
  const int bin = s.block_in, bout = s.block_out;
  const __m512i transpose = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
  const __m512i flip = _mm512_set1_epi8(static_cast<char>(0x80));
  for (int oc = 0; oc < bout; oc += 4) {
    for (int j = 0; j < bin / 4; j += 4) {
      const int8_t* r = src + oc * bin + 4 * j;
      // The mask forms with explicit sources: GCC 12 warns about the undefined ones'.
      __m512i block = _mm512_zextsi128_si512(_mm_loadu_si128(reinterpret_cast<const __m128i*>(r)));
      block =
          _mm512_inserti32x4(block, _mm_loadu_si128(reinterpret_cast<const __m128i*>(r + bin)), 1);
      block = _mm512_inserti32x4(block,
                                 _mm_loadu_si128(reinterpret_cast<const __m128i*>(r + 2 * bin)), 2);
      block = _mm512_inserti32x4(block,
                                 _mm_loadu_si128(reinterpret_cast<const __m128i*>(r + 3 * bin)), 3);
      block =
          _mm512_xor_si512(_mm512_mask_permutexvar_epi32(block, 0xFFFF, transpose, block), flip);
      // Row t of the transposed block (lanes 4t..4t+3) goes to quad j + t: a masked store
      // whose base is moved back by those lanes' offset (masked-off lanes are not touched).
      uint8_t* d = dst + (j * bout + oc) * 4;
      for (int t = 0; t < 4; ++t) {
        _mm512_mask_storeu_epi32(d + t * (bout * 4 - 16), static_cast<__mmask16>(0xF << (4 * t)),
                                 block);
      }
    }
  }
}

// The byte layout's weight tile at BLOCK_IN 16: a 16x4 matrix of int32 quads (a row per output
// channel, four zmm) transposed to 4x16 (a zmm per quad) by two rounds of two-source permutes;
// + 128 per byte is xor 0x80.
__attribute__((target("avx512f,avx512bw"))) void pack_quads16_avx512(const GemmShape& s,
                                                                     const int8_t* src,
                                                                     uint8_t* dst) {
  const int bout = s.block_out;
  // Round 1: (oc 0..7 of quad q, oc 0..7 of quad q+1) from the rows of 4 + 4 channels.
  const __m512i pick_lo =
      _mm512_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28, 1, 5, 9, 13, 17, 21, 25, 29);
  const __m512i pick_hi =
      _mm512_setr_epi32(2, 6, 10, 14, 18, 22, 26, 30, 3, 7, 11, 15, 19, 23, 27, 31);
  // Round 2: quad q of oc 0..7 and oc 8..15 side by side.
  const __m512i join_lo = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23);
  const __m512i join_hi =
      _mm512_setr_epi32(8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27, 28, 29, 30, 31);
  const __m512i flip = _mm512_set1_epi8(static_cast<char>(0x80));
  for (int oc0 = 0; oc0 < bout; oc0 += 16) {
    const int8_t* r = src + oc0 * 16;
    const __m512i s0 = _mm512_loadu_si512(r), s1 = _mm512_loadu_si512(r + 64);
    const __m512i s2 = _mm512_loadu_si512(r + 128), s3 = _mm512_loadu_si512(r + 192);
    const __m512i a01 = _mm512_permutex2var_epi32(s0, pick_lo, s1);  // q0 | q1, oc 0..7
    const __m512i b01 = _mm512_permutex2var_epi32(s0, pick_hi, s1);  // q2 | q3, oc 0..7
    const __m512i a23 = _mm512_permutex2var_epi32(s2, pick_lo, s3);  // q0 | q1, oc 8..15
    const __m512i b23 = _mm512_permutex2var_epi32(s2, pick_hi, s3);  // q2 | q3, oc 8..15
    const __m512i q[4] = {
        _mm512_permutex2var_epi32(a01, join_lo, a23), _mm512_permutex2var_epi32(a01, join_hi, a23),
        _mm512_permutex2var_epi32(b01, join_lo, b23), _mm512_permutex2var_epi32(b01, join_hi, b23)};
    for (int j = 0; j < 4; ++j) {
      _mm512_storeu_si512(dst + (j * bout + oc0) * 4, _mm512_xor_si512(q[j], flip));
    }
  }
}

// Copies one input row of `n` bytes (a multiple of 16) to `d` and returns sum_k x[k]: psadbw of
// x + 128 (x xor 0x80) against zero sums 8 unsigned bytes at a time; SSE2 is part of x86-64.
int32_t copy_row_sum_sse2(const int8_t* x, int n, uint8_t* d) {
  const __m128i flip = _mm_set1_epi8(static_cast<char>(0x80));
  __m128i total = _mm_setzero_si128();
  for (int k = 0; k < n; k += 16) {
    const __m128i raw = _mm_loadu_si128(reinterpret_cast<const __m128i*>(x + k));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(d + k), raw);
    const __m128i v = _mm_xor_si128(raw, flip);
    total = _mm_add_epi64(total, _mm_sad_epu8(v, _mm_setzero_si128()));
  }
  const int64_t biased =
      _mm_cvtsi128_si64(total) + _mm_cvtsi128_si64(_mm_unpackhi_epi64(total, total));
  return static_cast<int32_t>(biased - 128 * static_cast<int64_t>(n));
}

// The byte layout's inp tiles at BATCH 1, BLOCK_IN 16 (pynq), one straight loop: 16 bytes
// copied, then 128 * their sum (psadbw of x xor 0x80, less 128 * 16) as the tile's trailer.
void pack_inp16_sse2(const int8_t* src, size_t n, uint8_t* dst) {
  const __m128i flip = _mm_set1_epi8(static_cast<char>(0x80));
  for (size_t t = 0; t < n; ++t) {
    const __m128i raw = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + 16 * t));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + 20 * t), raw);
    const __m128i sad = _mm_sad_epu8(_mm_xor_si128(raw, flip), _mm_setzero_si128());
    const int32_t sum = _mm_cvtsi128_si32(sad) + _mm_cvtsi128_si32(_mm_srli_si128(sad, 8)) - 2048;
    const int32_t bias = 128 * sum;
    std::memcpy(dst + 20 * t + 16, &bias, sizeof(bias));
  }
}

bool cpu_has_avx2() {
  static const bool has = __builtin_cpu_supports("avx2");
  return has;
}

bool cpu_has_avx512_vnni() {
  static const bool has = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                          __builtin_cpu_supports("avx512vnni");
  return has;
}

GemmKernelFn avx2_kernel(const GemmShape& s) {
  switch (s.block_out) {
    case 8:
      return s.block_in == 8 ? gemm_avx2<1, 4> : gemm_avx2<1, 0>;
    case 16:
      return s.block_in == 16 ? gemm_avx2<2, 8> : gemm_avx2<2, 0>;
    case 32:
      return s.block_in == 32 ? gemm_avx2<4, 16> : gemm_avx2<4, 0>;
    case 64:
      return gemm_avx2<8, 0>;
    default:
      return nullptr;
  }
}

GemmKernelFn avx512_int8_kernel(const GemmShape& s) {
  if (s.block_in % 4 != 0) {
    return nullptr;
  }
  const bool one = s.batch == 1;
  switch (s.block_out) {
    case 16:
      if (s.block_in == 16) {
        return one ? gemm_avx512_int8<1, 4, 1> : gemm_avx512_int8<1, 4, 0>;
      }
      return gemm_avx512_int8<1, 0, 0>;
    case 32:
      if (s.block_in == 32) {
        return one ? gemm_avx512_int8<2, 8, 1> : gemm_avx512_int8<2, 8, 0>;
      }
      return gemm_avx512_int8<2, 0, 0>;
    case 64:
      return gemm_avx512_int8<4, 0, 0>;
    default:
      return nullptr;
  }
}

GemmKernelFn avx512_kernel(const GemmShape& s) {
  switch (s.block_out) {
    case 16:
      return s.block_in == 16 ? gemm_avx512<1, 8> : gemm_avx512<1, 0>;
    case 32:
      return s.block_in == 32 ? gemm_avx512<2, 16> : gemm_avx512<2, 0>;
    case 64:
      return gemm_avx512<4, 0>;
    default:
      return nullptr;
  }
}
#else
bool cpu_has_avx2() {
  return false;
}
bool cpu_has_avx512_vnni() {
  return false;
}
GemmKernelFn avx2_kernel(const GemmShape&) {
  return nullptr;
}
GemmKernelFn avx512_kernel(const GemmShape&) {
  return nullptr;
}
GemmKernelFn avx512_int8_kernel(const GemmShape&) {
  return nullptr;
}
#endif

bool avx2_available(const GemmShape& s) {
  return cpu_has_avx2() && avx2_kernel(s) != nullptr;
}
bool avx512_available(const GemmShape& s) {
  return cpu_has_avx512_vnni() && avx512_kernel(s) != nullptr;
}
bool avx512_int8_available(const GemmShape& s) {
  return cpu_has_avx512_vnni() && avx512_int8_kernel(s) != nullptr;
}
bool generic_available(const GemmShape&) {
  return true;
}
GemmKernelFn generic_kernel(const GemmShape&) {
  return gemm_generic;
}

// Widest first: kAuto takes the first one available.
VTA_REGISTER(GemmKernelEntry, gemm_avx512_int8,
             {"avx512-int8", 5, GemmKernelKind::kAvx512Int8, GemmLayout::kUint8Quads,
              &avx512_int8_available, &avx512_int8_kernel, "AVX-512 VNNI",
              "{16, 32, 64} with BLOCK_IN a multiple of 4"});
VTA_REGISTER(GemmKernelEntry, gemm_avx512,
             {"avx512", 10, GemmKernelKind::kAvx512, GemmLayout::kInt16Pairs, &avx512_available,
              &avx512_kernel, "AVX-512 VNNI", "{16, 32, 64}"});
VTA_REGISTER(GemmKernelEntry, gemm_avx2,
             {"avx2", 20, GemmKernelKind::kAvx2, GemmLayout::kInt16Pairs, &avx2_available,
              &avx2_kernel, "AVX2", "{8, 16, 32, 64}"});
VTA_REGISTER(GemmKernelEntry, gemm_generic,
             {"generic", 30, GemmKernelKind::kGeneric, GemmLayout::kInt16Pairs, &generic_available,
              &generic_kernel, "", ""});

const GemmKernelEntry* find_kernel(GemmKernelKind kind) {
  for (const GemmKernelEntry& e : GemmKernelRegistry::instance().entries()) {
    if (e.kind == kind) {
      return &e;
    }
  }
  return nullptr;
}

}  // namespace

bool gemm_kernel_available(GemmKernelKind kind, const GemmShape& shape) {
  const GemmKernelEntry* e = find_kernel(kind);
  return e != nullptr && e->available(shape);
}

bool gemm_avx2_available(const GemmShape& shape) {
  return gemm_kernel_available(GemmKernelKind::kAvx2, shape);
}

bool gemm_avx512_available(const GemmShape& shape) {
  return gemm_kernel_available(GemmKernelKind::kAvx512, shape);
}

bool gemm_avx512_int8_available(const GemmShape& shape) {
  return gemm_kernel_available(GemmKernelKind::kAvx512Int8, shape);
}

GemmLayout gemm_kernel_layout(GemmKernelKind kind) {
  const GemmKernelEntry* e = find_kernel(kind);
  return e != nullptr ? e->layout : GemmLayout::kInt16Pairs;
}

const char* gemm_kernel_kind_name(GemmKernelKind kind) {
  // Literals, not the registry's strings: callers keep the pointer.
  switch (kind) {
    case GemmKernelKind::kAuto:
      return "auto";
    case GemmKernelKind::kGeneric:
      return "generic";
    case GemmKernelKind::kAvx2:
      return "avx2";
    case GemmKernelKind::kAvx512:
      return "avx512";
    case GemmKernelKind::kAvx512Int8:
      return "avx512-int8";
  }
  return "?";
}

GemmKernelKind resolve_gemm_kernel(GemmKernelKind kind, const GemmShape& shape) {
  if (kind == GemmKernelKind::kAuto) {
    for (const GemmKernelEntry& e : GemmKernelRegistry::instance().entries()) {
      if (e.available(shape)) {
        return e.kind;
      }
    }
    return GemmKernelKind::kGeneric;
  }
  return kind;
}

GemmKernelFn select_gemm_kernel(GemmKernelKind kind, const GemmShape& shape) {
  const GemmKernelKind resolved = resolve_gemm_kernel(kind, shape);
  const GemmKernelEntry* e = find_kernel(resolved);
  if (e == nullptr) {
    throw Error(std::string("no GEMM kernel '") + gemm_kernel_kind_name(resolved) +
                "' is registered");
  }
  if (!e->available(shape)) {
    throw Error("the " + e->isa + " GEMM kernel is not available (CPU without " + e->isa +
                ", or BLOCK_OUT " + std::to_string(shape.block_out) + " not in " + e->block_outs +
                ")");
  }
  return e->kernel(shape);
}

namespace {

// Copies one input row of `n` bytes to `d` and returns sum_k x[k].
int32_t copy_row_sum(const int8_t* x, int n, uint8_t* d) {
#ifdef VTA_FSIM_X86
  if (n % 16 == 0) {
    return copy_row_sum_sse2(x, n, d);
  }
#endif
  int32_t sum = 0;
  for (int k = 0; k < n; ++k) {
    d[k] = static_cast<uint8_t>(x[k]);
    sum += x[k];
  }
  return sum;
}

}  // namespace

size_t gemm_inp_tile_bytes(GemmLayout layout, const GemmShape& s) {
  const size_t rows = static_cast<size_t>(s.batch), lanes = rows * static_cast<size_t>(s.block_in);
  return layout == GemmLayout::kInt16Pairs ? lanes * 2 : lanes + rows * 4;
}

size_t gemm_wgt_tile_bytes(GemmLayout layout, const GemmShape& s) {
  const size_t lanes = static_cast<size_t>(s.block_out) * static_cast<size_t>(s.block_in);
  return layout == GemmLayout::kInt16Pairs ? lanes * 2 : lanes;
}

void pack_gemm_inp_tiles(GemmLayout layout, const GemmShape& s, const int8_t* src, size_t n,
                         uint8_t* dst) {
  const size_t lanes = static_cast<size_t>(s.batch) * static_cast<size_t>(s.block_in);
  if (layout == GemmLayout::kInt16Pairs) {
    int16_t* d = reinterpret_cast<int16_t*>(dst);
    if (src == nullptr) {
      std::fill_n(d, n * lanes, int16_t{0});
      return;
    }
    for (size_t k = 0; k < n * lanes; ++k) {
      d[k] = src[k];
    }
    return;
  }
  const size_t tile = gemm_inp_tile_bytes(layout, s);
  if (src == nullptr) {
    std::fill_n(dst, n * tile, uint8_t{0});
    return;
  }
#ifdef VTA_FSIM_X86
  if (s.batch == 1 && s.block_in == 16) {
    pack_inp16_sse2(src, n, dst);
    return;
  }
#endif
  for (size_t t = 0; t < n; ++t) {
    uint8_t* d = dst + t * tile;
    for (int r = 0; r < s.batch; ++r) {
      const int8_t* x = src + t * lanes + static_cast<size_t>(r * s.block_in);
      const int32_t bias = 128 * copy_row_sum(x, s.block_in, d + r * s.block_in);
      std::memcpy(d + lanes + static_cast<size_t>(r) * 4, &bias, sizeof(bias));
    }
  }
}

void unpack_gemm_inp_tile(GemmLayout layout, const GemmShape& s, const uint8_t* src, int8_t* dst) {
  const size_t lanes = static_cast<size_t>(s.batch) * static_cast<size_t>(s.block_in);
  const int16_t* s16 = reinterpret_cast<const int16_t*>(src);
  for (size_t k = 0; k < lanes; ++k) {
    dst[k] = static_cast<int8_t>(layout == GemmLayout::kInt16Pairs ? s16[k] : src[k]);
  }
}

// Sequential writes in the layout's order (k pairs or quads outer).
void pack_gemm_wgt_tile(GemmLayout layout, const GemmShape& s, const int8_t* src, uint8_t* dst) {
  const int bin = s.block_in, bout = s.block_out;
  if (layout == GemmLayout::kInt16Pairs) {
    int16_t* d = reinterpret_cast<int16_t*>(dst);
    for (int j = 0; j < bin / 2; ++j) {
      for (int oc = 0; oc < bout; ++oc) {
        d[j * bout * 2 + oc * 2] = src != nullptr ? src[oc * bin + 2 * j] : int16_t{0};
        d[j * bout * 2 + oc * 2 + 1] = src != nullptr ? src[oc * bin + 2 * j + 1] : int16_t{0};
      }
    }
    return;
  }
  if (src == nullptr) {
    std::fill_n(dst, gemm_wgt_tile_bytes(layout, s), uint8_t{128});
    return;
  }
#ifdef VTA_FSIM_X86
  if (bin == 16 && bout % 16 == 0 && cpu_has_avx512_vnni()) {
    pack_quads16_avx512(s, src, dst);
    return;
  }
  if (bin % 16 == 0 && bout % 4 == 0 && cpu_has_avx512_vnni()) {
    pack_quads_avx512(s, src, dst);
    return;
  }
#endif
  for (int j = 0; j < bin / 4; ++j) {
    for (int oc = 0; oc < bout; ++oc) {
      for (int t = 0; t < 4; ++t) {
        dst[(j * bout + oc) * 4 + t] = static_cast<uint8_t>(src[oc * bin + 4 * j + t] + 128);
      }
    }
  }
}

void unpack_gemm_wgt_tile(GemmLayout layout, const GemmShape& s, const uint8_t* src, int8_t* dst) {
  const int bin = s.block_in, bout = s.block_out;
  const int16_t* s16 = reinterpret_cast<const int16_t*>(src);
  for (int oc = 0; oc < bout; ++oc) {
    for (int k = 0; k < bin; ++k) {
      dst[oc * bin + k] =
          layout == GemmLayout::kInt16Pairs
              ? static_cast<int8_t>(s16[(k >> 1) * bout * 2 + oc * 2 + (k & 1)])
              : static_cast<int8_t>(src[((k >> 2) * bout + oc) * 4 + (k & 3)] - 128);
    }
  }
}

}  // namespace vta
