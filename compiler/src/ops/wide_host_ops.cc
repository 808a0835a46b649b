#include "ops/wide_host_ops.h"

#include <algorithm>
#include <random>

#include "ops/lane_kernels.h"
#include "ops/op_common.h"
#include "vta/compiler/codegen/lane_packing.h"

namespace vta::compiler::ops {

WideNetworkTensor wide_max_pool(const NetworkLayer& l, const WideNetworkTensor& in) {
  return max_pool_lanes(l, in);
}

WideNetworkTensor wide_average_pool(const WideNetworkTensor& in, const NetworkLayer& l, int bits) {
  // A quantized model's bounds of the pool's output (its consumers' fan-in rule), else the lane.
  const int32_t lo = std::max(lane_min(bits), l.epilogue.clip_lo.value_or(lane_min(bits)));
  const int32_t hi = std::min(lane_max(bits), l.epilogue.clip_hi.value_or(lane_max(bits)));
  return average_pool_lanes(in, l, lo, hi);
}

WideNetworkTensor wide_add(const NetworkLayer& l, const WideNetworkTensor& a,
                           const WideNetworkTensor& b, int bits) {
  const int32_t lo = std::max(lane_min(bits), l.epilogue.lower_bound().value_or(lane_min(bits)));
  const int32_t hi = std::min(lane_max(bits), l.epilogue.clip_hi.value_or(lane_max(bits)));
  return add_lanes(a, b.data, lo, hi);
}

void wide_weights(const WideOpContext& ctx, size_t weights, size_t outputs, std::vector<int32_t>& w,
                  std::vector<int32_t>& bias) {
  const NetworkLayer& l = ctx.layer;
  if (l.weights_i16 || l.weights) {
    if (l.weights_i16) {
      w.assign(l.weights_i16->begin(), l.weights_i16->end());
    } else {
      w.assign(l.weights->begin(), l.weights->end());
    }
    bias = l.bias ? *l.bias : std::vector<int32_t>();
    return;
  }
  std::mt19937_64 rng(ctx.seed);
  w.resize(weights);
  for (auto& x : w) {
    x = sign_extend(int64_t(rng()), ctx.widths.wgt);
  }
  bias.clear();
  if (l.epilogue.bias) {
    std::uniform_int_distribution<int32_t> d(-(1 << 14), (1 << 14) - 1);
    bias.resize(outputs);
    for (auto& x : bias) {
      x = d(rng);
    }
  }
}

void set_wide_epilogue(const NetworkLayer& l, const LayerWidths& widths, WideLayerJob& job) {
  job.epilogue = l.epilogue;
  if (!l.epilogue.residual) {
    return;
  }
  const int lo = lane_min(widths.out), hi = lane_max(widths.out);
  job.residual = l.residual;
  job.residual_shift = l.epilogue.residual_shift;
  job.lo = std::max(lo, l.epilogue.lower_bound().value_or(lo));
  job.hi = std::min(hi, l.epilogue.clip_hi.value_or(hi));
  Epilogue& e = job.epilogue;
  e.residual = false;
  e.residual_shift = 0;
  e.relu = false;
  e.clip_lo = lo;
  e.clip_hi = hi;
}

}  // namespace vta::compiler::ops
