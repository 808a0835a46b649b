// The constraint language of sweep specs: an arithmetic and logical expression over config
// keys, e.g. "LOG_INP_BUFF_SIZE + LOG_WGT_BUFF_SIZE <= 34 && LOG_BLOCK >= 4". A design point
// whose keys make any constraint false (zero) is skipped.
//
//   expr    := or
//   or      := and ('||' and)*
//   and     := compare ('&&' compare)*
//   compare := sum (('<' | '<=' | '>' | '>=' | '==' | '!=') sum)?
//   sum     := product (('+' | '-') product)*
//   product := unary (('*' | '/' | '%') unary)*
//   unary   := ('-' | '!') unary | primary
//   primary := NUMBER | KEY | '(' expr ')'
//
// Values are doubles; comparisons and logic give 1 or 0; '%' is fmod; division by zero is an
// error of the point. KEY is any numeric config key (LOG_BLOCK, CLOCK_MHZ, ...).
//
// Limits by design (an error names them): at most kMaxConstraintLength characters, and at most
// kMaxConstraintDepth levels of nesting (parentheses, unary operators) and of operators in one
// chain, so that parsing and evaluation never exhaust the stack.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace vta::explore {

inline constexpr size_t kMaxConstraintLength = 4096;
inline constexpr size_t kMaxConstraintDepth = 256;

class ConstraintExpr {
 public:
  // Parses `text`; `keys` are the numeric keys it may name. Throws vta::Error naming the text,
  // the position and what was expected, or the unknown key.
  static ConstraintExpr parse(const std::string& text, const std::vector<std::string>& keys);
  // The value for a config's keys (a JSON object); throws vta::Error when a key is missing or
  // not a number, or on division by zero.
  double evaluate(const nlohmann::json& keys) const;
  bool holds(const nlohmann::json& keys) const { return evaluate(keys) != 0; }
  const std::string& text() const { return m_text; }

  struct Node;

 private:
  std::string m_text;
  std::shared_ptr<const Node> m_root;
};

}  // namespace vta::explore
