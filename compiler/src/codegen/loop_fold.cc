#include "vta/compiler/codegen/loop_fold.h"

#include <fmt/format.h>

#include "vta/sim/error.h"

namespace vta::compiler {

namespace {

// Same calls and loops with the same extents, and numbers with the same loop terms (only the
// constant parts may differ).
bool same_shape(const LoopNest& a, const LoopNest& b) {
  if (a.extent != b.extent || a.pieces != b.pieces || a.values.size() != b.values.size() ||
      a.body.size() != b.body.size()) {
    return false;
  }
  for (size_t i = 0; i < a.values.size(); ++i) {
    if (!a.values[i].same_terms(b.values[i])) {
      return false;
    }
  }
  for (size_t i = 0; i < a.body.size(); ++i) {
    if (!same_shape(a.body[i], b.body[i])) {
      return false;
    }
  }
  return true;
}

// Every number of `n` with the loop depth it sits at below `n` (calls of a loop's body: 1).
void collect(LoopNest& n, int depth, std::vector<std::pair<Affine*, int>>& out) {
  for (Affine& v : n.values) {
    out.emplace_back(&v, depth);
  }
  for (LoopNest& c : n.body) {
    collect(c, depth + 1, out);
  }
}

std::vector<std::pair<Affine*, int>> numbers_of(std::vector<LoopNest>& nodes, size_t first,
                                                size_t count) {
  std::vector<std::pair<Affine*, int>> out;
  for (size_t i = first; i < first + count; ++i) {
    collect(nodes[i], 0, out);
  }
  return out;
}

// How many times nodes[first, first + period) repeats from `first` with every number
// stepping by a constant (at least 1); `steps` gets the steps of the numbers.
size_t repetitions(std::vector<LoopNest>& nodes, size_t first, size_t period,
                   std::vector<int64_t>& steps) {
  const auto base = numbers_of(nodes, first, period);
  std::vector<int64_t> prev(base.size());
  for (size_t i = 0; i < base.size(); ++i) {
    prev[i] = base[i].first->base;
  }
  steps.assign(base.size(), 0);
  size_t reps = 1;
  for (size_t start = first + period; start + period <= nodes.size(); start += period, ++reps) {
    for (size_t j = 0; j < period; ++j) {
      if (!same_shape(nodes[first + j], nodes[start + j])) {
        return reps;
      }
    }
    const auto next = numbers_of(nodes, start, period);
    for (size_t i = 0; i < next.size(); ++i) {
      const int64_t step = next[i].first->base - prev[i];
      if (reps > 1 && step != steps[i]) {
        return reps;
      }
      steps[i] = step;
    }
    for (size_t i = 0; i < next.size(); ++i) {
      prev[i] = next[i].first->base;
    }
  }
  return reps;
}

// Whether a run of the period starting within the next `period` nodes repeats more often than
// the one at `first` (then `first` stays a call of its own: 5 0 2 4 6 is 5, then a loop).
bool longer_run_follows(std::vector<LoopNest>& nodes, size_t first, size_t period, size_t reps) {
  std::vector<int64_t> steps;
  for (size_t j = first + 1; j < first + period + 1 && j + 2 * period <= nodes.size(); ++j) {
    if (repetitions(nodes, j, period, steps) > reps) {
      return true;
    }
  }
  return false;
}

// The first repetition as the body of a loop of `reps`, its numbers stepping by `steps`.
LoopNest make_loop(std::vector<LoopNest>& nodes, size_t first, size_t period, size_t reps,
                   const std::vector<int64_t>& steps) {
  LoopNest loop;
  loop.extent = int64_t(reps);
  loop.body.assign(nodes.begin() + std::ptrdiff_t(first),
                   nodes.begin() + std::ptrdiff_t(first + period));
  std::vector<std::pair<Affine*, int>> numbers;
  for (LoopNest& n : loop.body) {
    collect(n, 0, numbers);
  }
  for (size_t i = 0; i < numbers.size(); ++i) {
    auto& [value, depth] = numbers[i];
    if (steps[i] != 0) {
      value->terms.emplace_back(depth, steps[i]);  // the new loop is the outermost so far
    }
  }
  return loop;
}

// One sweep over the nodes with one period; true if anything was folded.
bool fold_period(std::vector<LoopNest>& nodes, size_t period) {
  std::vector<LoopNest> out;
  bool changed = false;
  std::vector<int64_t> steps;
  size_t i = 0;
  while (i < nodes.size()) {
    const size_t reps = i + 2 * period <= nodes.size() ? repetitions(nodes, i, period, steps) : 1;
    if (reps >= 2 && !longer_run_follows(nodes, i, period, reps)) {
      out.push_back(make_loop(nodes, i, period, reps, steps));
      i += reps * period;
      changed = true;
    } else {
      out.push_back(std::move(nodes[i]));
      ++i;
    }
  }
  nodes = std::move(out);
  return changed;
}

std::string format_affine(const Affine& a, int depth) {
  std::string s;
  for (auto it = a.terms.rbegin(); it != a.terms.rend(); ++it) {  // outermost loop first
    const auto [up, coef] = *it;
    const std::string var = fmt::format("i{}", depth - 1 - up);
    const int64_t mag = coef < 0 ? -coef : coef;
    const std::string term = mag == 1 ? var : fmt::format("{}*{}", mag, var);
    s += s.empty() ? (coef < 0 ? "-" + term : term) : (coef < 0 ? " - " : " + ") + term;
  }
  if (s.empty()) {
    return fmt::format("{}", a.base);
  }
  if (a.base != 0) {
    s += fmt::format(" {} {}", a.base < 0 ? '-' : '+', a.base < 0 ? -a.base : a.base);
  }
  return s;
}

void print_nodes(const std::vector<LoopNest>& nodes, int indent, int depth, std::string& out) {
  const std::string pad(size_t(indent) * 2, ' ');
  for (const LoopNest& n : nodes) {
    if (n.is_loop()) {
      out += fmt::format("{}for (i{}, 0, {}) {{\n", pad, depth, n.extent);
      print_nodes(n.body, indent + 1, depth + 1, out);
      out += pad + "}\n";
      continue;
    }
    out += pad + n.pieces[0];
    for (size_t i = 0; i < n.values.size(); ++i) {
      out += format_affine(n.values[i], depth) + n.pieces[i + 1];
    }
    out += "\n";
  }
}

}  // namespace

LoopNest LoopNest::call(std::vector<std::string> pieces, const std::vector<int64_t>& values) {
  if (pieces.size() != values.size() + 1) {
    throw Error(fmt::format("loop nest call '{}': {} text pieces for {} numbers",
                            pieces.empty() ? "" : pieces[0], pieces.size(), values.size()));
  }
  LoopNest n;
  n.pieces = std::move(pieces);
  for (int64_t v : values) {
    n.values.push_back(Affine{v, {}});
  }
  return n;
}

std::vector<LoopNest> fold_loops(std::vector<LoopNest> nodes, size_t max_period) {
  // Shortest periods first, and back to the shortest after every fold: a fold makes longer
  // repetitions shorter, and an inner loop must exist before the loop around it can repeat.
  for (size_t p = 1; p <= max_period && 2 * p <= nodes.size(); ++p) {
    if (fold_period(nodes, p)) {
      p = 0;
    }
  }
  return nodes;
}

std::string print_loops(const std::vector<LoopNest>& nodes, int indent) {
  std::string out;
  print_nodes(nodes, indent, 0, out);
  return out;
}

}  // namespace vta::compiler
