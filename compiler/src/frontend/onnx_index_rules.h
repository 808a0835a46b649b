// ONNX's rules for indices and shapes, written once for the constants the importer computes
// (constant_folding) and for the activations it imports (onnx_import): negative axes and
// indices count from the end, Slice clamps its bounds to the dimension, Reshape's 0 copies a
// dimension and its -1 takes what is left, Split without sizes cuts equal parts.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace vta::compiler {

using OnnxShape = std::vector<int64_t>;

// "1x24x8x8" ("scalar" for no dims).
std::string shape_text(const OnnxShape& s);

// `axis` (negative: from the end) as 0..rank-1; false when outside [-rank, rank).
bool normalize_axis(int64_t& axis, size_t rank);

// The elements Slice takes of a dimension of size `dim`: start, end and step (not 0) clamped
// as ONNX does; `count` is how many (0 for none).
struct SliceRange {
  int64_t start = 0, step = 1, count = 0;
};
SliceRange slice_range(int64_t dim, int64_t start, int64_t end, int64_t step);

// Reshape's `target` for an input of shape `in`: 0 copies the input's dimension (unless
// `allowzero`), one -1 takes the values left. An error text when it does not fit, else "".
std::string reshape_target(const OnnxShape& in, const std::vector<int64_t>& target, bool allowzero,
                           OnnxShape& out);

// The sizes of Split's `outputs` parts of a dimension of size `dim`: `split` when given, else
// equal parts (the last one smaller when they do not divide, as opset 18 allows). An error text
// when they do not fit, else "".
std::string split_sizes(int64_t dim, const std::vector<int64_t>& split, int outputs,
                        std::vector<int64_t>& sizes);

}  // namespace vta::compiler
