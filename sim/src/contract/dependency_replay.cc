#include "vta/sim/contract/dependency_replay.h"

#include <deque>

namespace vta {

DependencyReplay replay_dependencies(const std::vector<Insn>& insns, uint64_t capacity) {
  std::array<std::vector<uint32_t>, 4> per_stage;
  for (uint32_t i = 0; i < insns.size(); ++i) {
    per_stage[insns[i].stage()].push_back(i);
  }
  DependencyReplay r;
  r.popped_from.assign(insns.size(), {-1, -1});
  std::array<std::deque<uint32_t>, 4> queue;  // per token queue: the pushing instructions
  const auto counts = [&] {
    TokenCounts t{};
    for (size_t q = 0; q < 4; ++q) {
      t[q] = queue[q].size();
    }
    return t;
  };
  std::array<size_t, 4> pos{};
  for (bool progress = true; progress;) {
    progress = false;
    for (int s = kStageLoad; s <= kStageStore; ++s) {
      const auto st = static_cast<Stage>(s);
      for (; pos[s] < per_stage[s].size(); ++pos[s], progress = true) {
        const uint32_t i = per_stage[s][pos[s]];
        const TokenUse use = token_use(insns[i], st);
        if (start_block(use, counts(), capacity).blocked()) {
          break;
        }
        for (int k = 0; k < 2; ++k) {
          if (use.pop(k) >= 0) {
            auto& q = queue[static_cast<size_t>(use.pop(k))];
            r.popped_from[i][static_cast<size_t>(k)] = q.front();
            q.pop_front();
          }
        }
        for (int k = 0; k < 2; ++k) {
          if (use.push(k) >= 0) {
            queue[static_cast<size_t>(use.push(k))].push_back(i);
          }
        }
        r.order.push_back(i);
      }
    }
  }
  r.left = counts();
  for (int s = kStageLoad; s <= kStageStore; ++s) {
    if (pos[s] < per_stage[s].size()) {
      const uint32_t i = per_stage[s][pos[s]];
      r.stuck[s] = DependencyReplay::Stuck{
          i, start_block(token_use(insns[i], static_cast<Stage>(s)), r.left, capacity)};
    }
  }
  return r;
}

}  // namespace vta
