// The ports of the core's units: each unit gets, in its constructor, references to exactly what
// it may touch: its instruction queue, the dependency-token queues it pops and pushes (by the
// role they play for its stage), its clients of the memory interface, the functional core, run
// control, the trace, the program of the current run and the Stats it counts into. VtaCore
// wires them; a unit test builds one unit with ports of its own.
#pragma once

#include <array>

#include "hw_queues.h"
#include "memory_interface.h"
#include "run_control.h"
#include "trace_recorder.h"
#include "vta/sim/contract/program_loader.h"
#include "vta/sim/functional_core.h"
#include "vta/sim/hw_config.h"
#include "vta/sim/stats.h"

namespace vta::cycle {

// The decoded, checked program of the current run (the backend sets it before each run).
class RunProgram {
 public:
  void set(const LoadedProgram* program) { m_program = program; }
  const LoadedProgram& get() const { return *m_program; }
  const Insn& insn(uint32_t index) const { return m_program->insns[index]; }

 private:
  const LoadedProgram* m_program = nullptr;
};

// The Stats the units count into: those of the backend that owns the core now (a core kept for
// reuse, cycle_backend.cc, serves one backend after another).
class StatsPort {
 public:
  explicit StatsPort(Stats& stats) : m_stats(&stats) {}
  void rebind(Stats& stats) { m_stats = &stats; }
  Stats& get() const { return *m_stats; }

 private:
  Stats* m_stats;
};

// The token queues of one stage by role (sim/README.md section 1); null where the stage has
// none. Load: pop_next g2l, push_next l2g. Compute: pop_prev l2g, pop_next s2g, push_prev g2l,
// push_next g2s. Store: pop_prev g2s, push_prev s2g.
struct TokenPorts {
  TokenQueue* pop_prev = nullptr;
  TokenQueue* pop_next = nullptr;
  TokenQueue* push_prev = nullptr;
  TokenQueue* push_next = nullptr;
};

// What the load, compute and store units have in common.
struct PipelinePorts {
  InsnQueue& insns;  // its instruction queue: fetch pushes, the unit pops
  TokenPorts tokens;
  FunctionalCore& core;  // SRAMs and instruction semantics (shared with fsim)
  RunControl& run;
  TraceRecorder& trace;
  const RunProgram& program;
  StatsPort& stats;  // upstream counters: instructions executed per opcode
  const HwConfig& cfg;
};

// Load: LOAD INP through read client inp, LOAD WGT through wgt.
struct LoadPorts {
  PipelinePorts unit;
  ReadPort inp;
  ReadPort wgt;
};

// Compute: LOAD UOP through read client uop, LOAD ACC / ACC_8BIT through acc.
struct ComputePorts {
  PipelinePorts unit;
  ReadPort uop;
  ReadPort acc;
};

// Store: the write channel.
struct StorePorts {
  PipelinePorts unit;
  WritePort out;
};

// Fetch: reads the stream through read client fetch and feeds the three instruction queues.
struct FetchPorts {
  std::array<InsnQueue*, 4> insns;  // index = Stage (load, compute, store); [0] unused
  ReadPort mem;
  RunControl& run;
  TraceRecorder& trace;
  const RunProgram& program;
  const HwConfig& cfg;
};

}  // namespace vta::cycle
