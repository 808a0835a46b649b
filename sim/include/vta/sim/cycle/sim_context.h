// SimContext: one private SystemC kernel (sc_simcontext) per simulator object.
//
// SystemC allows one elaboration per kernel, and the kernel is a process-wide global. To let a
// process create, run and destroy several timed backends (the runtime allocates devices, tests
// build many), each backend owns its own sc_simcontext and makes it current before it builds
// modules or calls sc_start (toolchain.md section 4). Old kernels are never deleted (SystemC
// does not support tearing one down); each costs a few kilobytes plus its process stacks.
#pragma once

#include <systemc>

namespace vta::cycle {

class SimContext {
 public:
  // Creates a fresh kernel and makes it current.
  SimContext();
  SimContext(const SimContext&) = delete;
  SimContext& operator=(const SimContext&) = delete;

  // Makes this kernel the current one (call before sc_start or any SystemC object use).
  void activate() const;
  sc_core::sc_simcontext* get() const { return m_ctx; }

  // sc_start on the current kernel. Every simulation goes through these: in an
  // AddressSanitizer build they also give ASan back the calling thread's stack afterwards
  // (sim_context.cc), so that an exception thrown on it later is handled correctly.
  static void start();
  static void start(const sc_core::sc_time& duration,
                    sc_core::sc_starvation_policy policy = sc_core::SC_RUN_TO_TIME);

 private:
  sc_core::sc_simcontext* m_ctx;
};

}  // namespace vta::cycle
