// Backend: one way of executing a VTA instruction stream held in simulated DRAM. The three
// implementations are fsim (untimed functional), cycle (SystemC) and rtl (Verilated Verilog);
// they must agree bit for bit on DRAM contents, and cycle/rtl cycle for cycle.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "vta/sim/dram.h"
#include "vta/sim/error.h"
#include "vta/sim/hw_config.h"
#include "vta/sim/stats.h"

namespace vta {

enum class RunStatus {
  kOk,       // FINISH executed
  kTimeout,  // wait_cycles elapsed before FINISH (timed backends; fsim: its work limit)
};

class Backend {
 public:
  Backend(const HwConfig& cfg, Dram& dram) : m_cfg(cfg), m_dram(dram) {}
  virtual ~Backend() = default;
  Backend(const Backend&) = delete;
  Backend& operator=(const Backend&) = delete;

  virtual const char* name() const = 0;

  // Executes `insn_count` instructions starting at physical byte address `insn_phys` until
  // FINISH. Timed backends give up after `wait_cycles` cycles (0 = no limit); fsim ignores it
  // (FsimBackend::set_work_limit bounds it instead). Throws
  // ProgramError naming instruction index, unit and field for an illegal program (bad field,
  // out-of-range SRAM or DRAM access, deadlock, no FINISH). Statistics accumulate in stats().
  virtual RunStatus run(uint32_t insn_phys, uint32_t insn_count, uint64_t wait_cycles) = 0;

  // Timed backends write a Perfetto/Chrome JSON trace of later runs to `path`.
  virtual void enable_trace(const std::string& path) {
    throw Error(std::string("backend '") + name() + "' has no timing, so no trace: " + path);
  }
  // Keeps only the trace events that overlap cycles [start, end) of later runs (counted as the
  // VCD window is); the DRAM track's per-run cap then counts only those. Call after
  // enable_trace.
  virtual void set_trace_window(uint64_t start, uint64_t end) {
    (void)start;
    (void)end;
  }
  // With a trace enabled: a named slice (a network layer, a tuning candidate) on the top-level
  // track `track`, covering the runs between begin and end; `counters` (what ran inside it)
  // become its args. Without a trace (or timing) these do nothing.
  virtual void begin_trace_slice(const std::string& track, const std::string& name) {
    (void)track;
    (void)name;
  }
  virtual void end_trace_slice(const std::string& track, const Stats& counters) {
    (void)track;
    (void)counters;
  }
  // With a trace enabled: a slice of `cycles` on the top-level track `track` at the end of the
  // trace, with `args` (counts) as its args; later runs start after it. It shows time the
  // device waits for others (a host layer of a serial network run). Else nothing.
  virtual void add_trace_slice(const std::string& track, const std::string& name, uint64_t cycles,
                               const std::map<std::string, uint64_t>& args) {
    (void)track;
    (void)name;
    (void)cycles;
    (void)args;
  }
  // Timed backends dump the main signals of cycles [start, end) of later runs as VCD to `path`.
  virtual void enable_vcd(const std::string& path, uint64_t start, uint64_t end) {
    (void)start;
    (void)end;
    throw Error(std::string("backend '") + name() + "' has no timing, so no VCD: " + path);
  }

  // Largest VCD enable_vcd may write, in bytes (0 = no limit, the default; the CLI's
  // --vcd-max-mb). Past it the file is cut and the run ends in an Error that gives the size the
  // window would have had (vta/sim/vcd_limit.h). Set it before enable_vcd.
  void set_vcd_limit(uint64_t bytes) { m_vcd_limit = bytes; }

  const HwConfig& config() const { return m_cfg; }
  Dram& dram() { return m_dram; }
  const Stats& stats() const { return m_stats; }
  void clear_stats() { m_stats.clear(); }

 protected:
  HwConfig m_cfg;
  Dram& m_dram;
  Stats m_stats;
  uint64_t m_vcd_limit = 0;
};

}  // namespace vta
