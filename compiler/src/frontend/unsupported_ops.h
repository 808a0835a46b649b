// The import's first check: every node of an ONNX graph whose operator the importer has no
// implementation for, found all at once. Nodes that together are a known decomposition of one
// operator (torch exports GELU as Div, Erf, Add, Mul; LayerNorm as ReduceMean, Sub, Pow, ...)
// are reported as that operator, at the scope that holds them.
#pragma once

#include <functional>
#include <set>
#include <string>

#include <onnx/onnx_pb.h>

namespace vta::compiler {

// The error text listing every unsupported operator of `g` (count and first node) and every
// decomposition that holds one; empty when the importer handles every node.
// `supported(op_type)` tells whether the importer implements an operator of the default domain;
// the nodes in `fused` are implemented as part of a whole operator (a decomposition it imports
// as one node).
std::string unsupported_operators(const onnx::GraphProto& g,
                                  const std::function<bool(const std::string&)>& supported,
                                  const std::set<int>& fused);

}  // namespace vta::compiler
