// Shape arithmetic at import: the ONNX nodes whose outputs the importer computes once instead of
// importing them, as torch exports the targets of its reshapes (x.view(x.size(0), -1), the
// channel shuffle) and the bounds of its chunks: Shape of a tensor (every shape is static),
// and Identity (torch shares equal initializers through Identity nodes), Gather, Unsqueeze,
// Squeeze, Concat, Cast, Slice, Add, Sub, Mul, Div, Mod, Pow and Not of constants (Swin's
// window padding and attention scale), and the class token's
// expansion to the batch (ConstantOfShape, Equal, Where, Expand of constants), and Swin's
// shifted-window attention mask (Range, index grids broadcast and stacked into the tuples of a
// ScatterND, the regions' differences turned into 0 / -100 by Equal, Not and Where); a bool
// (Equal's result) is held as an integer 1 or 0. Integer constants (shapes, indices, axes) are
// held flat, as the rank 0 and 1 values of shape arithmetic are, with their dims recorded when a
// fold made them of rank 2 or more (an index grid); float constants keep their dims.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

#include "vta/compiler/frontend/float_graph.h"

namespace vta::compiler {

// Whether the importer computes the outputs of an `op_type` node itself, given whether every
// input of the node is a constant (Shape needs none: its input's shape is known).
bool folds_at_import(const std::string& op_type, bool inputs_constant);

// The importer's constants by tensor name. `int_dims` (when given) holds the dims of the integer
// constants of rank 2 and more that a fold made (a Reshape of torch's pad list); the others are
// flat.
struct ImportConstants {
  std::map<std::string, FloatTensor>& floats;
  std::map<std::string, std::vector<int64_t>>& ints;
  std::map<std::string, std::vector<int64_t>>* int_dims = nullptr;
};

// Computes the outputs of node `n` (one folds_at_import accepts) into `c`; `input_shape` is
// the shape of its first input (what Shape returns). An error text for inputs it cannot
// compute (a float index, a division by zero, values of different types), else "".
std::string fold_constant_node(const onnx::NodeProto& n, const std::vector<int64_t>& input_shape,
                               ImportConstants c);

}  // namespace vta::compiler
