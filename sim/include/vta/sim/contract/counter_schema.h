// The named counters of the timed backends (sim/README.md section 6): what a cycle or rtl run
// measured, and the one function that publishes it into Stats with names, units and
// descriptions. Adding a counter: a field here, a line in publish_counters, and the unit that
// counts it (plus the RTL's event counter for rtl).
#pragma once

#include <array>
#include <cstdint>

#include "vta/sim/contract/timing_constants.h"
#include "vta/sim/stats.h"

namespace vta {

struct TimedCounters {
  uint64_t fetch_active = 0;            // cycles from run start to the last dispatch
  uint64_t fetch_stall_queue_full = 0;  // cycles the head instruction waited for queue room

  struct Unit {
    uint64_t busy = 0;                      // cycles inside instructions [S, E]
    uint64_t insns = 0;                     // instructions executed
    uint64_t idle = 0;                      // cycles with no instruction visible
    uint64_t mem_stall = 0;                 // part of busy: DMA instructions waiting on memory
    std::array<uint64_t, 4> stall_token{};  // per token queue: waiting for a token
    std::array<uint64_t, 4> stall_full{};   // per token queue: waiting for room
  };
  std::array<Unit, 3> unit;  // index = Stage - 1 (load, compute, store)

  struct Traffic {
    uint64_t bytes = 0;        // exact byte ranges requested
    uint64_t bursts = 0;       // bursts granted
    uint64_t beats = 0;        // bus beats
    uint64_t latency_sum = 0;  // cycles from grant to the last read beat / the write response
    uint64_t latency_max = 0;  // the longest of them
  };
  std::array<Traffic, kNumReadClients> read;  // index = ReadClient
  Traffic write;                              // the store unit
  bool exact_bytes = true;  // false: the backend counts bursts and beats only (rtl)

  uint64_t gemm_active = 0;  // uop iterations issued by non-reset GEMMs
  uint64_t alu_active = 0;   // ALU issue cycles

  // The DRAM device of the memory model "dram" (absent with "fixed").
  struct Dram {
    bool present = false;
    uint64_t activates = 0, refreshes = 0;
    uint64_t row_hits = 0, row_misses = 0, row_conflicts = 0;  // per column access
    uint64_t bytes = 0;                                        // bytes moved on the DRAM data bus
    uint64_t read_bursts = 0;                                  // core read bursts timed
    uint64_t read_latency_sum = 0;    // core cycles, grant -> last data beat, summed
    uint64_t read_latency_max = 0;    // the longest
    double peak_bytes_per_cycle = 0;  // peak DRAM bandwidth per core cycle
  };
  Dram dram;
};

// Adds one run's counters to `stats` (whose `cycles` already includes the run) and recomputes
// the ratios over everything since the last clear.
void publish_counters(Stats& stats, const TimedCounters& run);

}  // namespace vta
