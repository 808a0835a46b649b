// Backend: one way of executing a VTA instruction stream held in simulated DRAM. The three
// implementations are fsim (untimed functional), cycle (SystemC) and rtl (Verilated Verilog);
// they must agree bit for bit on DRAM contents, and cycle/rtl cycle for cycle.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "vta/sim/dram.h"
#include "vta/sim/error.h"
#include "vta/sim/hw_config.h"
#include "vta/sim/stats.h"

namespace vta {

enum class RunStatus {
  kOk,       // FINISH executed
  kTimeout,  // wait_cycles elapsed before FINISH (timed backends; fsim: its work limit)
};

// One core's instruction stream in a run of several cores (Backend::run_cores); a count of 0
// leaves the core idle.
struct CoreProgram {
  uint32_t insn_phys = 0;
  uint32_t insn_count = 0;
};

class Backend {
 public:
  Backend(const HwConfig& cfg, Dram& dram) : m_cfg(cfg), m_dram(dram) {
    for (int k = 1; k < cfg.num_cores(); ++k) {
      m_core_stats.push_back(std::make_unique<Stats>());
    }
  }
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

  // Cores of the hardware (the config's CORES; 1 without it). run() uses core 0.
  int cores() const { return m_cfg.num_cores(); }
  // Runs programs[k] on core k (docs/multicore.md): every core with a program starts in the
  // same cycle, the run ends when all have executed FINISH (timed backends: or after
  // `wait_cycles` cycles of the system). Errors name the core. Core k's counters accumulate in
  // core_stats(k); stats() (core 0's) also gets the system's counters ("system.cycles",
  // "coreK.cycles", "coreK.dram_contention_cycles", ...). A backend that runs one core only
  // throws Error when a core other than 0 has a program.
  virtual RunStatus run_cores(const std::vector<CoreProgram>& programs, uint64_t wait_cycles) {
    for (size_t k = 1; k < programs.size(); ++k) {
      if (programs[k].insn_count != 0) {
        throw Error(std::string("backend '") + name() + "' runs one core only (core " +
                    std::to_string(k) + " has a program)");
      }
    }
    return programs.empty() ? RunStatus::kOk
                            : run(programs[0].insn_phys, programs[0].insn_count, wait_cycles);
  }
  // Core k's statistics; core 0's are stats().
  const Stats& core_stats(int k) const {
    return k == 0 ? m_stats : *m_core_stats.at(static_cast<size_t>(k - 1));
  }

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
  void clear_stats() {
    m_stats.clear();
    for (auto& s : m_core_stats) {
      s->clear();
    }
  }

 protected:
  HwConfig m_cfg;
  Dram& m_dram;
  Stats m_stats;
  std::vector<std::unique_ptr<Stats>> m_core_stats;  // cores 1..N-1 (stable addresses)
  uint64_t m_vcd_limit = 0;

  Stats& core_stats_mut(int k) {
    return k == 0 ? m_stats : *m_core_stats.at(static_cast<size_t>(k - 1));
  }
};

}  // namespace vta
