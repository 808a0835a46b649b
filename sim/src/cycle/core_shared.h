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
#include "vta/sim/token_queues.h"

namespace vta::cycle {

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
