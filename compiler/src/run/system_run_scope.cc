#include "run/system_run_scope.h"

namespace vta::compiler {

SystemRunScope::SystemRunScope(Runtime& rt) : m_rt(rt) {
  m_rt.system_begin();
}

SystemRunScope::~SystemRunScope() {
  if (!m_ran) {
    m_rt.reset();
  }
}

bool SystemRunScope::run(uint32_t wait_cycles) {
  m_rt.set_command_core(0);
  m_ran = true;
  return m_rt.system_run(wait_cycles);
}

Stats system_run_stats(const Backend& b) {
  Stats s = b.stats();
  for (int k = 1; k < b.cores(); ++k) {
    s.add_counts(b.core_stats(k));
  }
  s.cycles = 0;
  if (const NamedCounter* c = s.find("system.cycles")) {
    s.cycles = uint64_t(c->value);
  }
  return s;
}

}  // namespace vta::compiler
