// The operators of networks of wide lanes (run/wide_network_run.h) as the operator table's
// entries use them: host kernels on int32_t lanes (the int8 path's own kernels of
// ops/lane_kernels.h, at the output lane's bounds) and the job data of a VTA layer.
#pragma once

#include <cstdint>
#include <vector>

#include "vta/compiler/ops/op_def.h"

namespace vta::compiler::ops {

// maxpool: the maximum over the window (padding never wins).
WideNetworkTensor wide_max_pool(const NetworkLayer& l, const WideNetworkTensor& in);
// average_pool (op_common.h) saturating to a `bits`-bit lane instead of int8, and to the
// layer's epilogue clip_lo / clip_hi where it has them (a quantized model's bounds).
WideNetworkTensor wide_average_pool(const WideNetworkTensor& in, const NetworkLayer& l, int bits);
// a + b, then the layer's lower bound and clip_hi, saturated to a `bits`-bit lane.
WideNetworkTensor wide_add(const NetworkLayer& l, const WideNetworkTensor& a,
                           const WideNetworkTensor& b, int bits);

// The layer's own weights and bias (a quantized model's int16 weights, or int8 values, which
// every lane of 8 bits and up holds), else seeded random ones: weights uniform over the weight
// lane, a bias in [-2^14, 2^14).
void wide_weights(const WideOpContext& ctx, size_t weights, size_t outputs, std::vector<int32_t>& w,
                  std::vector<int32_t>& bias);
// The job's epilogue from the layer's: with a residual, VTA stops at the shift, saturating to
// the output lane, and the host adds the residual within the layer's bounds.
void set_wide_epilogue(const NetworkLayer& l, const LayerWidths& widths, WideLayerJob& job);

}  // namespace vta::compiler::ops
