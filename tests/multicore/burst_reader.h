// The interconnect seen from the cores, for the tests that time bursts by hand
// (test_multicore_system.cc, test_multicore_arbitration.cc): read bursts sent at given cycles,
// and the real interconnect and memory model they share in a fresh simulation.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include <tlm_utils/simple_initiator_socket.h>
#include <systemc>
#include <tlm>

#include "interconnect.h"
#include "vta/sim/cycle/memory_target.h"
#include "vta/sim/cycle/sim_context.h"

namespace vta::multicoretest {

// Reads one burst at each of the given cycles (each one once the previous has returned from
// b_transport), keeping their timings. Core k's reads go `rank` = k delta cycles into their
// cycle, as a core's memory interface sends them (set_core_rank).
class BurstReader : public sc_core::sc_module {
 public:
  struct Read {
    uint64_t at = 0, addr = 0;
    uint32_t bytes = 0;
  };
  tlm_utils::simple_initiator_socket<BurstReader> socket;
  std::vector<cycle::MemTimingExt> timing;

  BurstReader(sc_core::sc_module_name name, std::vector<Read> reads, int rank)
      : sc_core::sc_module(name), socket("socket"), m_reads(std::move(reads)), m_rank(rank) {
    SC_HAS_PROCESS(BurstReader);
    SC_THREAD(main);
  }

 private:
  void main() {
    for (const Read& r : m_reads) {
      if (cycle::cycles(r.at) > sc_core::sc_time_stamp()) {
        sc_core::wait(cycle::cycles(r.at) - sc_core::sc_time_stamp());
      }
      for (int k = 0; k < m_rank; ++k) {
        sc_core::wait(sc_core::SC_ZERO_TIME);
      }
      std::vector<uint8_t> data(r.bytes);
      tlm::tlm_generic_payload p;
      cycle::MemTimingExt ext;
      p.set_extension(&ext);
      p.set_command(tlm::TLM_READ_COMMAND);
      p.set_address(r.addr);
      p.set_data_ptr(data.data());
      p.set_data_length(r.bytes);
      p.set_streaming_width(r.bytes);
      sc_core::sc_time delay = cycle::cycles(r.at) - sc_core::sc_time_stamp();
      socket->b_transport(p, delay);
      timing.push_back(ext);
      p.clear_extension(&ext);
    }
  }

  std::vector<Read> m_reads;
  int m_rank;
};

// The interconnect and a memory model `Memory` (DramTarget, DramMemory) of `cfg` in a fresh
// simulation kernel, held for as long as this lives. Bind the readers, then run().
template <class Memory>
struct SharedMemory {
  cycle::SimContext ctx;
  cycle::SimContext::Lock lock;
  cycle::Interconnect ic;
  Memory memory;

  SharedMemory(const HwConfig& cfg, Dram& dram)
      : lock(ctx.activate()), ic("interconnect", cfg), memory("dram", cfg, dram) {}

  void bind(BurstReader& reader) { reader.socket.bind(ic.cores); }

  // Connects the memory, resets both and simulates until every reader is done.
  void run() {
    ic.memory.bind(memory.socket);
    ic.reset(0);
    memory.reset(0);
    cycle::SimContext::start();
  }
};

}  // namespace vta::multicoretest
