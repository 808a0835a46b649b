// RunControl: start, end and abort of one run of the SystemC core, shared by every unit thread.
//
// The unit threads live as long as the backend and serve many runs. A thread waits in
// wait_start() until a run begins, then executes; every wait inside a run goes through
// wait_until()/wait_event(), which also wake on `abort` and unwind the thread (RunAborted) when
// the run has ended (FINISH, an error, a deadlock or a timeout). So each run starts from a reset
// core, as the timing contract says, without rebuilding the modules.
#pragma once

#include <algorithm>
#include <cstdint>
#include <exception>
#include <functional>
#include <utility>

#include <systemc>

#include "vta/sim/cycle/memory_target.h"
#include "vta/sim/run_progress.h"

namespace vta::cycle {

struct RunAborted {};

class RunControl {
 public:
  // ---- host side ----
  // Begins run number gen+1 whose cycle 0 is absolute cycle `base`.
  void begin(uint64_t base) {
    ++m_gen;
    m_base = base;
    m_active = true;
    m_finished = false;
    m_error = nullptr;
    m_shown_cycles = 0;
    m_start.notify(cycles(base - now_cycle()));
  }
  // The run times out at absolute cycle `c` (UINT64_MAX: never); call after begin.
  void set_budget_end(uint64_t c) { m_budget_end = c; }
  // Unwinds every thread that is still inside a run (call outside sc_start, then sc_start(0)).
  void abort_all() {
    m_end_cycle = now_cycle();
    m_active = false;
    m_abort.notify(sc_core::SC_ZERO_TIME);
  }

  // ---- thread side ----
  // Blocks until a run this thread has not seen yet is active; returns its generation.
  uint64_t wait_start(uint64_t seen) {
    while (!(m_active && m_gen != seen && now_cycle() >= m_base)) {
      sc_core::wait(m_start);
    }
    return m_gen;
  }
  void check(uint64_t gen) const {
    if (!m_active || gen != m_gen) {
      throw RunAborted{};
    }
  }
  // Waits until absolute cycle `c` (no-op if already there).
  void wait_until(uint64_t c, uint64_t gen) {
    const uint64_t now = now_cycle();
    if (c > now) {
      sc_core::wait(cycles(c - now), m_abort);
    }
    check(gen);
  }
  void wait_event(const sc_core::sc_event& e, uint64_t gen) {
    sc_core::wait(e | m_abort);
    check(gen);
  }
  // A unit retired an instruction in absolute cycle `c`: the process's progress display
  // (vta/sim/run_progress.h) learns of it and of the cycles up to it, and the caller's stop
  // check is asked once per 2^20 cycles (poll_stop throws RunInterrupted: the run fails with it).
  void retired(uint64_t c) {
    const uint64_t done = c + 1 - m_base;
    const uint64_t step = done > m_shown_cycles ? done - m_shown_cycles : 0;
    run_progress().add(step, 1);
    m_shown_cycles = std::max(m_shown_cycles, done);
    poll_stop(step);
  }
  // FINISH completed in absolute cycle `c`: the run ends (threads unwind in this delta).
  void finish(uint64_t c) {
    m_finished = true;
    m_finish_cycle = c;
    m_end_cycle = c + 1;
    end();
  }
  // A unit hit an illegal instruction: the run ends and run() rethrows `e`.
  void fail(std::exception_ptr e) {
    if (!m_error) {
      m_error = e;
    }
    m_end_cycle = now_cycle();
    end();
  }

  // Called instead of pausing the kernel when this core's run ends (a system of several cores
  // pauses once every core's run has ended).
  void set_end_hook(std::function<void()> hook) { m_end_hook = std::move(hook); }

  // An instruction ending in absolute cycle `c` would retire after the run's budget.
  bool past_budget(uint64_t c) const { return c >= m_budget_end; }
  uint64_t gen() const { return m_gen; }
  uint64_t base() const { return m_base; }
  bool active() const { return m_active; }
  bool finished() const { return m_finished; }
  uint64_t finish_cycle() const { return m_finish_cycle; }
  // Absolute cycle at which the run ended (exclusive): units account their cycles up to it.
  uint64_t end_cycle() const { return m_end_cycle; }
  std::exception_ptr error() const { return m_error; }
  // Run-relative cycle of absolute cycle c.
  uint64_t rel(uint64_t c) const { return c - m_base; }

 private:
  void end() {
    m_active = false;
    m_abort.notify();
    if (m_end_hook) {
      m_end_hook();
    } else {
      sc_core::sc_pause();
    }
  }

  uint64_t m_gen = 0;
  uint64_t m_base = 0;
  bool m_active = false;
  bool m_finished = false;
  uint64_t m_finish_cycle = 0;
  uint64_t m_end_cycle = 0;
  uint64_t m_shown_cycles = 0;  // cycles of this run given to run_progress
  uint64_t m_budget_end = UINT64_MAX;
  std::exception_ptr m_error;
  std::function<void()> m_end_hook;
  sc_core::sc_event m_start{"run_start"};
  sc_core::sc_event m_abort{"run_abort"};
};

}  // namespace vta::cycle
