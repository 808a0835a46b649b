#include "vta/compiler/ops/float_math.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace vta::compiler {

namespace {

// A 4-D value as outer x len x inner around `axis`: element (o, i, in) is at
// (o * len + i) * inner + in.
struct AxisSplit {
  size_t outer = 1, len = 1, inner = 1;
};

AxisSplit split_at(const std::vector<int>& dims, int axis) {
  AxisSplit s;
  for (int d = 0; d < int(dims.size()); ++d) {
    size_t& part = d < axis ? s.outer : d == axis ? s.len : s.inner;
    part *= size_t(dims[size_t(d)]);
  }
  return s;
}

}  // namespace

FloatTensor scale(const FloatTensor& x, double alpha, double beta,
                  const std::vector<float>& channel_alpha) {
  FloatTensor out = x;
  const size_t c = x.dims.size() > 1 ? size_t(x.dims[1]) : 1;
  const size_t plane = channel_alpha.empty() ? 1 : x.size() / (size_t(x.dims[0]) * c);
  for (size_t i = 0; i < out.data.size(); ++i) {
    const double a = channel_alpha.empty() ? alpha : double(channel_alpha[(i / plane) % c]);
    out.data[i] = float(double(x.data[i]) * a + beta);
  }
  return out;
}

double gelu(double x) {
  return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
}

FloatTensor layer_norm(const FloatTensor& x, int axis, double eps, const std::vector<float>& gain,
                       const std::vector<float>& bias, bool l2) {
  const AxisSplit s = split_at(x.dims, axis);
  FloatTensor out = x;
  for (size_t o = 0; o < s.outer; ++o) {
    for (size_t in = 0; in < s.inner; ++in) {
      auto at = [&](size_t i) { return (o * s.len + i) * s.inner + in; };
      double mean = 0, var = 0;
      for (size_t i = 0; i < s.len; ++i) {
        mean += x.data[at(i)];
      }
      mean = l2 ? 0.0 : mean / double(s.len);
      for (size_t i = 0; i < s.len; ++i) {
        var += (x.data[at(i)] - mean) * (x.data[at(i)] - mean);
      }
      // L2: x / max(||x||, eps) (torch's F.normalize); else (x - mean) / sqrt(var + eps).
      const double inv =
          l2 ? 1.0 / std::max(std::sqrt(var), eps) : 1.0 / std::sqrt(var / double(s.len) + eps);
      for (size_t i = 0; i < s.len; ++i) {
        const double g = gain.empty() ? 1.0 : gain[i], b = bias.empty() ? 0.0 : bias[i];
        out.data[at(i)] = float((x.data[at(i)] - mean) * inv * g + b);
      }
    }
  }
  return out;
}

std::string add_constant_dims(const std::vector<int>& x, int sequences, int rows, size_t prefix,
                              size_t addend, std::vector<int>& out) {
  out = x;
  if (rows > 0) {
    if (sequences < 1 || x[0] % sequences || x[2] != 1 || x[3] != 1) {
      return fmt::format("{}x{}x{}x{} is not {} sequences of rows (N*S x C x 1 x 1)", x[0], x[1],
                         x[2], x[3], sequences);
    }
    if (prefix != size_t(sequences) * size_t(rows) * size_t(x[1])) {
      return fmt::format("{} prefix values for {} sequences of {} rows of {}", prefix, sequences,
                         rows, x[1]);
    }
    out[0] += sequences * rows;
  }
  const size_t size = size_t(out[0]) * size_t(out[1]) * size_t(out[2]) * size_t(out[3]);
  if (addend && addend != size) {
    return fmt::format("{} values to add to {}", addend, size);
  }
  return {};
}

FloatTensor add_constant(const FloatTensor& x, int sequences, int rows,
                         const std::vector<float>& prefix, const std::vector<float>& addend) {
  FloatTensor out{x.dims, {}};
  if (rows > 0) {
    const size_t c = size_t(x.dims[1]), per = size_t(x.dims[0] / sequences) * c;
    out.dims[0] += sequences * rows;
    for (size_t s = 0; s < size_t(sequences); ++s) {
      const auto p = prefix.begin() + long(s * size_t(rows) * c);
      out.data.insert(out.data.end(), p, p + long(size_t(rows) * c));
      const auto v = x.data.begin() + long(s * per);
      out.data.insert(out.data.end(), v, v + long(per));
    }
  } else {
    out.data = x.data;
  }
  for (size_t i = 0; i < addend.size() && i < out.data.size(); ++i) {
    out.data[i] += addend[i];
  }
  return out;
}

FloatTensor softmax(const FloatTensor& x, int axis) {
  const AxisSplit s = split_at(x.dims, axis);
  FloatTensor out = x;
  for (size_t o = 0; o < s.outer; ++o) {
    for (size_t in = 0; in < s.inner; ++in) {
      auto at = [&](size_t i) { return (o * s.len + i) * s.inner + in; };
      double top = x.data[at(0)], sum = 0;
      for (size_t i = 1; i < s.len; ++i) {
        top = std::max(top, double(x.data[at(i)]));
      }
      for (size_t i = 0; i < s.len; ++i) {
        sum += std::exp(x.data[at(i)] - top);
      }
      for (size_t i = 0; i < s.len; ++i) {
        out.data[at(i)] = float(std::exp(x.data[at(i)] - top) / sum);
      }
    }
  }
  return out;
}

std::string batch_matmul_dims(const std::vector<int>& a, const std::vector<int>& b,
                              std::vector<int>& out) {
  if (a[0] != b[0] || a[1] != b[1] || a[3] != b[2]) {
    return fmt::format(
        "operands {}x{}x{}x{} and {}x{}x{}x{} do not multiply (N x C x M x K times N x C x K x "
        "P)",
        a[0], a[1], a[2], a[3], b[0], b[1], b[2], b[3]);
  }
  out = {a[0], a[1], a[2], b[3]};
  return {};
}

FloatTensor batch_matmul(const FloatTensor& a, const FloatTensor& b) {
  const size_t m = size_t(a.dims[2]), k = size_t(a.dims[3]), p = size_t(b.dims[3]);
  const size_t planes = size_t(a.dims[0]) * size_t(a.dims[1]);
  FloatTensor out{{a.dims[0], a.dims[1], a.dims[2], b.dims[3]}, {}};
  out.data.resize(out.size());
  for (size_t pl = 0; pl < planes; ++pl) {
    for (size_t i = 0; i < m; ++i) {
      for (size_t j = 0; j < p; ++j) {
        double acc = 0;
        for (size_t t = 0; t < k; ++t) {
          acc += double(a.data[(pl * m + i) * k + t]) * b.data[(pl * k + t) * p + j];
        }
        out.data[(pl * m + i) * p + j] = float(acc);
      }
    }
  }
  return out;
}

std::vector<int> permuted_dims(const std::vector<int>& dims, const Permutation& perm) {
  std::vector<int> out(4);
  for (size_t i = 0; i < 4; ++i) {
    out[i] = dims[size_t(perm[i])];
  }
  return out;
}

std::vector<size_t> permutation_sources(const std::vector<int>& dims, const Permutation& perm) {
  // The input's strides, read in the output's axis order.
  const size_t in_stride[4] = {size_t(dims[1]) * size_t(dims[2]) * size_t(dims[3]),
                               size_t(dims[2]) * size_t(dims[3]), size_t(dims[3]), 1};
  const std::vector<int> od = permuted_dims(dims, perm);
  std::vector<size_t> src;
  src.reserve(size_t(od[0]) * size_t(od[1]) * size_t(od[2]) * size_t(od[3]));
  for (int i0 = 0; i0 < od[0]; ++i0) {
    for (int i1 = 0; i1 < od[1]; ++i1) {
      for (int i2 = 0; i2 < od[2]; ++i2) {
        for (int i3 = 0; i3 < od[3]; ++i3) {
          src.push_back(size_t(i0) * in_stride[perm[0]] + size_t(i1) * in_stride[perm[1]] +
                        size_t(i2) * in_stride[perm[2]] + size_t(i3) * in_stride[perm[3]]);
        }
      }
    }
  }
  return src;
}

std::string check_permutation(const Permutation& perm) {
  Permutation sorted = perm;
  std::sort(sorted.begin(), sorted.end());
  if (sorted != Permutation{0, 1, 2, 3}) {
    return fmt::format("perm ({}, {}, {}, {}) is not a permutation of the 4 axes", perm[0], perm[1],
                       perm[2], perm[3]);
  }
  return {};
}

}  // namespace vta::compiler
