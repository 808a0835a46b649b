#include "store_unit.h"

namespace vta::cycle {

uint64_t StoreUnit::execute(uint32_t index, const Insn& i, uint64_t s) {
  if (i.x_size == 0) {
    return s;  // NOP
  }
  FunctionalCore& fc = m_ports.core;
  fc.start_store(index, i);
  const uint64_t e_bytes = static_cast<uint64_t>(m_ports.cfg.out_elem_bytes);
  const uint64_t row_bytes = i.x_size * e_bytes;
  if (m_out.size() < row_bytes * i.y_size) {
    m_out.resize(row_bytes * i.y_size);  // read_store writes every byte used below
  }
  fc.read_store(i, m_out.data());
  std::vector<Burst> bursts;
  std::vector<uint8_t*> data;
  for (uint64_t y = 0; y < i.y_size; ++y) {
    const uint64_t a = (static_cast<uint64_t>(i.dram_base) + y * i.x_stride) * e_bytes;
    const size_t first = bursts.size();
    split_bursts(m_ports.cfg, a, a + row_bytes, bursts);
    for (size_t k = first; k < bursts.size(); ++k) {
      data.push_back(m_out.data() + y * row_bytes + (bursts[k].addr - a));
    }
  }
  if (bursts.empty()) {
    return s;
  }
  uint64_t beats = 0;
  for (const Burst& b : bursts) {
    beats += b.beats;
  }
  const uint64_t e = m_write.write(bursts, data, s + 1);
  m_stats.mem_stall_cycles += e - s - beats;
  return e;
}

}  // namespace vta::cycle
