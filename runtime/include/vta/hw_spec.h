/* Upstream's instruction and micro-op structs for the configured VTA (HW_VER 0.0.2), so programs
 * written against upstream's headers build unchanged. Fields are uint64_t (uint32_t for the
 * micro-op) bit-fields allocated LSB-first in declaration order; a field that would cross bit 64
 * starts at bit 64 (GCC/Clang ABI), which is the ISA's packing rule (vta-reference.md 2.1). The
 * widths come from vta/hw_spec_const.h, generated for the config chosen at build time. */
#ifndef VTA_HW_SPEC_H_
#define VTA_HW_SPEC_H_

#include <stdint.h>

#include "vta/hw_spec_const.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Any instruction: opcode and dependency flags. */
typedef struct VTAGenericInsn {
  uint64_t opcode : VTA_OPCODE_BIT_WIDTH;
  uint64_t pop_prev_dep : 1;
  uint64_t pop_next_dep : 1;
  uint64_t push_prev_dep : 1;
  uint64_t push_next_dep : 1;
  uint64_t pad_0 : 64 - VTA_OPCODE_BIT_WIDTH - 4;
  uint64_t pad_1 : 64;
} VTAGenericInsn;

/* LOAD / STORE: a 2D strided transfer with zero padding. */
typedef struct VTAMemInsn {
  uint64_t opcode : VTA_OPCODE_BIT_WIDTH;
  uint64_t pop_prev_dep : 1;
  uint64_t pop_next_dep : 1;
  uint64_t push_prev_dep : 1;
  uint64_t push_next_dep : 1;
  uint64_t memory_type : VTA_MEMOP_ID_BIT_WIDTH;
  uint64_t sram_base : VTA_MEMOP_SRAM_ADDR_BIT_WIDTH;
  uint64_t dram_base : VTA_MEMOP_DRAM_ADDR_BIT_WIDTH;
  uint64_t y_size : VTA_MEMOP_SIZE_BIT_WIDTH;
  uint64_t x_size : VTA_MEMOP_SIZE_BIT_WIDTH;
  uint64_t x_stride : VTA_MEMOP_STRIDE_BIT_WIDTH;
  uint64_t y_pad_0 : VTA_MEMOP_PAD_BIT_WIDTH;
  uint64_t y_pad_1 : VTA_MEMOP_PAD_BIT_WIDTH;
  uint64_t x_pad_0 : VTA_MEMOP_PAD_BIT_WIDTH;
  uint64_t x_pad_1 : VTA_MEMOP_PAD_BIT_WIDTH;
} VTAMemInsn;

/* GEMM (and FINISH, opcode 3): a two-level loop over the micro-ops [uop_bgn, uop_end). */
typedef struct VTAGemInsn {
  uint64_t opcode : VTA_OPCODE_BIT_WIDTH;
  uint64_t pop_prev_dep : 1;
  uint64_t pop_next_dep : 1;
  uint64_t push_prev_dep : 1;
  uint64_t push_next_dep : 1;
  uint64_t reset_reg : 1;
  uint64_t uop_bgn : VTA_LOG_UOP_BUFF_DEPTH;
  uint64_t uop_end : VTA_LOG_UOP_BUFF_DEPTH + 1;
  uint64_t iter_out : VTA_LOOP_ITER_WIDTH;
  uint64_t iter_in : VTA_LOOP_ITER_WIDTH;
  uint64_t dst_factor_out : VTA_LOG_ACC_BUFF_DEPTH;
  uint64_t dst_factor_in : VTA_LOG_ACC_BUFF_DEPTH;
  uint64_t src_factor_out : VTA_LOG_INP_BUFF_DEPTH;
  uint64_t src_factor_in : VTA_LOG_INP_BUFF_DEPTH;
  uint64_t wgt_factor_out : VTA_LOG_WGT_BUFF_DEPTH;
  uint64_t wgt_factor_in : VTA_LOG_WGT_BUFF_DEPTH;
} VTAGemInsn;

/* ALU: GEMM's loop, sources in the accumulator, an opcode and a signed immediate. */
typedef struct VTAAluInsn {
  uint64_t opcode : VTA_OPCODE_BIT_WIDTH;
  uint64_t pop_prev_dep : 1;
  uint64_t pop_next_dep : 1;
  uint64_t push_prev_dep : 1;
  uint64_t push_next_dep : 1;
  uint64_t reset_reg : 1;
  uint64_t uop_bgn : VTA_LOG_UOP_BUFF_DEPTH;
  uint64_t uop_end : VTA_LOG_UOP_BUFF_DEPTH + 1;
  uint64_t iter_out : VTA_LOOP_ITER_WIDTH;
  uint64_t iter_in : VTA_LOOP_ITER_WIDTH;
  uint64_t dst_factor_out : VTA_LOG_ACC_BUFF_DEPTH;
  uint64_t dst_factor_in : VTA_LOG_ACC_BUFF_DEPTH;
  uint64_t src_factor_out : VTA_LOG_ACC_BUFF_DEPTH;
  uint64_t src_factor_in : VTA_LOG_ACC_BUFF_DEPTH;
  uint64_t alu_opcode : VTA_ALU_OPCODE_BIT_WIDTH;
  uint64_t use_imm : 1;
  int64_t imm : VTA_ALUOP_IMM_BIT_WIDTH;
} VTAAluInsn;

/* One 128-bit instruction, viewed by its kind. */
typedef union VTAInsn {
  VTAGenericInsn generic;
  VTAMemInsn mem;
  VTAGemInsn gemm;
  VTAAluInsn alu;
} VTAInsn;

/* One 32-bit micro-op. */
typedef struct VTAUop {
  uint32_t dst_idx : VTA_UOP_DST_IDX_BIT_WIDTH;
  uint32_t src_idx : VTA_UOP_SRC_IDX_BIT_WIDTH;
  uint32_t wgt_idx : VTA_UOP_WGT_IDX_BIT_WIDTH;
} VTAUop;

/* A program built with this header tells libvta the constants it was built with, before main
 * (a constructor in every file that includes it; weak, so a program without libvta links too).
 * Running it on a device of another configuration is then a named error at VTASynchronize and
 * VTADeviceRun instead of wrong results. */
#if defined(__GNUC__)
void VTASimDeclareHwSpec(const char* signature) __attribute__((weak));
static void __attribute__((constructor, used)) vta_hw_spec_declare_(void) {
  if (VTASimDeclareHwSpec) {
    VTASimDeclareHwSpec(VTA_HW_SPEC_SIGNATURE);
  }
}
#endif

#ifdef __cplusplus
}
#endif

#endif /* VTA_HW_SPEC_H_ */
