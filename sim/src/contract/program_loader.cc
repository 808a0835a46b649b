#include "vta/sim/contract/program_loader.h"

#include <fmt/format.h>

#include "vta/sim/error.h"
#include "vta/sim/insn_check.h"

namespace vta {

LoadedProgram load_program(const IsaCodec& codec, const Dram& dram, uint32_t insn_phys,
                           uint32_t insn_count) {
  const uint8_t* bytes = checked_insn_stream(dram, insn_phys, insn_count);
  if (insn_phys % kInsnBytes != 0) {
    throw ProgramError(
        fmt::format("fetch unit: the instruction stream at physical address {:#x} is not "
                    "{}-byte aligned",
                    insn_phys, kInsnBytes));
  }
  LoadedProgram p;
  p.insn_phys = insn_phys;
  p.insns.resize(insn_count);
  for (uint32_t k = 0; k < insn_count; ++k) {
    p.insns[k] = codec.decode(IsaCodec::load_words(bytes + static_cast<size_t>(k) * kInsnBytes));
    check_insn_static(k, p.insns[k]);
    p.per_stage[p.insns[k].stage()].push_back(k);
  }
  return p;
}

void check_ranges_until_finish(const HwConfig& cfg, const Dram& dram, const LoadedProgram& p) {
  for (uint32_t k = 0; k < p.count(); ++k) {
    const Insn& i = p.insns[k];
    if (i.opcode == kOpFinish) {
      return;
    }
    if (i.opcode == kOpLoad && i.x_size != 0) {
      check_load_ranges(cfg, dram, k, i);
    }
    if (i.opcode == kOpStore && i.x_size != 0) {
      check_store_ranges(cfg, dram, k, i);
    }
    if (i.opcode == kOpGemm || i.opcode == kOpAlu) {
      check_uop_range(cfg, k, i);
    }
  }
}

}  // namespace vta
