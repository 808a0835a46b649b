// The micro-op SRAM as the verifier follows it through a program: LOAD UOPs write entries, and
// each GEMM / ALU asks for the smallest and largest dst / src / wgt index over its range
// uop_bgn..uop_end. A segment tree answers both in O(log depth), so a program's footprints cost
// instructions plus loaded micro-ops, not instructions times kernel length.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "vta/sim/isa.h"

namespace vta::compiler {

// Per field (dst, src, wgt): the extremes over a range of micro-ops.
struct UopExtremes {
  std::array<uint32_t, 3> min{}, max{};
};

class UopRangeIndex {
 public:
  explicit UopRangeIndex(size_t depth);  // `depth` entries, all the zero micro-op

  size_t depth() const { return m_depth; }
  void set(size_t index, const Uop& u);
  // Extremes over entries [bgn, end); nullopt if the range is empty.
  std::optional<UopExtremes> extremes(size_t bgn, size_t end) const;

 private:
  static UopExtremes join(const UopExtremes& a, const UopExtremes& b);

  size_t m_depth;
  std::vector<UopExtremes> m_tree;  // leaves at [m_depth, 2 m_depth), parents below
};

}  // namespace vta::compiler
