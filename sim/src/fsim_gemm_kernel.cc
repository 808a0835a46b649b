#include "vta/sim/fsim_gemm_kernel.h"

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
template <class Tile>
__attribute__((always_inline)) inline void for_each_gemm_tile(const GemmLoop& l,
                                                              const GemmBuffers& b, size_t inp_tile,
                                                              size_t wgt_tile, size_t acc_tile,
                                                              Tile&& tile) {
  for (uint32_t io = 0; io < l.iter_out; ++io) {
    for (uint32_t ii = 0; ii < l.iter_in; ++ii) {
      const uint32_t dst0 = io * l.dst_factor_out + ii * l.dst_factor_in;
      const uint32_t src0 = io * l.src_factor_out + ii * l.src_factor_in;
      const uint32_t wgt0 = io * l.wgt_factor_out + ii * l.wgt_factor_in;
      for (uint32_t u = 0; u < l.n_uops; ++u) {
        const Uop& uop = l.uops[u];
        const uint32_t dst = uop.dst_idx + dst0;
        tile(b.inp + (uop.src_idx + src0) * inp_tile, b.wgt + (uop.wgt_idx + wgt0) * wgt_tile,
             b.acc + dst * acc_tile);
        b.out_stale[dst] = 1;
      }
    }
  }
}

// Portable kernel: for each output row, a[oc] += x[2j]*w[j][oc][0] + x[2j+1]*w[j][oc][1].
// Sums are taken in uint32 so the accumulator wraps modulo 2^32 like the hardware.
void gemm_generic(const GemmShape& s, const GemmLoop& l, const GemmBuffers& b) {
  const int batch = s.batch, bin = s.block_in, bout = s.block_out;
  const size_t inp_tile = static_cast<size_t>(batch) * bin;
  const size_t wgt_tile = static_cast<size_t>(bin) * bout;
  const size_t acc_tile = static_cast<size_t>(batch) * bout;
  for_each_gemm_tile(l, b, inp_tile, wgt_tile, acc_tile,
                     [&](const int16_t* x_tile, const int16_t* w, int32_t* acc_s) {
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
  const size_t inp_tile = static_cast<size_t>(batch) * pairs * 2;
  const size_t wgt_tile = static_cast<size_t>(pairs) * 2 * bout;
  const size_t acc_tile = static_cast<size_t>(batch) * bout;
  for_each_gemm_tile(
      l, b, inp_tile, wgt_tile, acc_tile,
      [&](const int16_t* x_tile, const int16_t* w, int32_t* acc) __attribute__((target("avx2"))) {
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
  const size_t inp_tile = static_cast<size_t>(batch) * pairs * 2;
  const size_t wgt_tile = static_cast<size_t>(pairs) * 2 * bout;
  const size_t acc_tile = static_cast<size_t>(batch) * bout;
  for_each_gemm_tile(
      l, b, inp_tile, wgt_tile, acc_tile,
      [&](const int16_t* x_tile, const int16_t* w, int32_t* acc)
          __attribute__((target("avx512f,avx512bw,avx512vnni"))) {
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
#endif

bool avx2_available(const GemmShape& s) {
  return cpu_has_avx2() && avx2_kernel(s) != nullptr;
}
bool avx512_available(const GemmShape& s) {
  return cpu_has_avx512_vnni() && avx512_kernel(s) != nullptr;
}
bool generic_available(const GemmShape&) {
  return true;
}
GemmKernelFn generic_kernel(const GemmShape&) {
  return gemm_generic;
}

// Widest first: kAuto takes the first one available.
VTA_REGISTER(GemmKernelEntry, gemm_avx512,
             {"avx512", 10, GemmKernelKind::kAvx512, &avx512_available, &avx512_kernel,
              "AVX-512 VNNI", "{16, 32, 64}"});
VTA_REGISTER(GemmKernelEntry, gemm_avx2,
             {"avx2", 20, GemmKernelKind::kAvx2, &avx2_available, &avx2_kernel, "AVX2",
              "{8, 16, 32, 64}"});
VTA_REGISTER(GemmKernelEntry, gemm_generic,
             {"generic", 30, GemmKernelKind::kGeneric, &generic_available, &generic_kernel, "",
              ""});

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

}  // namespace vta
