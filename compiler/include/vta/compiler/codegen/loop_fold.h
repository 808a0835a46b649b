// Folds a flat list of calls back into loops: where a run of calls repeats with the same text
// and numbers that change by a constant step from one repetition to the next, the run becomes
// `for (iN, 0, extent) { body }` with the numbers written as affine expressions of the loop
// variables. Used to print lowered programs and micro-op kernels as readable loop nests.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace vta::compiler {

// base + sum of coef * (the loop `up` levels above the call; 0 = the innermost loop).
struct Affine {
  int64_t base = 0;
  std::vector<std::pair<int, int64_t>> terms;  // (up, coef), sorted by up, coef != 0
  bool same_terms(const Affine& o) const { return terms == o.terms; }
};

// A call (`pieces` around its numbers: pieces.size() == values.size() + 1) or a loop.
struct LoopNest {
  std::vector<std::string> pieces;
  std::vector<Affine> values;
  int64_t extent = 0;  // > 0: a loop over `body`
  std::vector<LoopNest> body;

  static LoopNest call(std::vector<std::string> pieces, const std::vector<int64_t>& values);
  bool is_loop() const { return extent > 0; }
};

// Folds every regular repetition of at most `max_period` nodes, innermost first.
std::vector<LoopNest> fold_loops(std::vector<LoopNest> nodes, size_t max_period = 256);
// One line per call, two spaces of indentation per loop level (starting at `indent`); loop
// variables are named i0 (outermost), i1, ...
std::string print_loops(const std::vector<LoopNest>& nodes, int indent = 0);

}  // namespace vta::compiler
