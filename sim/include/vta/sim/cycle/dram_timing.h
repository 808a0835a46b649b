// DramTiming: the timing of VTA's memory port as fixed by the timing contract (sim/README.md
// section 2), in plain C++ so that both the SystemC DRAM target (cycle backend) and the
// Verilator glue (rtl backend) use the very same model. Given the cycle a burst is accepted and
// its length, it returns the cycles of its data beats (reads) or of its data beats and write
// response (writes) and advances the occupancy of the read and write data channels.
#pragma once

#include <cstdint>
#include <vector>

#include "vta/sim/hw_config.h"

namespace vta::cycle {

// One burst of a DMA: the exact bytes [addr, addr + bytes) it moves and the bus beats it takes.
struct Burst {
  uint64_t addr = 0;   // physical byte address of the first byte moved
  uint32_t bytes = 0;  // bytes moved
  uint32_t beats = 0;  // bus beats (the burst covers whole beats)
};

// Cuts the byte range [a, b) into bursts by the contract rule: beat-aligned bursts of at most
// MAX_BURST_BEATS beats that never cross a BURST_BOUNDARY_BYTES boundary. Appends to `out`.
void split_bursts(const HwConfig& cfg, uint64_t a, uint64_t b, std::vector<Burst>& out);

// Cycles of one read burst: beat j arrives in first + j * interval.
struct ReadBeats {
  uint64_t first = 0;     // cycle of the first data beat
  uint64_t last = 0;      // cycle of the last data beat
  uint32_t interval = 1;  // cycles between beats (DRAM_CYCLES_PER_BEAT)
};

// Cycles of one write burst: beat j is sent in first + j * interval; response in `response`.
struct WriteBeats {
  uint64_t first = 0;
  uint64_t last = 0;
  uint64_t response = 0;  // cycle the write response arrives
  uint32_t interval = 1;
};

class DramTiming {
 public:
  explicit DramTiming(const HwConfig& cfg);

  // Both data channels idle from `cycle` on (start of a run).
  void reset(uint64_t cycle);

  // A read burst of `beats` beats accepted in cycle `grant`. Calls must come in grant order.
  ReadBeats read(uint64_t grant, uint32_t beats);
  // A write burst of `beats` beats accepted in cycle `grant`. Calls must come in grant order.
  WriteBeats write(uint64_t grant, uint32_t beats);

  uint64_t read_free() const { return m_read_free; }    // first cycle the read channel is idle
  uint64_t write_free() const { return m_write_free; }  // first cycle the write channel is idle

 private:
  uint64_t m_read_latency;   // DRAM_READ_LATENCY_CYCLES
  uint64_t m_write_latency;  // DRAM_WRITE_LATENCY_CYCLES
  uint32_t m_cpb;            // DRAM_CYCLES_PER_BEAT
  uint64_t m_read_free = 0;
  uint64_t m_write_free = 0;
};

}  // namespace vta::cycle
