// CoreShared: what the units of the SystemC core share: configuration, architectural state,
// the instruction and dependency queues, the memory interface, run control and the trace.
// Owned by VtaCore; each unit holds a reference.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "hw_queues.h"
#include "memory_interface.h"
#include "run_control.h"
#include "trace_recorder.h"
#include "vta/sim/functional_core.h"
#include "vta/sim/hw_config.h"
#include "vta/sim/stats.h"

namespace vta::cycle {

// The four dependency-token queues, named as upstream.
enum TokenQueueId : int { kL2G = 0, kG2L = 1, kS2G = 2, kG2S = 3 };
constexpr const char* kTokenQueueName[4] = {"l2g", "g2l", "s2g", "g2s"};
// Per stage (index = vta::Stage): queue popped by pop_prev / pop_next, pushed by push_prev /
// push_next (-1: the stage has none).
constexpr int kPopPrev[4] = {-1, -1, kL2G, kG2S};
constexpr int kPopNext[4] = {-1, kG2L, kS2G, -1};
constexpr int kPushPrev[4] = {-1, -1, kG2L, kS2G};
constexpr int kPushNext[4] = {-1, kL2G, kG2S, -1};

struct CoreShared {
  CoreShared(const HwConfig& c, Dram& d, Stats& s)
      : cfg(c),
        dram(d),
        stats(s),
        functional(c, d, s),
        tokens{TokenQueue(kTokenQueueName[0], static_cast<uint32_t>(c.dep_queue_depth)),
               TokenQueue(kTokenQueueName[1], static_cast<uint32_t>(c.dep_queue_depth)),
               TokenQueue(kTokenQueueName[2], static_cast<uint32_t>(c.dep_queue_depth)),
               TokenQueue(kTokenQueueName[3], static_cast<uint32_t>(c.dep_queue_depth))} {
    for (int s = kStageLoad; s <= kStageStore; ++s) {
      insn_q[s] = std::make_unique<InsnQueue>(static_cast<uint32_t>(c.insn_queue_depth));
    }
  }

  const HwConfig& cfg;
  Dram& dram;
  Stats& stats;
  FunctionalCore functional;  // SRAMs and instruction semantics (shared with fsim)
  RunControl run;
  MemoryInterface* mem = nullptr;
  std::array<std::unique_ptr<InsnQueue>, 4> insn_q;  // index = Stage (1..3)
  std::array<TokenQueue, 4> tokens;
  TraceRecorder trace;
  uint64_t next_flow_id = 1;

  // The current run.
  uint32_t insn_phys = 0;
  uint32_t insn_count = 0;
  std::vector<uint8_t> fetched;     // instruction bytes as delivered by the memory port
  std::vector<Insn> insns_decoded;  // the stream decoded and checked once at run start
};

}  // namespace vta::cycle
