#include "rtl_vcd.h"

#include <utility>

#include "verilated.h"
#include "vta/sim/error.h"
#if VM_TRACE
#include "verilated_vcd_c.h"
#endif

namespace vta::rtl {

#if VM_TRACE
struct RtlVcd::File {
  VerilatedVcdC vcd;
};
#else
struct RtlVcd::File {};
#endif

RtlVcd::RtlVcd() : m_context(std::make_unique<VerilatedContext>()) {
#if VM_TRACE
  m_context->traceEverOn(true);
#endif
}

RtlVcd::~RtlVcd() {
  close();
}

bool RtlVcd::open(const std::string& path, const std::vector<RtlModel*>& models) {
  close();
#if VM_TRACE
  auto file = std::make_unique<File>();
  for (RtlModel* m : models) {
    if (!m->add_to_vcd(file->vcd)) {
      return false;
    }
  }
  file->vcd.open(path.c_str());
  if (!file->vcd.isOpen()) {  // Verilator only records the failure
    throw Error("rtl backend: cannot write VCD file '" + path + "'");
  }
  m_file = std::move(file);
  return true;
#else
  (void)path;
  (void)models;
  return false;
#endif
}

void RtlVcd::dump(uint64_t time) {
#if VM_TRACE
  if (m_active && m_file) {
    m_file->vcd.dump(time);
  }
#else
  (void)time;
#endif
}

void RtlVcd::close() {
#if VM_TRACE
  if (m_file) {
    m_file->vcd.close();
  }
#endif
  m_file.reset();
}

}  // namespace vta::rtl
