// CoreDevice: one core of a system backend (a config with CORES, docs/multicore.md) as the
// device a device handle and a command queue run on. Alone, run() executes the stream on its
// core while the others idle; while a system run collects (SystemRun), run() keeps the program
// instead, and SystemRun::run starts every kept program together.
#pragma once

#include <cstdint>
#include <vector>

#include "vta/sim/backend.h"

namespace vta {

// The programs of one run of several cores, one per core at most.
class SystemRun {
 public:
  explicit SystemRun(Backend& system) : m_system(system) {}

  bool collecting() const { return m_collecting; }
  // Starts collecting (drops whatever was kept).
  void begin();
  // Keeps core `core`'s program; throws Error if the core already has one in this run.
  void keep(int core, uint32_t insn_phys, uint32_t insn_count);
  // Runs the kept programs together and stops collecting; true on a timeout. Throws Error if
  // begin() was not called.
  bool run(uint64_t wait_cycles);
  // Replicated runs (Runtime::set_replicated_run): a program core 0 runs alone runs on every
  // core together instead.
  bool replicate = false;

 private:
  Backend& m_system;
  bool m_collecting = false;
  std::vector<CoreProgram> m_programs;
};

class CoreDevice : public Backend {
 public:
  CoreDevice(Backend& system, int core, SystemRun& batch);

  const char* name() const override { return m_system.name(); }
  RunStatus run(uint32_t insn_phys, uint32_t insn_count, uint64_t wait_cycles) override;
  int core() const { return m_core; }

 private:
  Backend& m_system;
  int m_core;
  SystemRun& m_batch;
};

}  // namespace vta
