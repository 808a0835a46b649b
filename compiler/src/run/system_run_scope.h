// One run of several cores of a system (VTASystemBegin ... VTASystemRun, docs/multicore.md) as
// the layer runners that divide one layer's work over the cores record it: each core's program
// goes into its own command queue, kept until every core has one, then all start together.
#pragma once

#include <cstdint>

#include "vta/runtime_object.h"
#include "vta/sim/stats.h"

namespace vta::compiler {

// On an error before the run the runtime is reset, so no later program is kept for a run that
// never comes.
class SystemRunScope {
 public:
  explicit SystemRunScope(Runtime& rt);
  ~SystemRunScope();
  SystemRunScope(const SystemRunScope&) = delete;
  SystemRunScope& operator=(const SystemRunScope&) = delete;
  // The calls that follow record into core `core`'s command queue.
  void record_on(int core) { m_rt.set_command_core(core); }
  // Starts every kept program together; true on a timeout.
  bool run(uint32_t wait_cycles);

 private:
  Runtime& m_rt;
  bool m_ran = false;
};

// The counters of a run of several cores as one layer's: every core's counts added, the cycles
// the system's (first start to last FINISH); core 0's unit counters and the system's named
// counters (coreK.cycles, coreK.dram_contention_cycles, ...) as the backend gives them.
Stats system_run_stats(const Backend& b);

}  // namespace vta::compiler
