#include "check/interval_counter.h"

#include <algorithm>
#include <utility>

namespace vta::compiler {

IntervalCounter::IntervalCounter(std::vector<int64_t> coords) : m_coords(std::move(coords)) {
  std::sort(m_coords.begin(), m_coords.end());
  m_coords.erase(std::unique(m_coords.begin(), m_coords.end()), m_coords.end());
  m_lo.tree.assign(m_coords.size() + 1, 0);
  m_hi.tree.assign(m_coords.size() + 1, 0);
}

void IntervalCounter::Counts::add(size_t index, int64_t delta) {
  for (size_t k = index + 1; k < tree.size(); k += k & (~k + 1)) {
    tree[k] += delta;
  }
}

int64_t IntervalCounter::Counts::below(size_t k) const {
  int64_t sum = 0;
  for (; k > 0; k -= k & (~k + 1)) {
    sum += tree[k];
  }
  return sum;
}

size_t IntervalCounter::index_of(int64_t v) const {
  return static_cast<size_t>(std::lower_bound(m_coords.begin(), m_coords.end(), v) -
                             m_coords.begin());
}

void IntervalCounter::add(const Interval& iv, int delta) {
  m_lo.add(index_of(iv.lo), delta);
  m_hi.add(index_of(iv.hi), delta);
  m_size += delta;
}

// A member misses q exactly when it lies wholly after q (lo > q.hi) or wholly before it
// (hi < q.lo); the two cases exclude each other.
size_t IntervalCounter::count_overlapping(const Interval& q) const {
  if (q.empty() || m_size == 0) {
    return 0;
  }
  const auto upper = [&](int64_t v) {
    return static_cast<size_t>(std::upper_bound(m_coords.begin(), m_coords.end(), v) -
                               m_coords.begin());
  };
  const int64_t after = m_size - m_lo.below(upper(q.hi));
  const int64_t before = m_hi.below(index_of(q.lo));
  return static_cast<size_t>(m_size - after - before);
}

}  // namespace vta::compiler
