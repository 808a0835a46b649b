// gen_hw_spec_const CONFIG.json OUT.h: writes vta/hw_spec_const.h for one hardware config, with
// upstream's compile-time constant names (vta-reference.md sections 1.3-1.5 and 11). Every value
// comes from HwConfig (derived constants) and isa.h (opcodes, memory ids, field widths).
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "vta/sim/error.h"
#include "vta/sim/hw_config.h"
#include "vta/sim/hw_spec_signature.h"
#include "vta/sim/isa.h"

namespace {

using Defines = std::vector<std::pair<std::string, long long>>;

// The configuration: log2 parameters, widths, block sizes, buffer sizes and depths.
Defines config_defines(const vta::HwConfig& c) {
  const long long bus = 1LL << c.log_bus_width;
  Defines d = {{"VTA_LOG_INP_WIDTH", c.log_inp_width},
               {"VTA_LOG_WGT_WIDTH", c.log_wgt_width},
               {"VTA_LOG_ACC_WIDTH", c.log_acc_width},
               {"VTA_LOG_OUT_WIDTH", c.log_inp_width},
               {"VTA_LOG_BATCH", c.log_batch},
               {"VTA_LOG_BLOCK", c.log_block},
               {"VTA_LOG_BLOCK_IN", c.log_block},
               {"VTA_LOG_BLOCK_OUT", c.log_block},
               {"VTA_LOG_UOP_BUFF_SIZE", c.log_uop_buff_size},
               {"VTA_LOG_INP_BUFF_SIZE", c.log_inp_buff_size},
               {"VTA_LOG_WGT_BUFF_SIZE", c.log_wgt_buff_size},
               {"VTA_LOG_ACC_BUFF_SIZE", c.log_acc_buff_size},
               {"VTA_LOG_BUS_WIDTH", c.log_bus_width},
               {"VTA_BUS_WIDTH", bus},
               {"VTA_LOG_INS_WIDTH", 7},
               {"VTA_INS_WIDTH", 128},
               {"VTA_LOG_UOP_WIDTH", 5},
               {"VTA_UOP_WIDTH", 32},
               {"VTA_INP_WIDTH", c.inp_width},
               {"VTA_WGT_WIDTH", c.wgt_width},
               {"VTA_ACC_WIDTH", c.acc_width},
               {"VTA_OUT_WIDTH", c.out_width},
               {"VTA_BATCH", c.batch},
               {"VTA_BLOCK_IN", c.block_in},
               {"VTA_BLOCK_OUT", c.block_out},
               {"VTA_UOP_BUFF_SIZE", 1LL << c.log_uop_buff_size},
               {"VTA_INP_BUFF_SIZE", 1LL << c.log_inp_buff_size},
               {"VTA_WGT_BUFF_SIZE", 1LL << c.log_wgt_buff_size},
               {"VTA_ACC_BUFF_SIZE", 1LL << c.log_acc_buff_size},
               {"VTA_INP_MATRIX_WIDTH", 8LL * c.inp_elem_bytes},
               {"VTA_WGT_MATRIX_WIDTH", 8LL * c.wgt_elem_bytes},
               {"VTA_ACC_MATRIX_WIDTH", 8LL * c.acc_elem_bytes},
               {"VTA_OUT_MATRIX_WIDTH", 8LL * c.out_elem_bytes},
               {"INP_MAT_AXI_RATIO", 8LL * c.inp_elem_bytes / bus},
               {"WGT_MAT_AXI_RATIO", 8LL * c.wgt_elem_bytes / bus},
               {"ACC_MAT_AXI_RATIO", 8LL * c.acc_elem_bytes / bus},
               {"OUT_MAT_AXI_RATIO", 8LL * c.out_elem_bytes / bus},
               {"VTA_INS_ELEM_BYTES", vta::kInsnBytes},
               {"VTA_UOP_ELEM_BYTES", vta::kUopBytes},
               {"VTA_INP_ELEM_BYTES", c.inp_elem_bytes},
               {"VTA_WGT_ELEM_BYTES", c.wgt_elem_bytes},
               {"VTA_ACC_ELEM_BYTES", c.acc_elem_bytes},
               {"VTA_OUT_ELEM_BYTES", c.out_elem_bytes},
               {"VTA_LOG_UOP_BUFF_DEPTH", c.log_uop_buff_depth},
               {"VTA_LOG_INP_BUFF_DEPTH", c.log_inp_buff_depth},
               {"VTA_LOG_WGT_BUFF_DEPTH", c.log_wgt_buff_depth},
               {"VTA_LOG_ACC_BUFF_DEPTH", c.log_acc_buff_depth},
               {"VTA_UOP_BUFF_DEPTH", c.uop_buff_depth},
               {"VTA_INP_BUFF_DEPTH", c.inp_buff_depth},
               {"VTA_WGT_BUFF_DEPTH", c.wgt_buff_depth},
               {"VTA_ACC_BUFF_DEPTH", c.acc_buff_depth},
               {"VTA_OUT_BUFF_DEPTH", c.out_buff_depth}};
  return d;
}

// The instruction set: opcodes, memory ids, ALU opcodes and the field widths of the layout.
Defines isa_defines(const vta::HwConfig& c) {
  const vta::IsaLayout l = vta::IsaLayout::compute(c.log_uop_buff_depth, c.log_inp_buff_depth,
                                                   c.log_wgt_buff_depth, c.log_acc_buff_depth);
  const auto width = [&](const std::vector<vta::FieldPos>& layout, const char* name) {
    return static_cast<long long>(l.field(layout, name).width);
  };
  Defines d = {{"VTA_OPCODE_BIT_WIDTH", width(l.mem, "opcode")},
               {"VTA_ALU_OPCODE_BIT_WIDTH", width(l.alu, "alu_opcode")},
               {"VTA_OPCODE_LOAD", vta::kOpLoad},
               {"VTA_OPCODE_STORE", vta::kOpStore},
               {"VTA_OPCODE_GEMM", vta::kOpGemm},
               {"VTA_OPCODE_FINISH", vta::kOpFinish},
               {"VTA_OPCODE_ALU", vta::kOpAlu},
               {"VTA_ALU_OPCODE_MIN", vta::kAluMin},
               {"VTA_ALU_OPCODE_MAX", vta::kAluMax},
               {"VTA_ALU_OPCODE_ADD", vta::kAluAdd},
               {"VTA_ALU_OPCODE_SHR", vta::kAluShr},
               {"VTA_ALU_OPCODE_MUL", vta::kAluMul},
               {"VTA_ALUOP_IMM_BIT_WIDTH", width(l.alu, "imm")},
               {"VTA_SHR_ARG_BIT_WIDTH", c.log_acc_width},
               {"VTA_MUL_ARG_BIT_WIDTH", 8},
               {"VTA_MEMOP_ID_BIT_WIDTH", width(l.mem, "memory_type")},
               {"VTA_MEMOP_SRAM_ADDR_BIT_WIDTH", width(l.mem, "sram_base")},
               {"VTA_MEMOP_DRAM_ADDR_BIT_WIDTH", width(l.mem, "dram_base")},
               {"VTA_MEMOP_SIZE_BIT_WIDTH", width(l.mem, "y_size")},
               {"VTA_MEMOP_STRIDE_BIT_WIDTH", width(l.mem, "x_stride")},
               {"VTA_MEMOP_PAD_BIT_WIDTH", width(l.mem, "y_pad_0")},
               {"VTA_MEMOP_PAD_VAL_BIT_WIDTH", 2},
               {"VTA_LOOP_ITER_WIDTH", width(l.gemm, "iter_out")},
               {"VTA_MEM_ID_UOP", vta::kMemUop},
               {"VTA_MEM_ID_WGT", vta::kMemWgt},
               {"VTA_MEM_ID_INP", vta::kMemInp},
               {"VTA_MEM_ID_ACC", vta::kMemAcc},
               {"VTA_MEM_ID_OUT", vta::kMemOut},
               {"VTA_MEM_ID_ACC_8BIT", vta::kMemAcc8},
               {"VTA_UOP_DST_IDX_BIT_WIDTH", l.uop_dst_bits},
               {"VTA_UOP_SRC_IDX_BIT_WIDTH", l.uop_src_bits},
               {"VTA_UOP_WGT_IDX_BIT_WIDTH", l.uop_wgt_bits}};
  return d;
}

std::string header_text(const vta::HwConfig& c, const std::string& source) {
  std::string s = fmt::format(
      "/* Generated by gen_hw_spec_const from {} (model {}); do not edit.\n"
      " * Upstream's compile-time constants of the configured VTA (HW_VER 0.0.2). */\n"
      "#ifndef VTA_HW_SPEC_CONST_H_\n#define VTA_HW_SPEC_CONST_H_\n\n"
      "#define VTA_HW_VER \"{}\"\n#define VTA_MODEL \"{}\"\n"
      "/* What a program built with this header assumes of the device (checked at run time). */\n"
      "#define VTA_HW_SPEC_SIGNATURE \"{}\"\n",
      source, c.model_name, c.hw_ver, c.model_name, vta::hw_spec_signature(c));
  for (const Defines& group : {config_defines(c), isa_defines(c)}) {
    s += "\n";
    for (const auto& [name, value] : group) {
      s += fmt::format("#define {} {}\n", name, value);
    }
  }
  return s + "\n#endif /* VTA_HW_SPEC_CONST_H_ */\n";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: gen_hw_spec_const CONFIG.json OUT.h\n";
    return 2;
  }
  try {
    const vta::HwConfig c = vta::HwConfig::from_file(argv[1]);
    std::ofstream out(argv[2]);
    out << header_text(c, std::filesystem::path(argv[1]).filename().string());
    if (!out) {
      throw vta::Error(std::string("cannot write '") + argv[2] + "'");
    }
  } catch (const vta::Error& e) {
    std::cerr << "gen_hw_spec_const: error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
