// The arithmetic of the operators that compute in float on the host (layer_norm, gelu, softmax)
// and the shape rules of the data-movement and matrix operators of attention (view, permute,
// batch_matmul, add_constant), written once: the float graph's interpreter (run_float) and the
// operator table's int8 host execution (dequantize, compute, quantize) both call them. Every tensor
// is the NCHW view of its value (float_graph.h: nchw_view); an axis is an axis of that view.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <vector>

#include "vta/compiler/frontend/float_graph.h"

namespace vta::compiler {

// 0.5 x (1 + erf(x / sqrt 2)): GELU, exact (erf) form.
double gelu(double x);

// Normalises x over `axis` (1 or 3): (x - mean) / sqrt(var + eps) * gain + bias, gain and bias
// one value per position along the axis (empty: 1 and 0); `l2`: x / max(||x||_2, eps) * gain +
// bias instead (torch's F.normalize: Swin v2's cosine attention).
FloatTensor layer_norm(const FloatTensor& x, int axis, double eps, const std::vector<float>& gain,
                       const std::vector<float>& bias, bool l2 = false);

// x * alpha + beta, alpha per channel (axis 1 of the NCHW view: Swin v2's logit scale of each
// attention head) when `channel_alpha` holds one value per channel, else the scalar `alpha`.
FloatTensor scale(const FloatTensor& x, double alpha, double beta,
                  const std::vector<float>& channel_alpha);

// exp(x - max) / sum over `axis` (1..3).
FloatTensor softmax(const FloatTensor& x, int axis);

// Per sample n and channel c, the matrix product of the H x W planes: A (N x C x M x K) times
// B (N x C x K x P) is N x C x M x P. Accumulates in double.
FloatTensor batch_matmul(const FloatTensor& a, const FloatTensor& b);
// Its output dims; an error text when the operands do not fit.
std::string batch_matmul_dims(const std::vector<int>& a, const std::vector<int>& b,
                              std::vector<int>& out);

// Constants joined to x (add_constant): `rows` constant rows put before each of the
// `sequences` sequences of x (x the view (N*S) x C x 1 x 1; `prefix` holds sequences x rows x C
// values, in order), then `addend` added (one value per output element; empty: nothing).
FloatTensor add_constant(const FloatTensor& x, int sequences, int rows,
                         const std::vector<float>& prefix, const std::vector<float>& addend);
// Its output dims; an error text when the sizes do not fit.
std::string add_constant_dims(const std::vector<int>& x, int sequences, int rows, size_t prefix,
                              size_t addend, std::vector<int>& out);

// The axis permutation of a 4-D value: out dims[i] = in dims[perm[i]].
using Permutation = std::array<int, 4>;
std::vector<int> permuted_dims(const std::vector<int>& dims, const Permutation& perm);
// For each output element (row-major), the index of the input element it copies.
std::vector<size_t> permutation_sources(const std::vector<int>& dims, const Permutation& perm);
// An error text for a `perm` that is not a permutation of 0..3.
std::string check_permutation(const Permutation& perm);

}  // namespace vta::compiler
