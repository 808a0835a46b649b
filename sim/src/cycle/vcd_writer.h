// VcdWriter: the cycle model's VCD file. It owns the file, its header and the time order of the
// value changes that the units of one core, or of every core of a system, report to their
// TraceRecorder: each core's main signals (queue occupancies, token counts, unit states and
// instruction indices) under a scope of its own, "vta" for a lone core, "core0", "core1", ...
// for the cores of a system (docs/multicore.md, "Traces"), all on one time axis. Changes are
// written for a window of cycles, sorted by time, one value per signal and time stamp; the
// $timescale is one clock period (10 ns at 100 MHz). The window and the size limit apply to the
// file as a whole.
#pragma once

#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

namespace vta::cycle {

// Signals of one core's scope, in declaration order.
enum VcdSignal : int {
  kSigFetchDispatched = 0,  // instructions dispatched in this run
  kSigQueueLoad,            // instruction-queue occupancy
  kSigQueueCompute,
  kSigQueueStore,
  kSigTokL2G,  // dependency-queue occupancy
  kSigTokG2L,
  kSigTokS2G,
  kSigTokG2S,
  kSigStateLoad,  // unit state (UnitState)
  kSigStateCompute,
  kSigStateStore,
  kSigInsnLoad,  // index of the unit's current or next instruction
  kSigInsnCompute,
  kSigInsnStore,
  kNumVcdSignals
};

class VcdWriter {
 public:
  // Writes `path` for cycles [start, end), one scope per name of `scopes` (one per core);
  // `limit_bytes` (0 = none): past it the file is cut and flush() throws (vta/sim/vcd_limit.h).
  void open(const std::string& path, uint64_t start, uint64_t end, double clock_mhz,
            uint64_t limit_bytes, std::vector<std::string> scopes);
  bool on() const { return !m_path.empty(); }
  // Signal `sig` of scope `scope` takes `value` in cycle `t`. Changes may arrive out of time
  // order (units report them in the order their threads run): they are sorted when written.
  void change(int scope, int sig, uint64_t t, uint64_t value);
  // Appends the changes so far, up to cycle `now`; throws Error if the file cannot be written or
  // passed its size limit.
  void flush(uint64_t now);

 private:
  struct Change {
    uint64_t t;
    int sig;  // scope * kNumVcdSignals + the scope's signal
    uint64_t value;
  };

  int num_signals() const { return static_cast<int>(m_scopes.size()) * kNumVcdSignals; }
  void write_header();
  void write_changes();

  std::string m_path;
  std::ofstream m_file;
  std::vector<std::string> m_scopes;
  bool m_header = false;             // header and $dumpvars written
  uint64_t m_last_t = 0;             // last time stamp written
  std::string m_timescale = "1 ns";  // one VCD time unit
  uint64_t m_units_per_cycle = 1;    // VCD time units per cycle
  uint64_t m_start = 0, m_end = 0;
  std::vector<Change> m_changes;
  // The size limit: bytes the file takes (written + pending changes, each counted at its line
  // length; time stamps and repeated values make the real file a little different).
  uint64_t m_limit = 0;
  uint64_t m_bytes = 0;
  uint64_t m_count_t = UINT64_MAX;   // time stamp of the last change counted
  std::vector<uint64_t> m_counted;   // last value counted per signal
  uint64_t m_cut = UINT64_MAX;       // first cycle no longer recorded (past the limit)
  std::vector<uint64_t> m_at_start;  // value at the window start
  std::vector<uint64_t> m_written;   // last value written per signal
};

}  // namespace vta::cycle
