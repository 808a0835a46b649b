// The GEMM datapath of the functional simulator: executes the whole uop loop nest of one GEMM
// instruction (vta-reference.md 3.5) on fsim's SRAM images. This is where fsim spends its time,
// so the SRAMs feeding it are kept in a layout the vector units like:
//   inp tile  int16 [BATCH][BLOCK_IN]                  (int8 data, widened once at LOAD)
//   wgt tile  int16 [BLOCK_IN/2][BLOCK_OUT][2]         (k pairs of one output channel adjacent)
//   acc tile  int32 [BATCH][BLOCK_OUT]
// so one output row is BLOCK_IN/2 steps of "broadcast an input pair, multiply-add a weight row"
// (x86 pmaddwd / vpdpwssd). The variant is chosen at run time with __builtin_cpu_supports
// (AVX-512 VNNI, else AVX2); the generic variant is plain C++ and handles every BATCH (1..16)
// and BLOCK (2..64). No -march flags are needed: only these functions are compiled for the ISA.
// The variants are entries of a registry (GemmKernelRegistry below), so adding one is a kernel
// plus its registration; the selection functions only ask the registry.
#pragma once

#include <cstdint>
#include <string>

#include "vta/sim/isa.h"
#include "vta/sim/registry.h"

namespace vta {

enum class GemmKernelKind {
  kAuto,     // the fastest variant this CPU supports
  kGeneric,  // portable C++
  kAvx2,     // x86 AVX2 (BLOCK_OUT 8, 16, 32 or 64)
  kAvx512,   // x86 AVX-512 VNNI (BLOCK_OUT 16, 32 or 64)
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
  const int16_t* inp = nullptr;  // inp SRAM, layout above
  const int16_t* wgt = nullptr;  // wgt SRAM, layout above
  int32_t* acc = nullptr;        // acc SRAM
  uint8_t* out_stale = nullptr;  // one flag per acc index
};

using GemmKernelFn = void (*)(const GemmShape&, const GemmLoop&, const GemmBuffers&);

// One GEMM kernel variant, registered by the file that implements it.
struct GemmKernelEntry {
  std::string name;  // gemm_kernel_kind_name(kind)
  int order = 0;     // preference of kAuto: the first available entry in order wins
  GemmKernelKind kind = GemmKernelKind::kGeneric;
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
const char* gemm_kernel_kind_name(GemmKernelKind kind);

// Index of weight element (oc, k) inside one wgt tile of the layout above.
inline int wgt_tile_offset(int oc, int k, int block_out) {
  return (k >> 1) * block_out * 2 + oc * 2 + (k & 1);
}

}  // namespace vta
