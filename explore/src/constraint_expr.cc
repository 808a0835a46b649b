#include "vta/explore/constraint_expr.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

#include "vta/sim/error.h"

namespace vta::explore {

// A node of the expression tree: a number, a key, or an operator with one or two operands.
struct ConstraintExpr::Node {
  std::string op;  // "num", "key", or the operator ("+", "<=", "!", "neg", ...)
  double value = 0;
  std::string key;
  std::shared_ptr<const Node> lhs, rhs;
  size_t depth = 1;  // of the subtree: bounds the recursion of eval()
};

namespace {

using NodePtr = std::shared_ptr<const ConstraintExpr::Node>;

// Recursive-descent parser over the grammar of constraint_expr.h.
class Parser {
 public:
  Parser(const std::string& text, const std::vector<std::string>& keys)
      : m_text(text), m_keys(keys) {}

  NodePtr parse() {
    if (m_text.size() > kMaxConstraintLength) {
      throw Error(fmt::format("constraint of {} characters: longer than the limit of {}",
                              m_text.size(), kMaxConstraintLength));
    }
    NodePtr n = parse_binary(0);
    skip_space();
    if (m_pos != m_text.size()) {
      fail("an operator or the end");
    }
    return n;
  }

 private:
  // Binary operators by precedence level, lowest first.
  static const std::vector<std::vector<std::string>>& levels() {
    static const std::vector<std::vector<std::string>> l = {
        {"||"}, {"&&"}, {"<=", ">=", "==", "!=", "<", ">"}, {"+", "-"}, {"*", "/", "%"}};
    return l;
  }

  // Counts open parentheses and unary operators: the parser's recursion stays bounded.
  class NestingGuard {
   public:
    explicit NestingGuard(Parser& p) : m_parser(p) {
      if (++m_parser.m_nesting > kMaxConstraintDepth) {
        m_parser.fail_limit(fmt::format("nesting deeper than {}", kMaxConstraintDepth));
      }
    }
    ~NestingGuard() { --m_parser.m_nesting; }
    NestingGuard(const NestingGuard&) = delete;
    NestingGuard& operator=(const NestingGuard&) = delete;

   private:
    Parser& m_parser;
  };

  // Sets the node's depth from its operands; a tree deeper than the limit (a flat sum of many
  // terms is a deep left-leaning tree) is an error.
  NodePtr with_depth(const std::shared_ptr<ConstraintExpr::Node>& n) const {
    n->depth = 1 + std::max(n->lhs ? n->lhs->depth : 0, n->rhs ? n->rhs->depth : 0);
    if (n->depth > kMaxConstraintDepth) {
      fail_limit(fmt::format("more than {} operators in a row", kMaxConstraintDepth));
    }
    return n;
  }

  [[noreturn]] void fail_limit(const std::string& what) const {
    throw Error(
        fmt::format("constraint \"{}\": {} at position {} (the limit keeps evaluation "
                    "bounded)",
                    m_text.size() > 60 ? m_text.substr(0, 57) + "..." : m_text, what, m_pos + 1));
  }

  [[noreturn]] void fail(const std::string& expected) const {
    throw Error(
        fmt::format("constraint \"{}\": expected {} at position {}", m_text, expected, m_pos + 1));
  }

  void skip_space() {
    while (m_pos < m_text.size() && std::isspace(static_cast<unsigned char>(m_text[m_pos]))) {
      ++m_pos;
    }
  }

  bool accept(const std::string& tok) {
    skip_space();
    if (m_text.compare(m_pos, tok.size(), tok) == 0) {
      m_pos += tok.size();
      return true;
    }
    return false;
  }

  NodePtr parse_binary(size_t level) {
    if (level == levels().size()) {
      return parse_unary();
    }
    NodePtr lhs = parse_binary(level + 1);
    for (;;) {
      std::string found;
      for (const std::string& op : levels()[level]) {
        if (accept(op)) {
          found = op;
          break;
        }
      }
      if (found.empty()) {
        return lhs;
      }
      auto n = std::make_shared<ConstraintExpr::Node>();
      n->op = found;
      n->lhs = lhs;
      n->rhs = parse_binary(level + 1);
      lhs = with_depth(n);
      if (level == 2) {
        return lhs;  // comparisons do not chain
      }
    }
  }

  NodePtr parse_unary() {
    for (const char* op : {"-", "!"}) {
      if (accept(op)) {
        auto n = std::make_shared<ConstraintExpr::Node>();
        n->op = op[0] == '-' ? "neg" : "!";
        const NestingGuard guard(*this);
        n->lhs = parse_unary();
        return with_depth(n);
      }
    }
    return parse_primary();
  }

  NodePtr parse_primary() {
    skip_space();
    auto n = std::make_shared<ConstraintExpr::Node>();
    if (accept("(")) {
      const NestingGuard guard(*this);
      NodePtr inner = parse_binary(0);
      if (!accept(")")) {
        fail("')'");
      }
      return inner;
    }
    const size_t start = m_pos;
    if (m_pos < m_text.size() &&
        (std::isdigit(static_cast<unsigned char>(m_text[m_pos])) || m_text[m_pos] == '.')) {
      char* end = nullptr;
      n->op = "num";
      n->value = std::strtod(m_text.c_str() + m_pos, &end);
      m_pos = static_cast<size_t>(end - m_text.c_str());
      return n;
    }
    while (m_pos < m_text.size() &&
           (std::isalnum(static_cast<unsigned char>(m_text[m_pos])) || m_text[m_pos] == '_')) {
      ++m_pos;
    }
    if (m_pos == start) {
      fail("a number, a config key or '('");
    }
    n->op = "key";
    n->key = m_text.substr(start, m_pos - start);
    if (std::find(m_keys.begin(), m_keys.end(), n->key) == m_keys.end()) {
      throw Error(
          fmt::format("constraint \"{}\": '{}' is not a numeric config key", m_text, n->key));
    }
    return n;
  }

  const std::string& m_text;
  const std::vector<std::string>& m_keys;
  size_t m_pos = 0;
  size_t m_nesting = 0;
};

double eval(const ConstraintExpr::Node& n, const nlohmann::json& keys, const std::string& text) {
  if (n.op == "num") {
    return n.value;
  }
  if (n.op == "key") {
    if (!keys.contains(n.key) || !keys.at(n.key).is_number()) {
      throw Error(fmt::format("constraint \"{}\": key '{}' is not a number here", text, n.key));
    }
    return keys.at(n.key).get<double>();
  }
  const double a = eval(*n.lhs, keys, text);
  if (n.op == "neg") {
    return -a;
  }
  if (n.op == "!") {
    return a == 0 ? 1 : 0;
  }
  if (n.op == "&&" || n.op == "||") {  // short-circuit, like C
    if ((n.op == "&&") == (a == 0)) {
      return n.op == "&&" ? 0 : 1;
    }
    return eval(*n.rhs, keys, text) != 0 ? 1 : 0;
  }
  const double b = eval(*n.rhs, keys, text);
  if ((n.op == "/" || n.op == "%") && b == 0) {
    throw Error(fmt::format("constraint \"{}\": division by zero", text));
  }
  const std::string& o = n.op;
  if (o == "+") {
    return a + b;
  }
  if (o == "-") {
    return a - b;
  }
  if (o == "*") {
    return a * b;
  }
  if (o == "/") {
    return a / b;
  }
  if (o == "%") {
    return std::fmod(a, b);
  }
  if (o == "<") {
    return a < b;
  }
  if (o == "<=") {
    return a <= b;
  }
  if (o == ">") {
    return a > b;
  }
  if (o == ">=") {
    return a >= b;
  }
  if (o == "==") {
    return a == b;
  }
  return a != b;  // "!="
}

}  // namespace

ConstraintExpr ConstraintExpr::parse(const std::string& text,
                                     const std::vector<std::string>& keys) {
  ConstraintExpr e;
  e.m_text = text;
  e.m_root = Parser(e.m_text, keys).parse();
  return e;
}

double ConstraintExpr::evaluate(const nlohmann::json& keys) const {
  return eval(*m_root, keys, m_text);
}

}  // namespace vta::explore
