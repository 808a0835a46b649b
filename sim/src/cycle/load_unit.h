// LoadUnit: VTA's load stage. Executes LOAD INP and LOAD WGT (2D strided DMA with zero padding
// into the inp/wgt SRAM) through read clients inp and wgt; pops g2l, pushes l2g.
#pragma once

#include "pipeline_unit.h"

namespace vta::cycle {

class LoadUnit : public PipelineUnit {
 public:
  LoadUnit(sc_core::sc_module_name name, const LoadPorts& ports)
      : PipelineUnit(name, kStageLoad, ports.unit), m_inp(ports.inp), m_wgt(ports.wgt) {}

 protected:
  uint64_t execute(uint32_t index, const Insn& insn, uint64_t s) override {
    return execute_load(insn.memory_type == kMemWgt ? m_wgt : m_inp, index, insn, s);
  }

 private:
  ReadPort m_inp, m_wgt;
};

}  // namespace vta::cycle
