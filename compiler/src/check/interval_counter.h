// A multiset of closed integer intervals that counts, in O(log n), how many of its members
// overlap a query interval. The program verifier keeps the readers of one SRAM that a writer is
// not ordered with in one of these, so a race check costs n log n instead of a pass over pairs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace vta::compiler {

// SRAM entries lo..hi (inclusive); empty if hi < lo.
struct Interval {
  int64_t lo = 0, hi = -1;
  bool empty() const { return hi < lo; }
  bool overlaps(const Interval& o) const {
    return !empty() && !o.empty() && lo <= o.hi && o.lo <= hi;
  }
};

class IntervalCounter {
 public:
  // `coords`: every endpoint an added interval may have (any order, duplicates allowed).
  explicit IntervalCounter(std::vector<int64_t> coords);

  // Adds (+1) or removes (-1) one copy of the non-empty interval `iv`.
  void add(const Interval& iv, int delta);
  // Members that share at least one entry with `q` (0 if `q` is empty).
  size_t count_overlapping(const Interval& q) const;

 private:
  // Fenwick tree over the sorted coordinates: members whose endpoint is at index < k.
  struct Counts {
    std::vector<int64_t> tree;
    void add(size_t index, int64_t delta);
    int64_t below(size_t k) const;
  };
  size_t index_of(int64_t v) const;

  std::vector<int64_t> m_coords;  // sorted, unique
  Counts m_lo, m_hi;              // members by their lo and by their hi
  int64_t m_size = 0;
};

}  // namespace vta::compiler
