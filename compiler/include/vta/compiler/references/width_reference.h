// Plain C++ reference of a conv2d / matmul layer at the config's element widths
// (docs/element_widths.md), written from the definitions like reference.h: products and sums
// modulo 2^32, the accumulator wrapped to ACC_WIDTH bits, every epilogue step computed on
// sign-extended accumulator lanes and wrapped to ACC_WIDTH bits, and the store keeping the low
// OUT_WIDTH bits (sign-extended back into the int8_t or int32_t that holds an output lane).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "vta/compiler/scheduling/workload.h"

namespace vta::compiler {

struct AccumulatorWidths {
  int acc = 32;  // ACC_WIDTH: 16 or 32
  int out = 8;   // OUT_WIDTH (= INP_WIDTH): 1..32
};

// The epilogue on one accumulator value (its 32-bit sum before the ACC_WIDTH wrap): the stored
// output lane, sign-extended.
int32_t epilogue_lane_at(int32_t acc, const Epilogue& e, int32_t bias, int32_t residual,
                         size_t channel, AccumulatorWidths widths);
// The same for lanes of up to 8 bits.
int8_t apply_epilogue_at(int32_t acc, const Epilogue& e, int32_t bias, int8_t residual,
                         size_t channel, AccumulatorWidths widths);

// As conv2d_reference / matmul_reference (reference.h), at `widths`.
std::vector<int8_t> conv2d_reference_at(const Conv2dParams& p, const Epilogue& e,
                                        const std::vector<int8_t>& x, const std::vector<int8_t>& w,
                                        const std::vector<int32_t>& bias,
                                        const std::vector<int8_t>& residual,
                                        AccumulatorWidths widths);
std::vector<int8_t> matmul_reference_at(const MatmulParams& p, const Epilogue& e,
                                        const std::vector<int8_t>& a, const std::vector<int8_t>& b,
                                        const std::vector<int32_t>& bias, AccumulatorWidths widths);
// The same for lanes held in int32_t (16- and 32-bit lanes; products computed in 64 bits and
// kept modulo 2^32).
std::vector<int32_t> conv2d_reference_at(const Conv2dParams& p, const Epilogue& e,
                                         const std::vector<int32_t>& x,
                                         const std::vector<int32_t>& w,
                                         const std::vector<int32_t>& bias,
                                         const std::vector<int32_t>& residual,
                                         AccumulatorWidths widths);
std::vector<int32_t> matmul_reference_at(const MatmulParams& p, const Epilogue& e,
                                         const std::vector<int32_t>& a,
                                         const std::vector<int32_t>& b,
                                         const std::vector<int32_t>& bias,
                                         AccumulatorWidths widths);

}  // namespace vta::compiler
