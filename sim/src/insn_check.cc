#include "vta/sim/insn_check.h"

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

// Every DRAM row the instruction touches must lie in allocated memory.
namespace {

void check_dram_rows(const Dram& dram, uint64_t index, const Insn& i, uint64_t e) {
  for (uint64_t y = 0; y < i.y_size; ++y) {
    const uint64_t phys = (static_cast<uint64_t>(i.dram_base) + y * i.x_stride) * e;
    if (!dram.is_allocated(phys, i.x_size * e)) {
      throw ProgramError(fmt::format(
          "{}: DRAM range [{:#x}, {:#x}) of row {} (dram_base {} + {} * x_stride {}, {} "
          "elements of {} bytes) is outside allocated memory",
          insn_error_prefix(index, i), phys, phys + i.x_size * e, y, i.dram_base, y, i.x_stride,
          i.x_size, e));
    }
  }
}

}  // namespace

void check_load_ranges(const HwConfig& cfg, const Dram& dram, uint64_t index, const Insn& i) {
  const uint32_t type = i.memory_type;
  const uint64_t width = static_cast<uint64_t>(i.x_pad_0) + i.x_size + i.x_pad_1;
  const uint64_t height = static_cast<uint64_t>(i.y_pad_0) + i.y_size + i.y_pad_1;
  const uint64_t depth = cfg.buff_depth(static_cast<int>(type));
  if (i.sram_base + width * height > depth) {
    throw ProgramError(fmt::format(
        "{}: field 'sram_base' = {}: the tile of {} x {} elements (incl. padding) ends at {}, "
        "beyond the {} buffer of {} entries",
        insn_error_prefix(index, i), i.sram_base, height, width, i.sram_base + width * height,
        mem_type_name(type == kMemAcc8 ? kMemAcc : type), depth));
  }
  check_dram_rows(dram, index, i, static_cast<uint64_t>(cfg.elem_bytes(static_cast<int>(type))));
}

void check_store_ranges(const HwConfig& cfg, const Dram& dram, uint64_t index, const Insn& i) {
  const uint64_t n = static_cast<uint64_t>(i.x_size) * i.y_size;
  if (i.sram_base + n > cfg.out_buff_depth) {
    throw ProgramError(fmt::format(
        "{}: field 'sram_base' = {}: {} x {} elements end at {}, beyond the OUT buffer of {} "
        "entries",
        insn_error_prefix(index, i), i.sram_base, i.y_size, i.x_size, i.sram_base + n,
        cfg.out_buff_depth));
  }
  check_dram_rows(dram, index, i, static_cast<uint64_t>(cfg.out_elem_bytes));
}

void check_uop_range(const HwConfig& cfg, uint64_t index, const Insn& i) {
  if (i.uop_end > cfg.uop_buff_depth) {
    throw ProgramError(fmt::format("{}: field 'uop_end' = {}: beyond the UOP buffer of {} entries",
                                   insn_error_prefix(index, i), i.uop_end, cfg.uop_buff_depth));
  }
  if (i.uop_bgn > i.uop_end) {
    throw ProgramError(fmt::format("{}: field 'uop_bgn' = {}: greater than uop_end = {}",
                                   insn_error_prefix(index, i), i.uop_bgn, i.uop_end));
  }
}

}  // namespace vta
