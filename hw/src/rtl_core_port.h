// RtlCorePort: one Verilated VTA core and its memory port inside the rtl backend's SystemC top
// (rtl_backend.cc), clocked one cycle at a time by the top's clock thread. Per cycle it drives
// the core's memory inputs (read beats replayed in the cycles of MemTimingExt, write beats taken,
// write responses), evaluates the core and acts on its requests:
//  * read bursts go through the TLM socket in their grant cycle (annotated delay);
//  * write bursts of a lone core are timed by the memory model directly (time_write: the data
//    do not exist at grant time). In a system of several cores (docs/multicore.md) they go
//    through the socket to the interconnect as timing-only writes (every byte disabled), all
//    bursts of one STORE together at its first request, as the cycle model's store unit posts
//    them (the interconnect serves requests in the order they arrive); each request of the RTL
//    is checked against the burst posted for it.
// A burst's bytes are written to DRAM when its last beat has left the core. The port also keeps
// the core's traffic counters and its watchdog.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <exception>
#include <vector>

#include <tlm>

#include "rtl_model.h"
#include "vta/sim/contract/counter_schema.h"
#include "vta/sim/contract/program_loader.h"
#include "vta/sim/cycle/memory_target.h"
#include "vta/sim/dram.h"
#include "vta/sim/hw_config.h"

namespace vta::rtl {

// How a core's run ended.
enum class Ending { kFinished, kTimeout, kStuck, kRtlError, kNoProgress };

// A read burst whose beats are still to be delivered.
struct ReadBurst {
  uint64_t first = 0;  // absolute cycle of beat 0
  uint32_t interval = 1;
  uint32_t beats = 0;
  uint32_t next = 0;  // next beat to deliver
  uint8_t tag = 0;
  std::vector<uint8_t> data;
};

// A write burst whose beats are still to be taken from the store unit.
struct WriteBurst {
  uint32_t addr = 0;
  uint64_t first = 0;
  uint32_t interval = 1;
  uint32_t beats = 0;
  uint32_t next = 0;
  std::vector<uint8_t> data;
  std::vector<bool> strb;  // bytes the store unit writes (a row narrower than its beats)
};

// A write burst posted to the interconnect before the RTL requests it (systems only).
struct PostedWrite {
  uint64_t grant = 0;  // the cycle the store requests it
  uint64_t addr = 0;   // beat-aligned
  uint32_t beats = 0;
  cycle::MemTimingExt timing;
};

class RtlCorePort {
 public:
  // `direct`: the memory model a lone core times its writes with; null in a system, where
  // writes go through `socket` too.
  RtlCorePort(const HwConfig& cfg, Dram& dram, RtlModel& model, tlm::tlm_initiator_socket<>& socket,
              cycle::MemoryTarget* direct);

  // A parked top serves a new backend: its DRAM and its Verilated model.
  void rebind(Dram& dram, RtlModel& model);

  // Clears the results and the bursts in flight and starts the core on `program` (a system
  // needs it to post the STOREs' bursts; a lone core may pass its address and count only).
  void begin(uint32_t insn_phys, uint32_t insn_count, const LoadedProgram* program);
  // Cycle `c` of the run (absolute cycle `abs`) in two halves: fall() drives the memory inputs,
  // evaluates the clock low and acts on the core's requests (through the socket); rise()
  // evaluates the rising edge and returns true when the run has ended (ending). The cores of a
  // system all fall before any rises, so the VCD sees them at the same half.
  void fall(uint64_t abs, uint64_t c);
  bool rise(uint64_t c);

  RtlModel& model() const { return *m_model; }
  const HwConfig& config() const { return m_cfg; }

  // ---- set by the host before a run ----
  uint64_t wait_cycles = 0;
  uint64_t watchdog_cycles = 0;  // a run without progress for this long is a hang

  // ---- results of the run ----
  Ending ending = Ending::kFinished;
  uint64_t run_cycles = 0;
  uint64_t quiet_cycles = 0;  // kNoProgress: cycles since the last progress
  std::array<TimedCounters::Traffic, kNumReadClients> read{};  // bursts and beats per client
  TimedCounters::Traffic write{};

 private:
  MemIn memory_inputs(uint64_t abs, WriteBurst*& wb);
  void serve_requests(uint64_t abs, uint64_t c, const MemIn& in, const MemOut& out, WriteBurst* wb);
  void watch_progress(uint64_t c, const MemIn& in, const MemOut& out);
  bool run_ended(const MemOut& out);
  uint64_t grant_read(uint64_t abs, const MemOut& out);
  void take_write_beat(WriteBurst& wb, const MemOut& out, uint64_t c);
  void write_strobed(const WriteBurst& wb);
  void post_write(uint64_t abs, const MemOut& out);
  cycle::WriteBeats write_timing(uint64_t abs, const MemOut& out);
  void post_next_store(uint64_t abs);
  bool transport(tlm::tlm_command cmd, uint64_t addr, uint8_t* data, size_t bytes, uint64_t grant,
                 bool timing_only, cycle::MemTimingExt& ext);
  size_t bus_bytes() const { return static_cast<size_t>(m_cfg.bus_bytes); }

  const HwConfig& m_cfg;
  Dram* m_dram;
  RtlModel* m_model;
  tlm::tlm_initiator_socket<>* m_socket;
  cycle::MemoryTarget* m_direct;
  const LoadedProgram* m_program = nullptr;
  size_t m_next_store = 0;       // systems: the next STORE (of per_stage[kStageStore]) to post
  uint64_t m_last_progress = 0;  // run cycle of the last progress the watchdog saw
  uint64_t m_fingerprint = 0;    // progress_fingerprint at the watchdog's last look
  bool m_hung = false;
  int m_stuck_cycles = 0;
  std::deque<ReadBurst> m_reads;
  std::deque<WriteBurst> m_writes;
  std::deque<uint64_t> m_resps;
  std::deque<PostedWrite> m_posted;
  MemIn m_in;                      // the memory's inputs of the cycle (fall to rise)
  MemOut m_out;                    // the core's outputs, reused every cycle
  std::vector<uint8_t> m_scratch;  // the data pointer of timing-only writes
};

}  // namespace vta::rtl
