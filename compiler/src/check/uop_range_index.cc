#include "check/uop_range_index.h"

#include <algorithm>

namespace vta::compiler {

UopRangeIndex::UopRangeIndex(size_t depth) : m_depth(depth), m_tree(2 * depth) {}

UopExtremes UopRangeIndex::join(const UopExtremes& a, const UopExtremes& b) {
  UopExtremes j;
  for (size_t k = 0; k < 3; ++k) {
    j.min[k] = std::min(a.min[k], b.min[k]);
    j.max[k] = std::max(a.max[k], b.max[k]);
  }
  return j;
}

void UopRangeIndex::set(size_t index, const Uop& u) {
  size_t k = m_depth + index;
  m_tree[k].min = m_tree[k].max = {u.dst_idx, u.src_idx, u.wgt_idx};
  for (k /= 2; k >= 1; k /= 2) {
    m_tree[k] = join(m_tree[2 * k], m_tree[2 * k + 1]);
  }
}

// The usual bottom-up walk over a tree of any size: each level contributes the unpaired node
// at either end of the range.
std::optional<UopExtremes> UopRangeIndex::extremes(size_t bgn, size_t end) const {
  end = std::min(end, m_depth);
  if (bgn >= end) {
    return std::nullopt;
  }
  std::optional<UopExtremes> r;
  const auto take = [&](size_t k) { r = r ? join(*r, m_tree[k]) : m_tree[k]; };
  for (size_t lo = bgn + m_depth, hi = end + m_depth; lo < hi; lo /= 2, hi /= 2) {
    if (lo & 1) {
      take(lo++);
    }
    if (hi & 1) {
      take(--hi);
    }
  }
  return r;
}

}  // namespace vta::compiler
