// TraceRecorder: the cycle model's optional outputs.
//  * Perfetto / Chrome JSON trace: one track per unit (fetch, load, compute, store), one span
//    per instruction named by its disassembly, dependency tokens as flow arrows from the pushing
//    instruction to the popping one; fetch bursts on the fetch track and the data beats of every
//    memory burst on two memory tracks; the memory model's own events (DRAM commands) on a
//    seventh. Time stamps are microseconds at CLOCK_MHZ.
//  * Named slices on top-level tracks (network layers, tuning candidates) opened and closed by
//    the caller between runs; a slice ends with the counters of what ran inside it. Slices of a
//    given length (host layers) added between runs move the later runs by that length.
//  * VCD of the main signals (queue occupancies, token counts, unit states and instruction
//    indices) for a window of cycles, written by a VcdWriter (vcd_writer.h).
//  * A system of several cores (docs/multicore.md): core 0's recorder writes both files and every
//    other core's recorder is attached to it (attach_core). In the trace each core's tracks form
//    a process of their own ("VTA core K", pid K + 1) and the DRAM commands, which every core
//    shares, a process "DRAM (shared)" after them; in the VCD each core's signals are under a
//    scope of their own ("core0", "core1", ...). A single core keeps one process, pid 1, and
//    one scope, "vta".
// Time is the cycles of every run since the recorder was enabled, laid end to end; it never
// restarts (clearing the backend's Stats does not touch it). The cores of a system share core
// 0's time.
// Both files are written incrementally at the end of every run (only what is new), and are
// complete, valid files whenever run() returns.
#pragma once

#include <array>
#include <cstdint>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "vcd_writer.h"
#include "vta/sim/isa.h"
#include "vta/sim/stats.h"

namespace vta::cycle {

// Unit states shown in the VCD.
enum UnitState : uint32_t {
  kStateIdle = 0,        // no instruction visible
  kStateBusy = 1,        // executing
  kStateStallToken = 2,  // waiting for a dependency token
  kStateStallFull = 3,   // waiting for room in a dependency queue
};

// Why an instruction started when it did: the cycles its unit waited between the end of the
// previous instruction and this one's start, by cause, and the memory stall cycles inside it.
struct InsnWaits {
  uint64_t idle = 0;                // no instruction visible in the unit's instruction queue
  std::array<uint64_t, 4> token{};  // waiting for a token, per dependency queue
  std::array<uint64_t, 4> full{};   // waiting for room in a dependency queue, per queue
  uint64_t mem_stall = 0;           // inside the span: waiting on memory
};

class TraceRecorder {
 public:
  void enable_trace(const std::string& path, double clock_mhz);
  // `limit_bytes` (0 = none): past it the VCD is cut and flush() throws (vta/sim/vcd_limit.h).
  // `system_cores`: 0 for a lone core (scope "vta"), else the system's cores (scope "core<k>").
  void enable_vcd(const std::string& path, uint64_t start, uint64_t end, double clock_mhz,
                  uint64_t limit_bytes = 0, int system_cores = 0);
  bool tracing() const { return m_sink != nullptr ? m_sink->tracing() : !m_trace_path.empty(); }
  // Makes `other` core `core` (>= 1) of this recorder's system: its events and VCD changes go
  // into this recorder's files, on this recorder's time; in the trace under that core's own
  // process, with this recorder's DRAM track in a process of its own.
  void attach_core(TraceRecorder& other, int core);
  // Only events overlapping trace cycles [start, end) are kept (the CLI's --trace-window).
  void set_trace_window(uint64_t start, uint64_t end) {
    m_window_start = start;
    m_window_end = end;
  }
  // Whether absolute cycles [s_abs, e_abs] overlap the trace window.
  bool in_window(uint64_t s_abs, uint64_t e_abs) const {
    const TraceRecorder& r = root();
    return trace_cycle(e_abs) >= r.m_window_start && trace_cycle(s_abs) < r.m_window_end;
  }
  bool vcd_on() const { return root().m_vcd.on(); }

  // Maps absolute SystemC cycles to trace cycles for the run starting at `run_base_abs`; its
  // cycle 0 follows the runs before it.
  void begin_run(uint64_t run_base_abs) {
    m_base = run_base_abs;
    m_before = m_elapsed;
  }
  // The run took `cycles` cycles: later runs (and slices) start after it.
  void end_run(uint64_t cycles) { m_elapsed = m_before + cycles; }
  uint64_t trace_cycle(uint64_t abs) const {
    const TraceRecorder& r = root();
    return abs - r.m_base + r.m_before;
  }

  // Track ids: 0 fetch, 1 load, 2 compute, 3 store, 4 memory read data, 5 memory write data,
  // 6 DRAM commands (memory model "dram").
  static constexpr int kNumTracks = 7;
  static constexpr int kDramTrack = 6;
  void span(int track, uint32_t index, uint64_t s_abs, uint64_t e_abs, const Insn& insn,
            const InsnWaits& waits);
  // A span with a free-form name (fetch bursts, memory bursts).
  void span_named(int track, uint64_t s_abs, uint64_t e_abs, std::string name);
  // A fresh id for the flow arrow of one token (1, 2, ... over the recorder's life).
  uint64_t new_flow_id() { return m_sink != nullptr ? m_sink->new_flow_id() : m_next_flow_id++; }
  void flow_start(uint64_t id, int track, uint64_t abs, const char* queue);
  void flow_end(uint64_t id, int track, uint64_t abs, const char* queue);
  void change(int sig, uint64_t abs, uint64_t value);
  // A named slice on the top-level track `track` from the end of the last run to the end of the
  // last run at end_slice; `counters` become its args. Slices on one track do not nest.
  void begin_slice(const std::string& track, const std::string& name);
  void end_slice(const std::string& track, const Stats& counters);
  // A slice of `cycles` on the top-level track `track` from the end of the last run, with
  // `args`; later runs and slices start after it (time the device waits, e.g. a host layer).
  void add_slice(const std::string& track, const std::string& name, uint64_t cycles,
                 nlohmann::json args);

  // Appends what happened since the last flush to both files (if enabled); `now_abs` is the
  // absolute cycle the run ended at. Throws Error if a file cannot be written.
  void flush(uint64_t now_abs);

 private:
  struct Event {
    char ph;  // 'X' span, 's' flow start, 'f' flow end
    int track;
    int pid;       // the process: 1 for a single core; core K + 1, or the DRAM's, in a system
    uint64_t ts;   // trace cycle
    uint64_t dur;  // cycles (spans)
    uint64_t id;   // flow id or instruction index
    std::string name;
    nlohmann::json args;  // extra span args (instruction waits, slice counters)
  };
  struct OpenSlice {
    int track;
    uint64_t ts;
    std::string name;
  };
  void write_trace();
  const TraceRecorder& root() const { return m_sink != nullptr ? *m_sink : *this; }
  // Where this recorder's events go, and the process of an event of `track`.
  TraceRecorder& sink() { return m_sink != nullptr ? *m_sink : *this; }
  int pid_of(int track) const;
  void push(Event e) { sink().m_events.push_back(std::move(e)); }
  void write_process_name(int pid, const std::string& name);
  void name_core_processes();
  void write_track_name(int tid, int sort_index, const std::string& name, int pid = 1);
  int slice_track(const std::string& track);    // its tid, named in the file on first use
  static constexpr int kFirstSliceTrack = 100;  // tid of the first top-level slice track

  TraceRecorder* m_sink = nullptr;  // core 0's recorder, for core m_core >= 1 of a system
  int m_core = 0;
  int m_system_cores = 0;  // on core 0's recorder: cores attached + 1 (0: a single core)
  std::string m_trace_path;
  std::fstream m_trace_file;        // JSON, rewritten from m_footer_pos on every flush
  std::streampos m_footer_pos = 0;  // where the closing "]}" starts
  VcdWriter m_vcd;
  double m_mhz = 100;
  uint64_t m_window_start = 0, m_window_end = UINT64_MAX;  // of the Perfetto trace
  uint64_t m_base = 0, m_before = 0;
  uint64_t m_elapsed = 0;                     // trace cycles of all finished runs
  std::map<std::string, int> m_slice_tracks;  // top-level track name -> tid
  std::map<std::string, OpenSlice> m_open;    // open slice per track name
  uint64_t m_next_flow_id = 1;
  std::vector<Event> m_events;
};

}  // namespace vta::cycle
