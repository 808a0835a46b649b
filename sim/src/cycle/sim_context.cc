#include "vta/sim/cycle/sim_context.h"

#include <systemc>

namespace vta::cycle {

SimContext::SimContext() : m_ctx(new sc_core::sc_simcontext) {
  activate();
  // Our processes end runs with sc_pause/sc_stop; keep the kernel's info messages off stdout
  // (Catch lists tests on stdout).
  sc_core::sc_report_handler::set_actions("/OSCI/SystemC", sc_core::SC_INFO,
                                          sc_core::SC_DO_NOTHING);
  sc_core::sc_report_handler::set_actions("/IEEE_Std_1666/deprecated", sc_core::SC_DO_NOTHING);
}

void SimContext::activate() const {
  sc_core::sc_curr_simcontext = m_ctx;
  sc_core::sc_default_global_context = m_ctx;
}

}  // namespace vta::cycle
