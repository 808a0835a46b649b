#include "frontend/onnx_index_rules.h"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace vta::compiler {

std::string shape_text(const OnnxShape& s) {
  return s.empty() ? std::string("scalar") : fmt::format("{}", fmt::join(s, "x"));
}

bool normalize_axis(int64_t& axis, size_t rank) {
  const int64_t r = int64_t(rank);
  if (axis < -r || axis >= r) {
    return false;
  }
  axis = axis < 0 ? axis + r : axis;
  return true;
}

SliceRange slice_range(int64_t dim, int64_t start, int64_t end, int64_t step) {
  // Negative bounds count from the end; then clamped to the elements a step can reach. The
  // counts are ceil(distance / |step|), written so that no step overflows them.
  start = start < 0 ? start + dim : start;
  end = end < 0 ? end + dim : end;
  SliceRange r;
  r.step = step;
  if (dim < 1) {
    return r;
  }
  if (step > 0) {
    r.start = std::clamp<int64_t>(start, 0, dim);
    end = std::clamp<int64_t>(end, 0, dim);
    r.count = end > r.start ? (end - r.start - 1) / step + 1 : 0;
  } else {
    r.start = std::clamp<int64_t>(start, 0, dim - 1);
    end = std::clamp<int64_t>(end, -1, dim - 1);
    const int64_t stride = step == INT64_MIN ? INT64_MAX : -step;
    r.count = r.start > end ? (r.start - end - 1) / stride + 1 : 0;
  }
  return r;
}

std::string reshape_target(const OnnxShape& in, const std::vector<int64_t>& target, bool allowzero,
                           OnnxShape& out) {
  int64_t total = 1, known = 1;
  for (int64_t d : in) {
    total *= d;
  }
  out.clear();
  size_t infer = target.size();
  for (size_t i = 0; i < target.size(); ++i) {
    int64_t d = target[i];
    if (d == 0 && !allowzero) {
      if (i >= in.size()) {
        return fmt::format("entry {} is 0 (copy) but the input {} has no dimension {}", i,
                           shape_text(in), i);
      }
      d = in[i];
    }
    if (d == -1 && infer == target.size()) {
      infer = i;
    } else if (d < 0 || (d > 0 && known > total / d)) {  // the second: more than the input
      return fmt::format(
          "entry {} is {}: the shape [{}] does not fit the {} values of the input "
          "{}",
          i, target[i], fmt::join(target, ", "), total, shape_text(in));
    } else {
      known *= d;
    }
    out.push_back(d);
  }
  if (infer < target.size() && known > 0 && total % known == 0) {
    out[infer] = total / known;
    known = total;
  }
  if (known != total) {
    return fmt::format("the shape [{}] does not hold the {} values of the input {}",
                       fmt::join(target, ", "), total, shape_text(in));
  }
  return {};
}

std::string split_sizes(int64_t dim, const std::vector<int64_t>& split, int outputs,
                        std::vector<int64_t>& sizes) {
  if (!split.empty()) {
    int64_t sum = 0;
    for (int64_t s : split) {
      sum += std::clamp<int64_t>(s, -1, dim + 1);  // out of range either way; never overflows
    }
    if (int(split.size()) != outputs || sum != dim ||
        *std::min_element(split.begin(), split.end()) < 0) {
      return fmt::format("the split [{}] does not cut the dimension of {} into {} parts",
                         fmt::join(split, ", "), dim, outputs);
    }
    sizes = split;
    return {};
  }
  if (outputs < 1 || dim < outputs) {
    return fmt::format("the dimension of {} does not split into {} parts", dim, outputs);
  }
  const int64_t part = (dim + outputs - 1) / outputs;
  sizes.clear();
  for (int i = 0; i < outputs; ++i) {
    sizes.push_back(std::min(part, dim - part * i));
  }
  if (sizes.back() < 1) {
    return fmt::format("the dimension of {} does not split into {} parts", dim, outputs);
  }
  return {};
}

}  // namespace vta::compiler
