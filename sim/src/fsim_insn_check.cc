#include "vta/sim/fsim_insn_check.h"

#include <fmt/format.h>

#include "vta/sim/dram.h"
#include "vta/sim/error.h"

namespace vta {

const char* stage_unit_name(Stage stage) {
  switch (stage) {
    case kStageLoad:
      return "load";
    case kStageCompute:
      return "compute";
    case kStageStore:
      return "store";
    case kStageNone:
      break;
  }
  return "fetch";
}

std::string insn_error_prefix(uint64_t index, const Insn& insn) {
  std::string op = opcode_name(insn.opcode);
  if (insn.opcode == kOpLoad || insn.opcode == kOpStore) {
    op += std::string(" ") + mem_type_name(insn.memory_type);
  }
  return fmt::format("instruction {} ({}, {} unit)", index, op, stage_unit_name(insn.stage()));
}

namespace {

[[noreturn]] void fail(uint64_t index, const Insn& insn, const char* field, uint64_t value,
                       const std::string& why) {
  throw ProgramError(
      fmt::format("{}: field '{}' = {}: {}", insn_error_prefix(index, insn), field, value, why));
}

}  // namespace

void check_insn_static(uint64_t index, const Insn& i) {
  if (i.opcode > kOpAlu) {
    fail(index, i, "opcode", i.opcode,
         "not a VTA opcode (LOAD 0, STORE 1, GEMM 2, FINISH 3, ALU 4)");
  }
  if (i.opcode == kOpLoad) {
    if (i.memory_type > kMemAcc8) {
      fail(index, i, "memory_type", i.memory_type,
           "not a memory type (UOP 0, WGT 1, INP 2, ACC 3, OUT 4, ACC_8BIT 5)");
    }
    if (i.memory_type == kMemOut) {
      fail(index, i, "memory_type", i.memory_type, "LOAD cannot write the OUT buffer");
    }
  }
  if (i.opcode == kOpStore) {
    if (i.memory_type > kMemAcc8) {
      fail(index, i, "memory_type", i.memory_type,
           "not a memory type (UOP 0, WGT 1, INP 2, ACC 3, OUT 4, ACC_8BIT 5)");
    }
    if (i.x_size != 0 && i.memory_type != kMemOut) {
      fail(index, i, "memory_type", i.memory_type, "STORE can only read the OUT buffer (4)");
    }
    const std::pair<const char*, uint32_t> pads[] = {{"y_pad_0", i.y_pad_0},
                                                     {"y_pad_1", i.y_pad_1},
                                                     {"x_pad_0", i.x_pad_0},
                                                     {"x_pad_1", i.x_pad_1}};
    for (const auto& [name, v] : pads) {
      if (v != 0) {
        fail(index, i, name, v, "STORE has no padding");
      }
    }
  }
  const Stage stage = i.stage();
  if (stage == kStageLoad) {
    if (i.pop_prev_dep) {
      fail(index, i, "pop_prev_dep", 1, "the load unit has no previous unit to wait for");
    }
    if (i.push_prev_dep) {
      fail(index, i, "push_prev_dep", 1, "the load unit has no previous unit to signal");
    }
  }
  if (stage == kStageStore) {
    if (i.pop_next_dep) {
      fail(index, i, "pop_next_dep", 1, "the store unit has no next unit to wait for");
    }
    if (i.push_next_dep) {
      fail(index, i, "push_next_dep", 1, "the store unit has no next unit to signal");
    }
  }
  if (i.opcode == kOpAlu && i.alu_opcode > kAluMul) {
    fail(index, i, "alu_opcode", i.alu_opcode,
         "not an ALU opcode (MIN 0, MAX 1, ADD 2, SHR 3, MUL 4)");
  }
}

const uint8_t* checked_insn_stream(const Dram& dram, uint32_t insn_phys, uint32_t insn_count) {
  const uint64_t bytes = static_cast<uint64_t>(insn_count) * kInsnBytes;
  const uint8_t* p = dram.checked_ptr(insn_phys, bytes);
  if (p == nullptr) {
    throw ProgramError(fmt::format(
        "fetch unit: the instruction stream at physical address {:#x} ({} instructions, {} "
        "bytes) is outside allocated DRAM",
        insn_phys, insn_count, bytes));
  }
  return p;
}

}  // namespace vta
