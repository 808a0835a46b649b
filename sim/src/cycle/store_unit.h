// StoreUnit: VTA's store stage. STORE copies out-buffer tiles (int8) to DRAM rows through the
// write channel of the memory interface; the instruction ends with the last write response.
// Pops g2s, pushes s2g.
#pragma once

#include <vector>

#include "pipeline_unit.h"

namespace vta::cycle {

class StoreUnit : public PipelineUnit {
 public:
  StoreUnit(sc_core::sc_module_name name, const StorePorts& ports)
      : PipelineUnit(name, kStageStore, ports.unit), m_write(ports.out) {}

 protected:
  uint64_t execute(uint32_t index, const Insn& insn, uint64_t s) override;

 private:
  WritePort m_write;
  std::vector<uint8_t> m_out;  // staged out tiles of one STORE
};

}  // namespace vta::cycle
