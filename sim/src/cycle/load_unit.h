// LoadUnit: VTA's load stage. Executes LOAD INP and LOAD WGT (2D strided DMA with zero padding
// into the inp/wgt SRAM) through read clients 2 (inp) and 3 (wgt); pops g2l, pushes l2g.
#pragma once

#include "pipeline_unit.h"

namespace vta::cycle {

class LoadUnit : public PipelineUnit {
 public:
  LoadUnit(sc_core::sc_module_name name, CoreShared& core) : PipelineUnit(name, core, kStageLoad) {}

 protected:
  uint64_t execute(uint32_t index, const Insn& insn, uint64_t s) override {
    return execute_load(insn.memory_type == kMemWgt ? kClientWgt : kClientInp, index, insn, s);
  }
};

}  // namespace vta::cycle
