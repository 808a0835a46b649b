// ONNX import (libonnx-dev's protobuf classes): reads a model file into the front end's float
// graph (float_graph.h). Supported operators: Conv (any group count), BatchNormalization
// (folded into the Conv before it), Relu, Clip, Add, Mul, Sigmoid, HardSigmoid, Pad, MaxPool,
// AveragePool, GlobalAveragePool, ReduceMean (over H and W), Gemm, MatMul, Concat (channels),
// Identity, Dropout, Constant; the operators that only move values where they keep an NCHW
// meaning (Flatten / Reshape to N x rest, the Reshape, Transpose, Reshape of a channel shuffle,
// Slice and Split of C, H or W); shape arithmetic on constants (Shape, Gather, Unsqueeze,
// Squeeze, Concat, Cast, Slice, Add, Sub, Mul, Div), computed at import; and QuantizeLinear /
// DequantizeLinear of QDQ-form graphs with power-of-two scales (their exponents in
// FloatGraph::fixed_exponents).
// Every error names the file and the node (or tensor): an unsupported operator
// ("unsupported operator 'X' at node 'Y'"), a dynamic input dimension, a file that does not
// parse (bad or truncated), a weight tensor whose size does not match its dims or its use, an
// attribute out of range.
#pragma once

#include <string>

#include "vta/compiler/frontend/float_graph.h"

namespace vta::compiler {

// True when the build has ONNX support (CMake option VTA_ONNX).
bool onnx_import_available();

// Reads `path`; throws vta::Error.
FloatGraph import_onnx(const std::string& path);

}  // namespace vta::compiler
