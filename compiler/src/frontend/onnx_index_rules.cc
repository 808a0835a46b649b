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
  // Negative bounds count from the end; then clamped to the elements a step can reach.
  start = start < 0 ? start + dim : start;
  end = end < 0 ? end + dim : end;
  SliceRange r;
  r.step = step;
  if (step > 0) {
    r.start = std::clamp<int64_t>(start, 0, dim);
    end = std::clamp<int64_t>(end, 0, dim);
    r.count = end > r.start ? (end - r.start + step - 1) / step : 0;
  } else {
    r.start = std::clamp<int64_t>(start, 0, dim - 1);
    end = std::clamp<int64_t>(end, -1, dim - 1);
    r.count = r.start > end ? (r.start - end - step - 1) / -step : 0;
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
    } else if (d < 0) {
      return fmt::format("entry {} is {}", i, target[i]);
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
      sum += s;
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
