// The float interpreter's heavy operators (run_float's convolution, pools and matrix products)
// on oneDNN's CPU primitives (Debian's libdnnl): JIT kernels for the host's vector unit in place
// of plain loops, so that calibrating a ResNet-50 takes seconds rather than minutes. Built when
// CMake's VTA_ONEDNN is ON (VTA_HAVE_ONEDNN); float_graph.cc keeps the plain loops as the
// reference they are checked against (FloatKernels::kPlain).
//
// Every tensor is row-major NCHW in and out (FloatTensor); a primitive reorders to its preferred
// layout and back. Results equal the plain loops' within float rounding (float accumulation in
// the library's order against double in the loops').
#pragma once

#include "vta/compiler/frontend/float_graph.h"

namespace vta::compiler::onednn {

// Conv of node g (any groups, strides, padding) on x, out dims N x K x oh x ow.
FloatTensor conv(const GraphNode& g, const FloatTensor& x, int oh, int ow);

// MaxPool (max over the real pixels) or AveragePool (count_include_pad chooses the divisor).
FloatTensor pool(const GraphNode& g, const FloatTensor& x, bool is_max, int oh, int ow);

// Gemm of node g: y = x W^T + b, x N x K (flattened per sample), W units x K.
FloatTensor dense(const GraphNode& g, const FloatTensor& x);

// Per (n, c) plane, a's M x K matrix times b's K x P (float_math.h's batch_matmul).
FloatTensor batch_matmul(const FloatTensor& a, const FloatTensor& b);

}  // namespace vta::compiler::onednn
