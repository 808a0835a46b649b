#include "vta/compiler/frontend/float_graph.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "ops/data_movement.h"
#if VTA_HAVE_ONEDNN
#include "frontend/onednn_kernels.h"
#endif
#include "vta/compiler/ops/float_math.h"
#include "vta/compiler/scheduling/workload.h"
#include "vta/sim/error.h"

namespace vta::compiler {

size_t FloatTensor::size() const {
  size_t n = 1;  // a scalar (no dims) has one value
  for (int d : dims) {
    n *= size_t(d);
  }
  return n;
}

std::string FloatTensor::shape() const {
  std::string s;
  for (int d : dims) {
    s += (s.empty() ? "" : "x") + std::to_string(d);
  }
  return s;
}

const char* graph_op_name(GraphOp op) {
  switch (op) {
    case GraphOp::kConv:
      return "Conv";
    case GraphOp::kRelu:
      return "Relu";
    case GraphOp::kClip:
      return "Clip";
    case GraphOp::kAdd:
      return "Add";
    case GraphOp::kMaxPool:
      return "MaxPool";
    case GraphOp::kAvgPool:
      return "AveragePool";
    case GraphOp::kGlobalAvgPool:
      return "GlobalAveragePool";
    case GraphOp::kGemm:
      return "Gemm";
    case GraphOp::kConcat:
      return "Concat";
    case GraphOp::kHardSigmoid:
      return "HardSigmoid";
    case GraphOp::kSigmoid:
      return "Sigmoid";
    case GraphOp::kTanh:
      return "Tanh";
    case GraphOp::kMul:
      return "Mul";
    case GraphOp::kLayerNorm:
      return "LayerNormalization";
    case GraphOp::kGelu:
      return "Gelu";
    case GraphOp::kSoftmax:
      return "Softmax";
    case GraphOp::kBatchMatMul:
      return "MatMul";
    case GraphOp::kScale:
      return "Scale";
    case GraphOp::kView:
      return "Reshape";
    case GraphOp::kPermute:
      return "Transpose";
    case GraphOp::kSlice:
      return "Slice";
    case GraphOp::kChannelShuffle:
      return "ChannelShuffle";
    case GraphOp::kAddConstant:
      return "AddConstant";
    case GraphOp::kMin:
      return "Min";
    case GraphOp::kMax:
      return "Max";
  }
  return "?";
}

std::vector<int> nchw_view(const std::vector<int>& dims, const std::string& what) {
  switch (dims.size()) {
    case 1:
      return {dims[0], 1, 1, 1};
    case 2:
      return {dims[0], dims[1], 1, 1};
    case 3:
      return {dims[0] * dims[1], dims[2], 1, 1};
    case 4:
      return dims;
    case 5:
    case 6:  // the leading axes merged into N: the last three (heads, rows, columns) kept
      return {std::accumulate(dims.begin(), dims.end() - 3, 1, std::multiplies<>()),
              dims[dims.size() - 3], dims[dims.size() - 2], dims[dims.size() - 1]};
    default:
      throw Error(
          fmt::format("{} has {} dims (tensors of 1 to 6 dims are supported)", what, dims.size()));
  }
}

int view_axis(int rank, int axis) {
  axis = axis < 0 ? axis + rank : axis;
  if (axis < 0 || axis >= rank) {
    return -1;
  }
  if (rank >= 4) {  // 5-D, 6-D: the last three axes are the view's C, H, W
    return axis >= rank - 3 ? axis - (rank - 4) : rank == 4 ? axis : -1;
  }
  return axis == rank - 1 && rank > 1 ? 1 : -1;  // the features: the view's channels
}

namespace {

using Tensors = std::map<std::string, FloatTensor>;

struct Nchw {
  int n, c, h, w;
};

Nchw nchw(const FloatTensor& t) {
  std::vector<int> d = t.dims;
  d.resize(4, 1);
  return {d[0], d[1], d[2], d[3]};
}

int window_out(int in, int pad_a, int pad_b, int k, int stride) {
  return int(window_output_size(in, pad_a, pad_b, k, stride));
}

FloatTensor conv(const GraphNode& g, const FloatTensor& x) {
  const Nchw in = nchw(x);
  const int k = g.weight.dims[0], cg = in.c / g.groups, kg = k / g.groups;
  const int oh = window_out(in.h, g.pad_top, g.pad_bottom, g.kh, g.stride_h);
  const int ow = window_out(in.w, g.pad_left, g.pad_right, g.kw, g.stride_w);
  FloatTensor out{{in.n, k, oh, ow}, {}};
  out.data.resize(out.size());
  for (int n = 0; n < in.n; ++n) {
    for (int o = 0; o < k; ++o) {
      const int group = o / kg;
      for (int y = 0; y < oh; ++y) {
        for (int xo = 0; xo < ow; ++xo) {
          double acc = g.bias.data[size_t(o)];
          for (int ci = 0; ci < cg; ++ci) {
            const int c = group * cg + ci;
            for (int ky = 0; ky < g.kh; ++ky) {
              const int iy = y * g.stride_h - g.pad_top + ky;
              if (iy < 0 || iy >= in.h) {
                continue;
              }
              for (int kx = 0; kx < g.kw; ++kx) {
                const int ix = xo * g.stride_w - g.pad_left + kx;
                if (ix < 0 || ix >= in.w) {
                  continue;
                }
                acc += double(x.data[((size_t(n) * in.c + c) * in.h + iy) * in.w + ix]) *
                       g.weight.data[((size_t(o) * cg + ci) * g.kh + ky) * g.kw + kx];
              }
            }
          }
          out.data[((size_t(n) * k + o) * oh + y) * ow + xo] = float(acc);
        }
      }
    }
  }
  return out;
}

// MaxPool (max over the real pixels) or AveragePool (count_include_pad chooses the divisor).
FloatTensor pool(const GraphNode& g, const FloatTensor& x, bool is_max) {
  const Nchw in = nchw(x);
  const int oh = window_out(in.h, g.pad_top, g.pad_bottom, g.kh, g.stride_h);
  const int ow = window_out(in.w, g.pad_left, g.pad_right, g.kw, g.stride_w);
  FloatTensor out{{in.n, in.c, oh, ow}, {}};
  out.data.resize(out.size());
  for (int nc = 0; nc < in.n * in.c; ++nc) {
    for (int y = 0; y < oh; ++y) {
      for (int xo = 0; xo < ow; ++xo) {
        double acc = is_max ? -std::numeric_limits<double>::infinity() : 0.0;
        int count = 0;
        for (int ky = 0; ky < g.kh; ++ky) {
          for (int kx = 0; kx < g.kw; ++kx) {
            const int iy = y * g.stride_h - g.pad_top + ky, ix = xo * g.stride_w - g.pad_left + kx;
            if (iy < 0 || iy >= in.h || ix < 0 || ix >= in.w) {
              continue;
            }
            const float v = x.data[(size_t(nc) * in.h + iy) * in.w + ix];
            acc = is_max ? std::max(acc, double(v)) : acc + v;
            ++count;
          }
        }
        if (!is_max) {
          acc /= g.count_include_pad ? g.kh * g.kw : std::max(count, 1);
        }
        out.data[(size_t(nc) * oh + y) * ow + xo] = float(acc);
      }
    }
  }
  return out;
}

FloatTensor global_avgpool(const FloatTensor& x) {
  const Nchw in = nchw(x);
  FloatTensor out{{in.n, in.c, 1, 1}, std::vector<float>(size_t(in.n) * in.c)};
  const size_t hw = size_t(in.h) * in.w;
  for (size_t nc = 0; nc < out.data.size(); ++nc) {
    double s = 0;
    for (size_t i = 0; i < hw; ++i) {
      s += x.data[nc * hw + i];
    }
    out.data[nc] = float(s / double(hw));
  }
  return out;
}

// y = x W^T + b on x flattened per sample (N x K).
void check_gemm_input(const GraphNode& g, const FloatTensor& x) {
  if (x.size() != size_t(x.dims[0]) * size_t(g.weight.dims[1])) {
    throw Error(fmt::format("node '{}': input {} does not have {} values per sample", g.name,
                            x.shape(), g.weight.dims[1]));
  }
}

FloatTensor gemm(const GraphNode& g, const FloatTensor& x) {
  const int n = x.dims[0], units = g.weight.dims[0], k = g.weight.dims[1];
  FloatTensor out{{n, units, 1, 1}, std::vector<float>(size_t(n) * units)};
  for (int i = 0; i < n; ++i) {
    for (int u = 0; u < units; ++u) {
      double acc = g.bias.data[size_t(u)];
      for (int j = 0; j < k; ++j) {
        acc += double(x.data[size_t(i) * k + j]) * g.weight.data[size_t(u) * k + j];
      }
      out.data[size_t(i) * units + u] = float(acc);
    }
  }
  return out;
}

FloatTensor concat(const GraphNode& g, const std::vector<const FloatTensor*>& xs) {
  const Nchw first = nchw(*xs[0]);
  int channels = 0;
  for (const FloatTensor* t : xs) {
    const Nchw s = nchw(*t);
    if (s.n != first.n || s.h != first.h || s.w != first.w) {
      throw Error(fmt::format("node '{}': Concat of {} and {} along the channels", g.name,
                              xs[0]->shape(), t->shape()));
    }
    channels += s.c;
  }
  FloatTensor out{{first.n, channels, first.h, first.w}, {}};
  for (int n = 0; n < first.n; ++n) {
    for (const FloatTensor* t : xs) {
      const size_t per = t->size() / size_t(first.n);
      out.data.insert(out.data.end(), t->data.begin() + long(n * per),
                      t->data.begin() + long((n + 1) * per));
    }
  }
  return out;
}

// a * b, b of a's shape or one value per sample and channel (a squeeze-and-excitation scale).
FloatTensor multiply(const FloatTensor& a, const FloatTensor& b) {
  FloatTensor out = a;
  const size_t per = b.size() == a.size() ? 1 : a.size() / std::max<size_t>(b.size(), 1);
  for (size_t i = 0; i < out.data.size(); ++i) {
    out.data[i] *= b.data[i / per];
  }
  return out;
}

FloatTensor elementwise(const GraphNode& g, const FloatTensor& a, const FloatTensor* b) {
  FloatTensor out = a;
  if (b && b->size() != a.size()) {
    throw Error(fmt::format("node '{}': {} of {} and {} (broadcasting is not supported)", g.name,
                            graph_op_name(g.op), a.shape(), b->shape()));
  }
  for (size_t i = 0; i < out.data.size(); ++i) {
    float& v = out.data[i];
    switch (g.op) {
      case GraphOp::kRelu:
        v = std::max(v, 0.0f);
        break;
      case GraphOp::kClip:
        v = std::clamp(v, g.clip_lo, g.clip_hi);
        break;
      case GraphOp::kHardSigmoid:
        v = float(std::clamp(double(g.alpha) * v + g.beta, 0.0, 1.0));
        break;
      case GraphOp::kSigmoid:
        v = float(1.0 / (1.0 + std::exp(-double(v))));
        break;
      case GraphOp::kTanh:
        v = float(std::tanh(double(v)));
        break;
      case GraphOp::kMin:  // of two activations, or of one and the constant clip_hi
        v = std::min(v, b ? b->data[i] : g.clip_hi);
        break;
      case GraphOp::kMax:
        v = std::max(v, b ? b->data[i] : g.clip_lo);
        break;
      default:
        v += b->data[i];
        break;
    }
  }
  return out;
}

ops::SliceBox slice_box_of(const GraphNode& g) {
  ops::SliceBox box;
  std::copy(g.slice_begin.begin(), g.slice_begin.end(), box.begin.begin());
  std::copy(g.slice_end.begin(), g.slice_end.end(), box.end.begin());
  return box;
}

// Slice and ChannelShuffle: the values moved by the index rules of the host operators.
FloatTensor move_values(const GraphNode& g, const FloatTensor& in) {
  const Nchw x = nchw(in);
  if (g.op == GraphOp::kChannelShuffle) {
    return {in.dims, ops::shuffle_channels(in.data, x.n, x.c, size_t(x.h) * size_t(x.w), g.groups)};
  }
  const ops::SliceBox box = slice_box_of(g);
  return {{x.n, box.end[0] - box.begin[0], box.end[1] - box.begin[1], box.end[2] - box.begin[2]},
          ops::slice_box(in.data, x.n, x.c, x.h, x.w, box)};
}

FloatTensor map_values(const FloatTensor& x, double (*f)(double, const GraphNode&),
                       const GraphNode& g) {
  FloatTensor out = x;
  for (float& v : out.data) {
    v = float(f(double(v), g));
  }
  return out;
}

FloatTensor permute(const GraphNode& g, const FloatTensor& x) {
  const Permutation perm{g.perm[0], g.perm[1], g.perm[2], g.perm[3]};
  FloatTensor out{permuted_dims(x.dims, perm), {}};
  for (size_t i : permutation_sources(x.dims, perm)) {
    out.data.push_back(x.data[i]);
  }
  return out;
}

// The operators of sequence models: float arithmetic and attention's data movement.
FloatTensor run_sequence_node(const GraphNode& g, const std::vector<const FloatTensor*>& in) {
  switch (g.op) {
    case GraphOp::kLayerNorm:
      return layer_norm(*in[0], g.axis, g.eps, g.weight.data, g.bias.data, g.l2);
    case GraphOp::kGelu:
      return map_values(
          *in[0], [](double v, const GraphNode&) { return gelu(v); }, g);
    case GraphOp::kScale:
      return scale(*in[0], g.alpha, g.beta, g.weight.data);
    case GraphOp::kSoftmax:
      return softmax(*in[0], g.axis);
    case GraphOp::kBatchMatMul:
      return batch_matmul(*in[0], *in[1]);
    case GraphOp::kView:
      return FloatTensor{g.to_dims, in[0]->data};
    case GraphOp::kAddConstant:
      return add_constant(*in[0], g.groups, g.prefix_rows, g.weight.data, g.bias.data);
    default:
      return permute(g, *in[0]);
  }
}

// Conv, the pools, Gemm and MatMul on the library's primitives; false for the other operators
// (and for a pool window that lies wholly in the padding, which the library refuses).
bool run_node_on_library(const GraphNode& g, const std::vector<const FloatTensor*>& in,
                         FloatTensor& out) {
#if VTA_HAVE_ONEDNN
  const FloatTensor& x = *in[0];
  const Nchw s = nchw(x);
  const int oh = window_out(s.h, g.pad_top, g.pad_bottom, g.kh, g.stride_h);
  const int ow = window_out(s.w, g.pad_left, g.pad_right, g.kw, g.stride_w);
  // A pool window wholly in the padding is refused by the library.
  const bool pad_in_window =
      g.pad_top < g.kh && g.pad_bottom < g.kh && g.pad_left < g.kw && g.pad_right < g.kw;
  const bool pool = g.op == GraphOp::kMaxPool || g.op == GraphOp::kAvgPool;
  return (!pool || pad_in_window) && onednn::run_node(g, in, oh, ow, out);
#else
  (void)g, (void)in, (void)out;
  return false;
#endif
}

FloatTensor run_node(const GraphNode& g, const std::vector<const FloatTensor*>& in) {
  if (is_sequence_op(g.op)) {
    return run_sequence_node(g, in);
  }
  switch (g.op) {
    case GraphOp::kSlice:
    case GraphOp::kChannelShuffle:
      return move_values(g, *in[0]);
    case GraphOp::kConv:
      return conv(g, *in[0]);
    case GraphOp::kMaxPool:
      return pool(g, *in[0], true);
    case GraphOp::kAvgPool:
      return pool(g, *in[0], false);
    case GraphOp::kGlobalAvgPool:
      return global_avgpool(*in[0]);
    case GraphOp::kGemm:
      return gemm(g, *in[0]);
    case GraphOp::kConcat:
      return concat(g, in);
    case GraphOp::kAdd:
    case GraphOp::kMin:
    case GraphOp::kMax:
      return elementwise(g, *in[0], in.size() > 1 ? in[1] : nullptr);
    case GraphOp::kMul:
      return in[1]->size() > in[0]->size() ? multiply(*in[1], *in[0]) : multiply(*in[0], *in[1]);
    default:
      return elementwise(g, *in[0], nullptr);
  }
}

// Slice: a box inside the input's C x H x W, not empty; ChannelShuffle: groups that divide the
// channels.
std::string data_movement_dims(const GraphNode& g, const std::vector<int>& d,
                               std::vector<int>& out) {
  if (g.op == GraphOp::kChannelShuffle) {
    return g.groups < 1 || d[1] % g.groups
               ? fmt::format("{} channels do not divide into {} groups", d[1], g.groups)
               : std::string();
  }
  for (size_t a = 0; a < 3; ++a) {
    const int b = g.slice_begin.at(a), e = g.slice_end.at(a);
    if (!ops::box_fits(b, e, d[a + 1])) {
      return fmt::format("the box {}..{} of dimension {} is empty or outside its size {}", b, e,
                         a + 1, d[a + 1]);
    }
    out[a + 1] = e - b;
  }
  return {};
}

}  // namespace

void check_float_tensor_size(const std::vector<int>& dims, const std::string& what) {
  uint64_t values = 1;
  for (int d : dims) {
    values *= static_cast<uint64_t>(std::max(d, 0));
    if (values > kMaxFloatTensorValues) {
      throw Error(fmt::format(
          "{} of {} values is larger than the limit of {} values ({} MiB of "
          "float32) for one tensor of the float model",
          what, fmt::join(dims, "x"), kMaxFloatTensorValues, (kMaxFloatTensorValues * 4) >> 20));
    }
  }
}

namespace {

// The output dims of the operators of sequence models (run_sequence_node).
std::string sequence_output_dims(const GraphNode& g, const std::vector<std::vector<int>>& in,
                                 std::vector<int>& out) {
  const std::vector<int>& d = in[0];
  if (g.op == GraphOp::kBatchMatMul) {
    return batch_matmul_dims(d, in[1], out);
  }
  if (g.op == GraphOp::kAddConstant) {
    return add_constant_dims(d, g.groups, g.prefix_rows, g.weight.data.size(), g.bias.data.size(),
                             out);
  }
  if (g.op == GraphOp::kView) {
    out = g.to_dims;
    const int64_t from = int64_t(d[0]) * d[1] * d[2] * d[3];
    const int64_t to = int64_t(out[0]) * out[1] * out[2] * out[3];
    return from == to ? std::string()
                      : fmt::format("{} values cannot be viewed as {}x{}x{}x{}", from, out[0],
                                    out[1], out[2], out[3]);
  }
  if (g.op == GraphOp::kPermute) {
    const Permutation perm{g.perm[0], g.perm[1], g.perm[2], g.perm[3]};
    if (std::string e = check_permutation(perm); !e.empty()) {
      return e;
    }
    out = permuted_dims(d, perm);
    return {};
  }
  if (g.op == GraphOp::kLayerNorm && !g.weight.data.empty() &&
      (g.weight.size() != size_t(d[size_t(g.axis)]) || g.bias.size() != g.weight.size())) {
    return fmt::format("gain of {} and bias of {} values for an axis of {}", g.weight.size(),
                       g.bias.size(), d[size_t(g.axis)]);
  }
  return {};
}

}  // namespace

bool is_sequence_op(GraphOp op) {
  return op == GraphOp::kLayerNorm || op == GraphOp::kGelu || op == GraphOp::kSoftmax ||
         op == GraphOp::kBatchMatMul || op == GraphOp::kScale || op == GraphOp::kView ||
         op == GraphOp::kPermute || op == GraphOp::kAddConstant;
}

namespace {

// Conv, MaxPool and AveragePool: the window formula, and a Conv's channels from its weight.
std::string window_output_dims(const GraphNode& g, const std::vector<int>& d,
                               std::vector<int>& out) {
  if (g.kh > d[2] + g.pad_top + g.pad_bottom || g.kw > d[3] + g.pad_left + g.pad_right) {
    return fmt::format("kernel {}x{} is larger than the padded input {}x{}", g.kh, g.kw, d[2],
                       d[3]);
  }
  out[2] = window_out(d[2], g.pad_top, g.pad_bottom, g.kh, g.stride_h);
  out[3] = window_out(d[3], g.pad_left, g.pad_right, g.kw, g.stride_w);
  if (g.op == GraphOp::kConv) {
    if (g.weight.dims[1] * g.groups != d[1]) {
      return fmt::format("input has {} channels but the weight {} with {} group(s) needs {}", d[1],
                         g.weight.shape(), g.groups, g.weight.dims[1] * g.groups);
    }
    out[1] = g.weight.dims[0];
  }
  return {};
}

// Mul: the same shape, or one operand with one value per sample and channel.
std::string mul_output_dims(const std::vector<std::vector<int>>& in, std::vector<int>& out) {
  const std::vector<int>& d = in[0];
  const std::vector<int>& big = in[1][2] * in[1][3] > d[2] * d[3] ? in[1] : d;
  const std::vector<int>& small = &big == &d ? in[1] : d;
  const bool per_channel =
      small[0] == big[0] && small[1] == big[1] && small[2] == 1 && small[3] == 1;
  if (small != big && !per_channel) {
    return fmt::format(
        "operands of shapes {}x{}x{}x{} and {}x{}x{}x{} do not fit (the same "
        "shape, or one value per sample and channel)",
        d[0], d[1], d[2], d[3], in[1][0], in[1][1], in[1][2], in[1][3]);
  }
  out = big;
  return {};
}

// Add, Min, Max (the same shapes) and Concat (the same but for the channels, which add up).
std::string add_concat_output_dims(const GraphNode& g, const std::vector<std::vector<int>>& in,
                                   std::vector<int>& out) {
  const std::vector<int>& d = in[0];
  for (const std::vector<int>& o : in) {
    const bool same =
        g.op != GraphOp::kConcat ? o == d : (o[0] == d[0] && o[2] == d[2] && o[3] == d[3]);
    if (!same) {
      return fmt::format(
          "operands of shapes {}x{}x{}x{} and {}x{}x{}x{} do not fit (no "
          "broadcasting)",
          d[0], d[1], d[2], d[3], o[0], o[1], o[2], o[3]);
    }
  }
  if (g.op == GraphOp::kConcat) {
    out[1] = 0;
    for (const std::vector<int>& o : in) {
      out[1] += o[1];
    }
  }
  return {};
}

}  // namespace

std::string node_output_dims(const GraphNode& g, const std::vector<std::vector<int>>& in,
                             std::vector<int>& out) {
  const std::vector<int>& d = in[0];
  out = d;
  if (is_sequence_op(g.op)) {
    return sequence_output_dims(g, in, out);
  }
  if (g.op == GraphOp::kConv || g.op == GraphOp::kMaxPool || g.op == GraphOp::kAvgPool) {
    return window_output_dims(g, d, out);
  }
  if (g.op == GraphOp::kGlobalAvgPool) {
    out[2] = out[3] = 1;
  } else if (g.op == GraphOp::kSlice || g.op == GraphOp::kChannelShuffle) {
    return data_movement_dims(g, d, out);
  } else if (g.op == GraphOp::kGemm) {
    if (int64_t(d[1]) * d[2] * d[3] != g.weight.dims[1]) {
      return fmt::format("input {}x{}x{} has {} values per sample but the weight {} needs {}", d[1],
                         d[2], d[3], int64_t(d[1]) * d[2] * d[3], g.weight.shape(),
                         g.weight.dims[1]);
    }
    out = {d[0], g.weight.dims[0], 1, 1};
  } else if (g.op == GraphOp::kMul) {
    return mul_output_dims(in, out);
  } else if (g.op == GraphOp::kAdd || g.op == GraphOp::kConcat || g.op == GraphOp::kMin ||
             g.op == GraphOp::kMax) {
    return add_concat_output_dims(g, in, out);
  }
  return {};
}

std::map<std::string, std::vector<int>> FloatGraph::infer_shapes(const std::string& source) const {
  std::map<std::string, std::vector<int>> dims{{input, input_dims}};
  for (const GraphNode& g : nodes) {
    std::vector<std::vector<int>> in;
    for (const std::string& tensor : g.inputs) {
      auto it = dims.find(tensor);
      if (it == dims.end()) {
        throw Error(
            fmt::format("{}: node '{}' ({}) reads tensor '{}' that no earlier node "
                        "produces",
                        source, g.name, graph_op_name(g.op), tensor));
      }
      in.push_back(it->second);
    }
    std::vector<int> out;
    if (std::string e = node_output_dims(g, in, out); !e.empty()) {
      throw Error(fmt::format("{}: node '{}' ({}): {}", source, g.name, graph_op_name(g.op), e));
    }
    check_float_tensor_size(
        out, fmt::format("{}: node '{}' ({}) output", source, g.name, graph_op_name(g.op)));
    dims[g.output] = out;
  }
  if (!dims.count(output)) {
    throw Error(fmt::format("{}: no node produces the graph output '{}'", source, output));
  }
  return dims;
}

std::map<std::string, uint64_t> FloatGraph::node_macs() const {
  const auto dims = infer_shapes(name);
  std::map<std::string, uint64_t> macs;
  for (const GraphNode& g : nodes) {
    const std::vector<int>& o = dims.at(g.output);
    uint64_t m = 0;
    if (g.op == GraphOp::kConv) {
      m = uint64_t(o[0]) * o[1] * o[2] * o[3] * uint64_t(g.weight.dims[1]) * g.kh * g.kw;
    } else if (g.op == GraphOp::kGemm) {
      m = uint64_t(o[0]) * g.weight.dims[0] * g.weight.dims[1];
    } else if (g.op == GraphOp::kBatchMatMul) {
      m = uint64_t(o[0]) * o[1] * o[2] * o[3] * uint64_t(dims.at(g.inputs[0])[3]);
    }
    macs[g.name] = m;
  }
  return macs;
}

bool float_library_available() {
  return VTA_HAVE_ONEDNN != 0;
}

std::map<std::string, FloatTensor> run_float(const FloatGraph& g, const FloatTensor& input,
                                             FloatKernels kernels) {
  Tensors t;
  t[g.input] = input;
  for (const GraphNode& node : g.nodes) {
    std::vector<const FloatTensor*> in;
    for (const std::string& name : node.inputs) {
      auto it = t.find(name);
      if (it == t.end()) {
        throw Error(fmt::format("node '{}' reads tensor '{}' that no earlier node produces",
                                node.name, name));
      }
      in.push_back(&it->second);
    }
    if (node.op == GraphOp::kGemm) {
      check_gemm_input(node, *in[0]);
    }
    FloatTensor& out = t[node.output];
    if (kernels == FloatKernels::kPlain || !run_node_on_library(node, in, out)) {
      out = run_node(node, in);
    }
  }
  return t;
}

}  // namespace vta::compiler
