#include "vta/sim/cycle/sim_context.h"

#include <systemc>

#if defined(__SANITIZE_ADDRESS__)
#define VTA_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define VTA_ASAN 1
#endif
#endif

#ifdef VTA_ASAN
#include <pthread.h>
#include <sanitizer/common_interface_defs.h>
#endif

namespace vta::cycle {

namespace {

// SystemC's coroutines (QuickThreads in Debian's libsystemc) tell ASan about every stack
// switch, but the switch back to the main coroutine names no stack (bottom 0, size 0): after
// sc_start ASan believes the thread runs on the stack [0, 0). The next exception thrown on the
// real stack then cannot clear the frames it unwinds ("ASan is ignoring requested
// __asan_handle_no_return"), and later calls that reuse those frames hit their stale redzones
// (a false stack-buffer-overflow). Announcing a switch to the thread's own stack, with its
// real bounds, puts ASan right again.
void restore_sanitizer_stack() {
#ifdef VTA_ASAN
  pthread_attr_t attr;
  if (pthread_getattr_np(pthread_self(), &attr) != 0) {
    return;
  }
  void* bottom = nullptr;
  size_t size = 0;
  const int got = pthread_attr_getstack(&attr, &bottom, &size);
  pthread_attr_destroy(&attr);
  if (got != 0) {
    return;
  }
  void* fake_stack = nullptr;
  __sanitizer_start_switch_fiber(&fake_stack, bottom, size);
  __sanitizer_finish_switch_fiber(fake_stack, nullptr, nullptr);
#endif
}

// Held by whoever uses a SystemC kernel (recursive: a backend's constructor activates its
// kernel, then builds modules that may activate it again).
std::recursive_mutex& kernel_lock() {
  static std::recursive_mutex m;
  return m;
}

}  // namespace

SimContext::SimContext() {
  const Lock lock(kernel_lock());
  m_ctx = new sc_core::sc_simcontext;
  sc_core::sc_curr_simcontext = m_ctx;
  sc_core::sc_default_global_context = m_ctx;
  // Our processes end runs with sc_pause/sc_stop; keep the kernel's info messages off stdout
  // (Catch lists tests on stdout).
  sc_core::sc_report_handler::set_actions("/OSCI/SystemC", sc_core::SC_INFO,
                                          sc_core::SC_DO_NOTHING);
  sc_core::sc_report_handler::set_actions("/IEEE_Std_1666/deprecated", sc_core::SC_DO_NOTHING);
}

SimContext::Lock SimContext::activate() const {
  Lock lock(kernel_lock());
  sc_core::sc_curr_simcontext = m_ctx;
  sc_core::sc_default_global_context = m_ctx;
  return lock;
}

void SimContext::start() {
  sc_core::sc_start();
  restore_sanitizer_stack();
}

void SimContext::start(const sc_core::sc_time& duration, sc_core::sc_starvation_policy policy) {
  sc_core::sc_start(duration, policy);
  restore_sanitizer_stack();
}

}  // namespace vta::cycle
