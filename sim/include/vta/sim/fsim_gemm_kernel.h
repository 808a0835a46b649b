// The GEMM datapath of the functional simulator: executes the whole uop loop nest of one GEMM
// instruction (vta-reference.md 3.5) on fsim's SRAM images. This is where fsim spends its time,
// so the SRAMs feeding it are kept in the layout its kernel likes (GemmLayout):
//   kInt16Pairs: inp tile int16 [BATCH][BLOCK_IN]          (int8 data, widened once at LOAD)
//                wgt tile int16 [BLOCK_IN/2][BLOCK_OUT][2] (k pairs of one output channel adjacent)
//     one output row is BLOCK_IN/2 steps of "broadcast an input pair, multiply-add a weight row"
//     (x86 pmaddwd / vpdpwssd);
//   kUint8Quads: wgt tile uint8 [BLOCK_IN/4][BLOCK_OUT][4] holding w + 128 (vpdpbusd multiplies
//                unsigned by signed bytes); inp tile int8 [BATCH][BLOCK_IN] followed by
//                int32 [BATCH] = 128 * sum_k x[k], which the kernel subtracts so the sum is
//                exactly sum_k x*w; one output row is BLOCK_IN/4 steps of vpdpbusd;
//   acc tile int32 [BATCH][BLOCK_OUT] in both.
// The variant is chosen at run time with __builtin_cpu_supports (AVX-512 VNNI on bytes, on int16
// pairs, else AVX2); the generic variant is plain C++ and handles every BATCH (1..16) and BLOCK
// (2..64). No -march flags are needed: only these functions are compiled for the ISA.
// The variants are entries of a registry (GemmKernelRegistry below), so adding one is a kernel
// plus its registration; the selection functions only ask the registry.
#pragma once

#include <cstdint>
#include <string>

#include "vta/sim/isa.h"
#include "vta/sim/registry.h"

namespace vta {

enum class GemmKernelKind {
  kAuto,        // the fastest variant this CPU supports
  kGeneric,     // portable C++
  kAvx2,        // x86 AVX2 (BLOCK_OUT 8, 16, 32 or 64)
  kAvx512,      // x86 AVX-512 VNNI on int16 pairs, vpdpwssd (BLOCK_OUT 16, 32 or 64)
  kAvx512Int8,  // x86 AVX-512 VNNI on bytes, vpdpbusd (BLOCK_OUT 16, 32 or 64; BLOCK_IN % 4 = 0)
};

// How a kernel wants the inp and wgt SRAM tiles laid out (see the top of this file).
enum class GemmLayout {
  kInt16Pairs,
  kUint8Quads,
};

struct GemmShape {
  int batch = 1;
  int block_in = 16;
  int block_out = 16;
};

// One GEMM instruction with reset_reg = 0, its indices already checked against the buffer
// depths: for it_out, it_in, upc: acc[dst] += inp[src] x wgt[wgt]^T, and the out buffer of dst
// is marked stale (it holds the low 8 bits of acc, refreshed lazily by the caller).
struct GemmLoop {
  const Uop* uops = nullptr;  // uop_bgn .. uop_end, decoded
  uint32_t n_uops = 0;
  uint32_t iter_out = 0, iter_in = 0;
  uint32_t dst_factor_out = 0, dst_factor_in = 0;
  uint32_t src_factor_out = 0, src_factor_in = 0;
  uint32_t wgt_factor_out = 0, wgt_factor_in = 0;
};

struct GemmBuffers {
  const uint8_t* inp = nullptr;  // inp SRAM, tiles in the kernel's layout
  const uint8_t* wgt = nullptr;  // wgt SRAM, tiles in the kernel's layout
  int32_t* acc = nullptr;        // acc SRAM
  uint8_t* out_stale = nullptr;  // one flag per acc index
};

using GemmKernelFn = void (*)(const GemmShape&, const GemmLoop&, const GemmBuffers&);

// One GEMM kernel variant, registered by the file that implements it.
struct GemmKernelEntry {
  std::string name;  // gemm_kernel_kind_name(kind)
  int order = 0;     // preference of kAuto: the first available entry in order wins
  GemmKernelKind kind = GemmKernelKind::kGeneric;
  GemmLayout layout = GemmLayout::kInt16Pairs;
  // True if this CPU can run the variant for `shape`; `kernel` is then its function.
  bool (*available)(const GemmShape& shape) = nullptr;
  GemmKernelFn (*kernel)(const GemmShape& shape) = nullptr;
  // For the error of an explicit request it cannot serve: the instruction set it needs
  // ("AVX2") and the BLOCK_OUT values it supports ("{8, 16, 32, 64}").
  std::string isa, block_outs;
};
using GemmKernelRegistry = Registry<GemmKernelEntry>;

// The kernel for `kind` and `shape`. kAuto picks the widest variant the CPU and the shape allow
// (AVX-512 VNNI, AVX2, generic). Throws Error if a requested variant is unavailable.
GemmKernelFn select_gemm_kernel(GemmKernelKind kind, const GemmShape& shape);
// kAuto resolved to the variant select_gemm_kernel would use; other kinds unchanged.
GemmKernelKind resolve_gemm_kernel(GemmKernelKind kind, const GemmShape& shape);
// True if the variant `kind` (not kAuto) can run here for `shape`.
bool gemm_kernel_available(GemmKernelKind kind, const GemmShape& shape);
// True if the AVX2 / AVX-512 VNNI kernel can run here for `shape`.
bool gemm_avx2_available(const GemmShape& shape);
bool gemm_avx512_available(const GemmShape& shape);
bool gemm_avx512_int8_available(const GemmShape& shape);
const char* gemm_kernel_kind_name(GemmKernelKind kind);
// The SRAM layout of a registered variant (not kAuto).
GemmLayout gemm_kernel_layout(GemmKernelKind kind);

// Bytes of one inp / wgt SRAM tile in `layout`.
size_t gemm_inp_tile_bytes(GemmLayout layout, const GemmShape& shape);
size_t gemm_wgt_tile_bytes(GemmLayout layout, const GemmShape& shape);
// `n` inp tiles, int8 [BATCH][BLOCK_IN] each as in DRAM, into `layout`; src null = zeros.
void pack_gemm_inp_tiles(GemmLayout layout, const GemmShape& shape, const int8_t* src, size_t n,
                         uint8_t* dst);
void unpack_gemm_inp_tile(GemmLayout layout, const GemmShape& shape, const uint8_t* src,
                          int8_t* dst);
// One wgt tile, int8 [BLOCK_OUT][BLOCK_IN] as in DRAM, into `layout`; src null = zeros.
void pack_gemm_wgt_tile(GemmLayout layout, const GemmShape& shape, const int8_t* src, uint8_t* dst);
void unpack_gemm_wgt_tile(GemmLayout layout, const GemmShape& shape, const uint8_t* src,
                          int8_t* dst);

}  // namespace vta
