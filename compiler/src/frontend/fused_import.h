// The decompositions (decompositions.h) the importer implements, each as one float-graph node:
// GELU (its constants checked: x / sqrt 2, + 1, * x, * 0.5), LayerNormalization (the mean
// and variance over one axis, eps a constant, the gain and bias constants or absent) and L2
// normalisation (a LayerNorm node in its L2 form, eps the Clip's lower bound). A match
// whose constants differ, or whose inner values are read outside it, is left as its nodes
// (and reported by the check of unsupported operators by what it was).
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

#include "vta/compiler/frontend/float_graph.h"

namespace vta::compiler {

struct FusedOperator {
  std::set<int> nodes;  // every node of the decomposition
  int output_node = 0;  // the node whose output is the operator's
  // kGelu or kLayerNorm with its attributes; inputs: the activation; output: the output node's.
  // LayerNorm's `axis` is the model's axis (negative from the end), not yet the view's.
  GraphNode node;
};

std::vector<FusedOperator> fused_operators(const onnx::GraphProto& g,
                                           const std::map<std::string, FloatTensor>& constants);

}  // namespace vta::compiler
