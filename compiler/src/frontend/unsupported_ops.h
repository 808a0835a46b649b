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

// What the importer does with a node of the default domain: nothing (unsupported), import it
// into the float graph, or compute its outputs as constants (shape arithmetic).
enum class NodeSupport { kUnsupported, kImported, kFolded };
// The importer's answer for an operator, given whether every input of the node is a constant.
using SupportRule = std::function<NodeSupport(const std::string& op_type, bool inputs_constant)>;

// The error text listing every unsupported operator of `g` (count and first node) and every
// decomposition that holds one; empty when the importer handles every node. The nodes in `fused`
// are implemented as part of a whole operator (a decomposition it imports as one node). The
// constants are followed from the initializers through the nodes the rule folds, so an operator
// the importer only computes on constants (Gather of a shape) is listed where it reads an
// activation.
std::string unsupported_operators(const onnx::GraphProto& g, const SupportRule& support,
                                  const std::set<int>& fused);

}  // namespace vta::compiler
