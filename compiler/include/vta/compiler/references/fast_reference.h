// The reference of reference.h computed fast: im2col followed by an int8 x int8 -> int32 matrix
// product whose innermost loop is a contiguous multiply-add the compiler vectorises (compiled
// for AVX2 and for baseline x86-64, chosen at run time). Same definition, same 32-bit wrapping
// arithmetic, same epilogue (apply_epilogue); tests/compiler/test_fast_reference.cc compares it
// with the plain loops of reference.h, which stay the oracle.
#pragma once

#include <cstdint>
#include <vector>

#include "vta/compiler/scheduling/workload.h"

namespace vta::compiler {

// Same arguments and result as conv2d_reference.
std::vector<int8_t> conv2d_reference_fast(const Conv2dParams& p, const Epilogue& e,
                                          const std::vector<int8_t>& x,
                                          const std::vector<int8_t>& w,
                                          const std::vector<int32_t>& bias,
                                          const std::vector<int8_t>& residual);

// Same arguments and result as matmul_reference.
std::vector<int8_t> matmul_reference_fast(const MatmulParams& p, const Epilogue& e,
                                          const std::vector<int8_t>& a,
                                          const std::vector<int8_t>& b,
                                          const std::vector<int32_t>& bias);

// Tests: use the portable kernel even where AVX2 is available (both must equal the plain loop).
void fast_reference_portable_only(bool on);

}  // namespace vta::compiler
