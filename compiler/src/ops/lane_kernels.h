// Host kernels of the pools, the add, the batch matmul and the float operators, written once for
// every tensor of lanes: the int8_t NetworkTensor of the int8 and sub-byte path and the int32_t
// WideNetworkTensor of lanes wider than 8 bits (run/wide_network_run.h). Each takes the bounds of
// its output lane (int8: -128, 127), so both paths compute the same arithmetic.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include <fmt/format.h>

#include "ops/op_common.h"
#include "vta/compiler/frontend/float_graph.h"
#include "vta/compiler/run/layer_widths.h"
#include "vta/sim/error.h"

namespace vta::compiler::ops {

// The element type of a tensor of lanes.
template <class Tensor>
using LaneOf = typename decltype(Tensor::data)::value_type;

// sum / count * 2^rescale, rounded to nearest (ties away from zero), saturated to [lo, hi].
inline int32_t scaled_mean_in(int64_t sum, int64_t count, int rescale, int32_t lo, int32_t hi) {
  const int64_t num = std::abs(sum) << std::max(rescale, 0);
  const int64_t den = count << std::max(-rescale, 0);
  const int64_t q = std::min<int64_t>((num + den / 2) / den, int64_t(hi) + 1);
  return int32_t(std::clamp<int64_t>(sum < 0 ? -q : q, lo, hi));
}

// The window's real pixels of output (y, x) of plane nc, in order.
template <class Tensor, class Visit>
void visit_window(const NetworkLayer& l, const Tensor& in, int nc, int y, int x, Visit visit) {
  for (int ky = 0; ky < l.kh; ++ky) {
    for (int kx = 0; kx < l.kw; ++kx) {
      const int iy = y * l.stride_h - l.pad_top + ky, ix = x * l.stride_w - l.pad_left + kx;
      if (iy >= 0 && iy < in.h && ix >= 0 && ix < in.w) {
        visit(in.data[(size_t(nc) * in.h + iy) * in.w + ix]);
      }
    }
  }
}

// Every output of a pool of `l` over `in`: value(nc, y, x).
template <class Tensor, class Value>
Tensor pool_lanes(const NetworkLayer& l, const Tensor& in, Value value) {
  const TensorShape s = window_shape(l, TensorShape{in.n, in.c, in.h, in.w});
  Tensor out{in.n, in.c, s.h, s.w, {}};
  out.data.resize(size_t(in.n) * in.c * s.h * s.w);
  for (int nc = 0; nc < in.n * in.c; ++nc) {
    for (int y = 0; y < s.h; ++y) {
      for (int x = 0; x < s.w; ++x) {
        out.data[(size_t(nc) * s.h + y) * s.w + x] = LaneOf<Tensor>(value(nc, y, x));
      }
    }
  }
  return out;
}

// maxpool: the maximum over the window (padding never wins; a window holds a pixel).
template <class Tensor>
Tensor max_pool_lanes(const NetworkLayer& l, const Tensor& in) {
  return pool_lanes(l, in, [&](int nc, int y, int x) {
    LaneOf<Tensor> best = std::numeric_limits<LaneOf<Tensor>>::min();
    visit_window(l, in, nc, y, x, [&](LaneOf<Tensor> v) { best = std::max(best, v); });
    return best;
  });
}

// Average pool (count_include_pad, rescale): the sum over the window's real pixels over their
// count (or the whole window), times 2^rescale, rounded to nearest, saturated to [lo, hi].
template <class Tensor>
Tensor average_pool_lanes(const Tensor& in, const NetworkLayer& l, int32_t lo, int32_t hi) {
  return pool_lanes(l, in, [&](int nc, int y, int x) {
    int64_t sum = 0;  // a window may cover up to kMaxLayerBytes values
    int count = 0;
    visit_window(l, in, nc, y, x, [&](LaneOf<Tensor> v) {
      sum += v;
      ++count;
    });
    return scaled_mean_in(sum, l.count_include_pad ? l.kh * l.kw : count, l.rescale, lo, hi);
  });
}

// A host operator in float: `in` dequantized at 2^-in_exp, f, the result quantized at
// 2^-out_exp (round half away from zero) and saturated to [lo, hi].
template <class Tensor>
Tensor run_in_float_lanes(const Tensor& in, int in_exp, int out_exp,
                          const std::function<FloatTensor(const FloatTensor&)>& f, int32_t lo,
                          int32_t hi) {
  FloatTensor x{{in.n, in.c, in.h, in.w}, std::vector<float>(in.data.size())};
  for (size_t i = 0; i < in.data.size(); ++i) {
    x.data[i] = float(std::ldexp(double(in.data[i]), -in_exp));
  }
  const FloatTensor y = f(x);
  Tensor out{y.dims[0], y.dims[1], y.dims[2], y.dims[3], {}};
  out.data.resize(y.size());
  for (size_t i = 0; i < y.data.size(); ++i) {
    const double q = std::round(std::ldexp(double(y.data[i]), out_exp));
    out.data[i] = LaneOf<Tensor>(std::clamp(q, double(lo), double(hi)));
  }
  return out;
}

// The batch matmul a (planes x M x K) times b (planes x K x P) in exact integers, each sum times
// 2^scale rounded to nearest (exact: a power of two) and saturated to [lo, hi].
template <class Tensor, class B>
Tensor batch_matmul_lanes(const Tensor& a, const std::vector<B>& b, int scale, int32_t lo,
                          int32_t hi) {
  const size_t planes = size_t(a.n) * size_t(a.c), m = size_t(a.h), k = size_t(a.w);
  const size_t p = b.size() / (planes * k);
  Tensor out{a.n, a.c, a.h, int(p), {}};
  out.data.resize(planes * m * p);
  for (size_t pl = 0; pl < planes; ++pl) {
    for (size_t i = 0; i < m; ++i) {
      for (size_t j = 0; j < p; ++j) {
        int64_t acc = 0;  // int16 lanes: |acc| <= k * 2^30, exact in a double below 2^53
        for (size_t t = 0; t < k; ++t) {
          acc += int64_t(a.data[(pl * m + i) * k + t]) * int64_t(b[(pl * k + t) * p + j]);
        }
        const double q = std::round(std::ldexp(double(acc), scale));
        out.data[(pl * m + i) * p + j] = LaneOf<Tensor>(std::clamp(q, double(lo), double(hi)));
      }
    }
  }
  return out;
}

// A host operator's context on either path (OpContext, WideOpContext) and its tensor type.
template <class Ctx>
using TensorOf = std::decay_t<decltype(Ctx::in)>;

// The bounds a host operator saturates to: int8 on the int8 and sub-byte path (run_network
// narrows them to the output lane after it), the output lane on the wide path.
inline int32_t host_lo(const OpContext&) {
  return -128;
}
inline int32_t host_hi(const OpContext&) {
  return 127;
}
inline int32_t host_lo(const WideOpContext& ctx) {
  return lane_min(ctx.widths.out);
}
inline int32_t host_hi(const WideOpContext& ctx) {
  return lane_max(ctx.widths.out);
}

// run_in_float_lanes of the context's input at its bounds.
template <class Ctx>
TensorOf<Ctx> in_float(const Ctx& ctx, int in_exp, int out_exp,
                       const std::function<FloatTensor(const FloatTensor&)>& f) {
  return run_in_float_lanes(ctx.in, in_exp, out_exp, f, host_lo(ctx), host_hi(ctx));
}

// The tensor `name` of the context's network; throws naming the layer when there is none.
template <class Ctx>
const TensorOf<Ctx>& tensor_named(const Ctx& ctx, const std::string& name) {
  auto it = ctx.tensors.find(name);
  if (it == ctx.tensors.end()) {
    throw Error(fmt::format("network {}: layer '{}' reads unknown tensor '{}'", ctx.net.name,
                            ctx.layer.name, name));
  }
  return it->second;
}

// a + b saturated to [lo, hi] (the layer's bounds within the output lane).
template <class Tensor, class B>
Tensor add_lanes(const Tensor& a, const std::vector<B>& b, int32_t lo, int32_t hi) {
  Tensor out = a;
  for (size_t i = 0; i < out.data.size(); ++i) {
    out.data[i] = LaneOf<Tensor>(std::clamp<int64_t>(int64_t(a.data[i]) + b[i], lo, hi));
  }
  return out;
}

}  // namespace vta::compiler::ops
