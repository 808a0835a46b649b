#include "frontend/einsum.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <vector>

#include <fmt/format.h>

namespace vta::compiler {

namespace {

// The operands' and the output's labels; "" or why they cannot be read.
std::string split_equation(const std::string& equation, std::vector<std::string>& terms) {
  std::string text;
  for (char c : equation) {
    if (!std::isspace(static_cast<unsigned char>(c))) {
      text += c;
    }
  }
  const size_t arrow = text.find("->");
  if (arrow == std::string::npos) {
    return "it has no explicit output ('->')";
  }
  const std::string inputs = text.substr(0, arrow);
  const size_t comma = inputs.find(',');
  if (comma == std::string::npos || inputs.find(',', comma + 1) != std::string::npos) {
    return "only an equation of two operands is supported";
  }
  terms = {inputs.substr(0, comma), inputs.substr(comma + 1), text.substr(arrow + 2)};
  for (const std::string& t : terms) {
    const std::set<char> labels(t.begin(), t.end());
    if (!std::all_of(t.begin(), t.end(), [](char c) { return std::isalpha(c) != 0; })) {
      return fmt::format("term '{}' has a character other than a letter (no ellipsis)", t);
    }
    if (labels.size() != t.size()) {
      return fmt::format("term '{}' repeats a label (no diagonals)", t);
    }
  }
  return {};
}

}  // namespace

std::string parse_einsum_matmul(const std::string& equation, EinsumMatmul& out) {
  std::vector<std::string> terms;
  if (std::string e = split_equation(equation, terms); !e.empty()) {
    return e;
  }
  const std::string &a = terms[0], &b = terms[1], &o = terms[2];
  const size_t r = o.size();
  if (r < 2 || r > 6 || a.size() != r || b.size() != r) {
    return "only operands and an output of one rank, 2 to 6, are supported";
  }
  const size_t batch = r - 2;
  if (a.compare(0, batch, o, 0, batch) || b.compare(0, batch, o, 0, batch)) {
    return "the operands and the output must share their leading (batch) axes in order";
  }
  const char i = o[r - 2], j = o[r - 1];
  const std::string a2 = a.substr(batch), b2 = b.substr(batch);
  const size_t ia = a2.find(i), jb = b2.find(j);
  if (ia == std::string::npos || jb == std::string::npos || b2.find(i) != std::string::npos ||
      a2.find(j) != std::string::npos) {
    return "the output's last two axes must be A's rows and B's columns";
  }
  const char ka = a2[1 - ia], kb = b2[1 - jb];
  if (ka != kb || o.find(ka) != std::string::npos) {
    return "A and B must share one contracted label on their last two axes";
  }
  out.rank = int(r);
  out.transpose_a = ia == 1;
  out.transpose_b = jb == 0;
  return {};
}

}  // namespace vta::compiler
