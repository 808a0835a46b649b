// The GEMM datapath for element widths other than int8 x int8 -> int32 (vta-reference.md 3.5 at
// any legal width): the inp and wgt SRAM tiles hold sign-extended int32 lanes (inp [BATCH]
// [BLOCK_IN], wgt [BLOCK_OUT][BLOCK_IN]); every product and sum is taken modulo 2^32 (upstream's
// functional model computes in 32-bit ints) and the new accumulator is wrapped to the acc width,
// so acc lanes always hold the sign-extended value of their low acc_bits bits.
#pragma once

#include <cstdint>

#include "vta/sim/fsim_gemm_kernel.h"

namespace vta {

struct WideGemmBuffers {
  const int32_t* inp = nullptr;  // inp SRAM, BATCH * BLOCK_IN lanes per tile
  const int32_t* wgt = nullptr;  // wgt SRAM, BLOCK_OUT * BLOCK_IN lanes per tile
  int32_t* acc = nullptr;        // acc SRAM, BATCH * BLOCK_OUT lanes per tile
  uint8_t* out_stale = nullptr;  // one flag per acc index
  int acc_bits = 32;             // accumulator lane width
};

// One GEMM instruction with reset_reg = 0 (indices already checked), as GemmKernelFn.
void wide_gemm(const GemmShape& shape, const GemmLoop& loop, const WideGemmBuffers& b);

}  // namespace vta
