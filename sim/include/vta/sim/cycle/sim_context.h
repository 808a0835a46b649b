// SimContext: one private SystemC kernel (sc_simcontext) per simulator object.
//
// SystemC allows one elaboration per kernel, and the kernel is a process-wide global. To let a
// process create, run and destroy several timed backends (the runtime allocates devices, tests
// build many), each backend owns its own sc_simcontext and makes it current before it builds
// modules or calls sc_start (toolchain.md section 4). Kernels are never deleted (SystemC does
// not support tearing one down); the backends reuse them with their cores instead
// (cycle_backend.cc, rtl_backend.cc), so a process does not grow with each backend.
//
// Threads: the current kernel is a process-wide global and SystemC's coroutines are not
// thread-safe, so one thread at a time may be inside any kernel of the process. activate()
// therefore returns a guard holding the process's kernel lock: every use of a kernel (building
// or destroying modules, sc_start) happens while the guard lives. Backends of several threads
// then take turns run by run; each run is still the same simulation as alone.
#pragma once

#include <mutex>

#include <systemc>

namespace vta::cycle {

class SimContext {
 public:
  using Lock = std::unique_lock<std::recursive_mutex>;

  // Creates a fresh kernel and makes it current (under the kernel lock while it does).
  SimContext();
  SimContext(const SimContext&) = delete;
  SimContext& operator=(const SimContext&) = delete;

  // Takes the process's kernel lock and makes this kernel the current one; keep the guard for
  // as long as SystemC objects are used (before sc_start or any SystemC object use).
  [[nodiscard]] Lock activate() const;
  sc_core::sc_simcontext* get() const { return m_ctx; }

  // sc_start on the current kernel. Every simulation goes through these: in an
  // AddressSanitizer build they also give ASan back the calling thread's stack afterwards
  // (sim_context.cc), so that an exception thrown on it later is handled correctly.
  static void start();
  static void start(const sc_core::sc_time& duration,
                    sc_core::sc_starvation_policy policy = sc_core::SC_RUN_TO_TIME);

 private:
  sc_core::sc_simcontext* m_ctx = nullptr;
};

}  // namespace vta::cycle
