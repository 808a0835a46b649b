// Plain C++ reference of the quantized computations the compiler maps onto VTA, written directly
// from the definitions (no blocking, no tiling) so that it is independent of the code generator.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "vta/compiler/scheduling/workload.h"

namespace vta::compiler {

// Applies the epilogue to one int32 accumulator value of output channel `channel` (32-bit
// wrapping arithmetic) and returns the stored int8 (low 8 bits). The channel picks the shift of
// a per-channel epilogue (Epilogue::shifts).
int8_t apply_epilogue(int32_t acc, const Epilogue& e, int32_t bias, int8_t residual,
                      size_t channel = 0);

// x: N*C*H*W, w: K*C*KH*KW, bias: K (used if e.bias), residual: N*K*OH*OW (used if e.residual).
// Returns N*K*OH*OW int8.
std::vector<int8_t> conv2d_reference(const Conv2dParams& p, const Epilogue& e,
                                     const std::vector<int8_t>& x, const std::vector<int8_t>& w,
                                     const std::vector<int32_t>& bias,
                                     const std::vector<int8_t>& residual);

// a: M*K row-major, b: K*N row-major, bias: N. Returns M*N int8.
std::vector<int8_t> matmul_reference(const MatmulParams& p, const Epilogue& e,
                                     const std::vector<int8_t>& a, const std::vector<int8_t>& b,
                                     const std::vector<int32_t>& bias);

}  // namespace vta::compiler
