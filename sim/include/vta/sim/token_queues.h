// The four dependency-token queues between the load, compute and store stages (upstream names
// and numbering), and the queue each stage's dependency flags pop and push. Shared by fsim, the
// cycle model, the runtime's stream check and the compiler's program check.
#pragma once

namespace vta {

enum TokenQueueId : int { kL2G = 0, kG2L = 1, kS2G = 2, kG2S = 3 };
constexpr const char* kTokenQueueName[4] = {"l2g", "g2l", "s2g", "g2s"};

// Per stage (index = vta::Stage): the queue popped by pop_prev / pop_next and pushed by
// push_prev / push_next, -1 when the stage has none.
constexpr int kPopPrev[4] = {-1, -1, kL2G, kG2S};
constexpr int kPopNext[4] = {-1, kG2L, kS2G, -1};
constexpr int kPushPrev[4] = {-1, -1, kG2L, kS2G};
constexpr int kPushNext[4] = {-1, kL2G, kG2S, -1};

}  // namespace vta
