#include "ops/wide_host_ops.h"

#include <algorithm>
#include <cstdlib>
#include <random>

#include "ops/op_common.h"
#include "vta/compiler/codegen/lane_packing.h"

namespace vta::compiler::ops {

namespace {

// sum / count * 2^rescale, rounded to nearest (ties away from zero), saturated to the lane.
int32_t wide_scaled_mean(int64_t sum, int64_t count, int rescale, int bits) {
  const int64_t num = std::abs(sum) << std::max(rescale, 0);
  const int64_t den = count << std::max(-rescale, 0);
  const int64_t q = std::min<int64_t>((num + den / 2) / den, int64_t(lane_max(bits)) + 1);
  return int32_t(std::clamp<int64_t>(sum < 0 ? -q : q, lane_min(bits), lane_max(bits)));
}

// The window's real pixels of output (y, x) of plane nc, in order.
template <class Visit>
void visit_window(const NetworkLayer& l, const WideNetworkTensor& in, int nc, int y, int x,
                  Visit visit) {
  for (int ky = 0; ky < l.kh; ++ky) {
    for (int kx = 0; kx < l.kw; ++kx) {
      const int iy = y * l.stride_h - l.pad_top + ky, ix = x * l.stride_w - l.pad_left + kx;
      if (iy >= 0 && iy < in.h && ix >= 0 && ix < in.w) {
        visit(in.data[(size_t(nc) * in.h + iy) * in.w + ix]);
      }
    }
  }
}

// Every output of a pool over `in`: value(nc, y, x).
template <class Value>
WideNetworkTensor pool(const NetworkLayer& l, const WideNetworkTensor& in, Value value) {
  const TensorShape s = window_shape(l, TensorShape{in.n, in.c, in.h, in.w});
  WideNetworkTensor out{in.n, in.c, s.h, s.w,
                        std::vector<int32_t>(size_t(in.n) * in.c * s.h * s.w)};
  for (int nc = 0; nc < in.n * in.c; ++nc) {
    for (int y = 0; y < s.h; ++y) {
      for (int x = 0; x < s.w; ++x) {
        out.data[(size_t(nc) * s.h + y) * s.w + x] = value(nc, y, x);
      }
    }
  }
  return out;
}

}  // namespace

WideNetworkTensor wide_max_pool(const NetworkLayer& l, const WideNetworkTensor& in) {
  return pool(l, in, [&](int nc, int y, int x) {
    int32_t best = INT32_MIN;  // padding never wins; a window holds at least one pixel
    visit_window(l, in, nc, y, x, [&](int32_t v) { best = std::max(best, v); });
    return best;
  });
}

WideNetworkTensor wide_average_pool(const WideNetworkTensor& in, const NetworkLayer& l, int bits) {
  // A quantized model's bounds of the pool's output (its consumers' fan-in rule), else the lane.
  const int32_t lo = std::max(lane_min(bits), l.epilogue.clip_lo.value_or(lane_min(bits)));
  const int32_t hi = std::min(lane_max(bits), l.epilogue.clip_hi.value_or(lane_max(bits)));
  return pool(l, in, [&](int nc, int y, int x) {
    int64_t sum = 0;
    int count = 0;
    visit_window(l, in, nc, y, x, [&](int32_t v) {
      sum += v;
      ++count;
    });
    const int32_t mean =
        wide_scaled_mean(sum, l.count_include_pad ? l.kh * l.kw : count, l.rescale, bits);
    return std::clamp(mean, lo, hi);
  });
}

WideNetworkTensor wide_add(const NetworkLayer& l, const WideNetworkTensor& a,
                           const WideNetworkTensor& b, int bits) {
  WideNetworkTensor out = a;
  const int64_t lo = std::max(lane_min(bits), l.epilogue.lower_bound().value_or(lane_min(bits)));
  const int64_t hi = std::min(lane_max(bits), l.epilogue.clip_hi.value_or(lane_max(bits)));
  for (size_t i = 0; i < out.data.size(); ++i) {
    out.data[i] = int32_t(std::clamp(int64_t(a.data[i]) + b.data[i], lo, hi));
  }
  return out;
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
