// Kernel-window folding: a convolution with few input channels (ResNet-18's C1: 3 channels in a
// block of 16 lanes) runs as an equivalent convolution whose channels carry part of the kernel
// window, so that the GEMM lanes are not mostly padding.
//
// With fold rows f (>= 1), row step a (the largest divisor of stride_h not above f) and the
// zero-padded input Xpad, the folded layer is
//   X'[n][(c*f + p)*KW + dx][v][u] = Xpad[n][c][v*a + p][u*stride_w + dx]    p < f, dx < KW
//   W'[k][(c*f + p)*KW + dx][g][0] = W[k][c][g*a + p][dx]  (dy = g*a + p; each dy once, at the
//                                     smallest g with p < f; the other entries are 0)
// a KH' x 1 convolution with stride (stride_h / a, 1), no padding, C' = C*f*KW channels,
// KH' = 1 if f >= KH else ceil((KH - f) / a) + 1, and the original output. All KW kernel
// columns always move into the channels; f trades GEMM micro-ops (fewer padded lanes) against
// input bytes (rows repeated f/a times). The host builds X' and W' while packing the layout.
#pragma once

#include <cstdint>
#include <vector>

#include "vta/compiler/scheduling/workload.h"

namespace vta::compiler {

// Row step a of a fold: the largest divisor of stride_h that is at most f.
int fold_row_step(const Conv2dParams& p, int fold_rows);
// The folded layer (name kept). Throws Error naming the fold if it is invalid (f < 1, f > KH,
// or the folded layer exceeds a size limit).
Conv2dParams folded_params(const Conv2dParams& p, int fold_rows);
std::vector<int8_t> fold_input(const Conv2dParams& p, int fold_rows, const std::vector<int8_t>& x);
std::vector<int8_t> fold_weights(const Conv2dParams& p, int fold_rows,
                                 const std::vector<int8_t>& w);
// Fold rows worth trying for a layer on a design with BLOCK_IN lanes: none unless it has fewer
// input channels than one block (a first layer) and a kernel of more than one tap.
std::vector<int> fold_candidates(const Conv2dParams& p, int block_in);

}  // namespace vta::compiler
