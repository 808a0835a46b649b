#include "vta/sim/contract/dependency_rule.h"

namespace vta {

int flag_queue(DepFlag flag, Stage stage) {
  switch (flag) {
    case kFlagPopPrev:
      return kPopPrev[stage];
    case kFlagPopNext:
      return kPopNext[stage];
    case kFlagPushPrev:
      return kPushPrev[stage];
    case kFlagPushNext:
      return kPushNext[stage];
  }
  return -1;
}

TokenUse token_use(const Insn& insn, Stage stage) {
  const bool set[4] = {insn.pop_prev_dep, insn.pop_next_dep, insn.push_prev_dep,
                       insn.push_next_dep};
  TokenUse use;
  for (int f = 0; f < 4; ++f) {
    use.queue[static_cast<size_t>(f)] = set[f] ? flag_queue(static_cast<DepFlag>(f), stage) : -1;
  }
  return use;
}

StartBlock start_block(const TokenUse& use, const TokenCounts& tokens, uint64_t capacity) {
  return start_block_with(
      use, [&](int q) { return tokens[static_cast<size_t>(q)] > 0; },
      [&](int q) { return tokens[static_cast<size_t>(q)] < capacity; });
}

void pop_tokens(const TokenUse& use, TokenCounts& tokens) {
  for (int k = 0; k < 2; ++k) {
    if (use.pop(k) >= 0) {
      --tokens[static_cast<size_t>(use.pop(k))];
    }
  }
}

void push_tokens(const TokenUse& use, TokenCounts& tokens) {
  for (int k = 0; k < 2; ++k) {
    if (use.push(k) >= 0) {
      ++tokens[static_cast<size_t>(use.push(k))];
    }
  }
}

}  // namespace vta
