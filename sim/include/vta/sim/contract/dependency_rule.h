// The dependency rule of the timing contract (sim/README.md section 1), written once for every
// backend, the runtime's stream check and the compiler's verifier: which token queue each
// dependency flag of an instruction uses on its stage, and when an instruction may start (every
// queue it pops holds a token, every queue it pushes has room). The order in which flags are
// examined (pop_prev, pop_next, push_prev, push_next) decides which one a report names.
#pragma once

#include <array>
#include <cstdint>

#include "vta/sim/isa.h"
#include "vta/sim/token_queues.h"

namespace vta {

// Tokens held by each queue (index = TokenQueueId).
using TokenCounts = std::array<uint64_t, 4>;

// The four dependency flags, in the order the start rule examines them.
enum DepFlag : int { kFlagPopPrev = 0, kFlagPopNext = 1, kFlagPushPrev = 2, kFlagPushNext = 3 };
constexpr const char* kDepFlagName[4] = {"pop_prev_dep", "pop_next_dep", "push_prev_dep",
                                         "push_next_dep"};

// Per flag: the token queue an instruction uses on `stage`, or -1 where the flag is clear (or
// the stage has no such queue; check_insn_static rejects those flags).
struct TokenUse {
  std::array<int, 4> queue{-1, -1, -1, -1};  // index = DepFlag

  int pop(int k) const { return queue[kFlagPopPrev + k]; }    // k = 0 prev, 1 next
  int push(int k) const { return queue[kFlagPushPrev + k]; }  // k = 0 prev, 1 next
};
TokenUse token_use(const Insn& insn, Stage stage);
// The queue a flag names on `stage`, whether the flag is set or not (-1 if the stage has none).
int flag_queue(DepFlag flag, Stage stage);

// What keeps an instruction from starting: the first flag whose queue is empty (pops) or full
// (pushes), or none.
struct StartBlock {
  int flag = -1;   // DepFlag, -1 = free to start
  int queue = -1;  // TokenQueueId
  bool blocked() const { return flag >= 0; }
  bool on_push() const { return flag >= kFlagPushPrev; }
};

// The start rule over any view of the queues: has_token(q) for pops, has_room(q) for pushes.
template <class HasToken, class HasRoom>
StartBlock start_block_with(const TokenUse& use, HasToken&& has_token, HasRoom&& has_room) {
  for (int f = 0; f < 4; ++f) {
    const int q = use.queue[static_cast<size_t>(f)];
    if (q < 0) {
      continue;
    }
    const bool ok = f < kFlagPushPrev ? has_token(q) : has_room(q);
    if (!ok) {
      return StartBlock{f, q};
    }
  }
  return StartBlock{};
}

// The start rule over token counts, with `capacity` tokens per queue (DEP_QUEUE_DEPTH).
StartBlock start_block(const TokenUse& use, const TokenCounts& tokens, uint64_t capacity);

// Untimed backends and replays: an instruction takes its tokens when it starts and gives its
// tokens when it ends.
void pop_tokens(const TokenUse& use, TokenCounts& tokens);
void push_tokens(const TokenUse& use, TokenCounts& tokens);

}  // namespace vta
