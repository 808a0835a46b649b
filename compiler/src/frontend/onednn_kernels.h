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

#include <vector>

#include "vta/compiler/frontend/float_graph.h"

namespace vta::compiler::onednn {

// Node g (Conv of any groups, strides and padding; MaxPool, AveragePool; Gemm: y = x W^T + b;
// MatMul of two activations) on `in` into `out` (a window's output oh x ow); false for another
// operator or a shape the library has no primitive for (the caller's plain loops compute it).
bool run_node(const GraphNode& g, const std::vector<const FloatTensor*>& in, int oh, int ow,
              FloatTensor& out);

}  // namespace vta::compiler::onednn
