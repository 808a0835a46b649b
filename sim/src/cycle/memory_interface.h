// MemoryInterface: VTA's single memory port (the "VME" of the Chisel design). Read clients
// (vta::ReadClient, timing_constants.h) post their bursts; an arbiter grants at most one
// eligible burst per cycle, lowest client number first (fixed priority, burst granular), and
// forwards it to the memory model (memory_target.h) through a TLM-2.0 initiator socket. The
// store unit is the only write client. sim/README.md section 2. A unit reaches the interface
// only through its ReadPort / WritePort.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <utility>
#include <vector>

#include <tlm_utils/simple_initiator_socket.h>
#include <systemc>
#include <tlm>

#include "trace_recorder.h"
#include "vta/sim/contract/timing_constants.h"
#include "vta/sim/cycle/dram_timing.h"
#include "vta/sim/cycle/memory_target.h"

namespace vta::cycle {

struct ReadRequest {
  Burst burst;
  uint8_t* dst = nullptr;  // where the burst's bytes go
};

// Per-client memory statistics of one run or more.
struct MemClientStats {
  uint64_t bytes = 0;        // bytes, exact ranges
  uint64_t bursts = 0;       // bursts granted
  uint64_t beats = 0;        // bus beats
  uint64_t latency_sum = 0;  // cycles from grant to the last read beat / the write response
  uint64_t latency_max = 0;

  void add_latency(uint64_t cycles) {
    latency_sum += cycles;
    latency_max = cycles > latency_max ? cycles : latency_max;
  }
};

class MemoryInterface : public sc_core::sc_module {
 public:
  tlm_utils::simple_initiator_socket<MemoryInterface> socket;

  // Called in the grant cycle of each burst, after its data has moved.
  using GrantFn = std::function<void(const ReadRequest&, const ReadBeats&)>;

  explicit MemoryInterface(sc_core::sc_module_name name);

  // Core k of a system (docs/multicore.md): its read requests reach the socket k delta cycles
  // into their cycle, so the interconnect receives the reads of one cycle in core order, core 0
  // first (the lock-step rtl system's order), whatever order the kernel wakes the cores in. A
  // store's write bursts go at once: they are handed over ahead of their cycles, and a store
  // that waited for its turn could still be holding its data when the run ends.
  void set_core_rank(int k) { m_rank = k; }

  // Trace of the data beats of every burst (optional).
  void set_trace(TraceRecorder* trace) { m_trace = trace; }

  // Drops all pending requests (start of a run).
  void reset();

  // Queues `reqs` (in order) for `client`; the first one is eligible in absolute cycle
  // `eligible`, each next one the cycle after the previous grant. When the last one has been
  // granted, done(client) fires and last_beat(client) holds the cycle of its last data beat.
  void post_reads(int client, const std::vector<ReadRequest>& reqs, uint64_t eligible);
  void set_grant_callback(int client, GrantFn fn) { m_clients[client].on_grant = std::move(fn); }
  // Called (in the arbiter's thread) when the memory model rejects a read burst.
  void set_error_handler(std::function<void(std::exception_ptr)> fn) { m_on_error = std::move(fn); }
  const sc_core::sc_event& done(int client) const { return m_clients[client].done; }
  uint64_t last_beat(int client) const { return m_clients[client].last_beat; }
  bool idle(int client) const { return m_clients[client].pending.empty(); }

  // The store's write bursts: burst k is granted in cycle first_grant + k. `data[k]` holds its
  // bytes. Returns the cycle of the last write response.
  uint64_t write_bursts(const std::vector<Burst>& bursts, const std::vector<uint8_t*>& data,
                        uint64_t first_grant);

  const MemClientStats& read_stats(int client) const { return m_clients[client].stats; }
  const MemClientStats& write_stats() const { return m_write_stats; }
  void clear_stats();

 private:
  struct Client {
    std::deque<ReadRequest> pending;
    uint64_t eligible = 0;
    uint64_t last_beat = 0;
    GrantFn on_grant;
    sc_core::sc_event done;
    MemClientStats stats;
  };

  void arbiter();
  void wait_rank() const;
  MemTimingExt transport(tlm::tlm_command cmd, const Burst& b, uint8_t* data, uint64_t at);

  std::array<Client, kNumReadClients> m_clients;
  MemClientStats m_write_stats;
  std::function<void(std::exception_ptr)> m_on_error;
  TraceRecorder* m_trace = nullptr;
  int m_rank = 0;  // delta cycles a request waits in its cycle (set_core_rank)
  sc_core::sc_event m_kick;
  tlm::tlm_generic_payload m_payload;
  MemTimingExt m_ext;
};

// One read client of the memory interface: what a unit's DMA posts its bursts through.
class ReadPort {
 public:
  ReadPort(MemoryInterface& mem, ReadClient id) : m_mem(&mem), m_id(id) {}

  ReadClient id() const { return m_id; }
  void post(const std::vector<ReadRequest>& reqs, uint64_t eligible) const {
    m_mem->post_reads(m_id, reqs, eligible);
  }
  void set_grant_callback(MemoryInterface::GrantFn fn) const {
    m_mem->set_grant_callback(m_id, std::move(fn));
  }
  bool idle() const { return m_mem->idle(m_id); }
  const sc_core::sc_event& done() const { return m_mem->done(m_id); }
  uint64_t last_beat() const { return m_mem->last_beat(m_id); }

 private:
  MemoryInterface* m_mem;
  ReadClient m_id;
};

// The write channel of the memory interface (the store unit's).
class WritePort {
 public:
  explicit WritePort(MemoryInterface& mem) : m_mem(&mem) {}

  uint64_t write(const std::vector<Burst>& bursts, const std::vector<uint8_t*>& data,
                 uint64_t first_grant) const {
    return m_mem->write_bursts(bursts, data, first_grant);
  }

 private:
  MemoryInterface* m_mem;
};

}  // namespace vta::cycle
