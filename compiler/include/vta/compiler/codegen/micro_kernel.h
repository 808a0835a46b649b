// Micro-op kernels of a tile: the GEMM that accumulates one step, the GEMM reset, and the ALU
// epilogue operations. A kernel is what the runtime records through VTAUopLoopBegin/VTAUopPush
// (at most two hardware loops around a list of micro-ops), built here as plain data so that it
// can be checked (size, upstream dependence rule) before any runtime call.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vta/compiler/scheduling/schedule.h"
#include "vta/sim/isa.h"

namespace vta::compiler {

struct UopLoop {
  uint32_t extent = 1;
  uint32_t dst_factor = 0, src_factor = 0, wgt_factor = 0;
};

struct MicroKernel {
  bool gemm = true;    // GEMM (mode 0) or ALU (mode 1)
  bool reset = false;  // GEMM reset kernel
  uint32_t alu_opcode = 0;
  bool use_imm = false;
  int32_t imm = 0;
  std::vector<UopLoop> loops;  // outer first; always two (extent 1 when unused)
  std::vector<Uop> uops;
  std::string what;  // "gemm 72 uops, loops y(7) x(14)" for dumps and errors

  // Upstream UopKernel::VerifyDep: no uop writes the dst of either of the two preceding uops.
  bool satisfies_dep_rule() const;
  // Micro-op executions of one instruction running this kernel.
  uint64_t executions() const;
};

// Builds the accumulation kernel of one step: chooses which two of the six loop dimensions
// (output channel, row, column, input channel, kernel row, kernel column) become the hardware
// loops so that the kernel obeys the dependence rule and has the fewest micro-ops.
// Throws Error if no choice fits `uop_limit` micro-ops. With only_ic >= 0 the kernel covers
// that single input-channel block of the step; with rows.count > 0 only kernel rows
// [rows.first, rows.first + rows.count) (the bases stay those of the whole kernel).
struct KernelRows {
  int first = 0, count = 0;  // count 0: every kernel row
};
MicroKernel make_gemm_kernel(const TilePlan& plan, const TileShape& t, uint32_t inp_base,
                             uint32_t wgt_base, uint32_t acc_base, uint32_t uop_limit,
                             int only_ic = -1, KernelRows rows = {});
// The kernels of one step: one kernel, or (when a tile has fewer than three accumulators and
// the dependence rule cannot be met otherwise) one kernel per input-channel block.
std::vector<MicroKernel> make_gemm_step(const TilePlan& plan, const TileShape& t, uint32_t inp_base,
                                        uint32_t wgt_base, uint32_t acc_base, uint32_t uop_limit,
                                        KernelRows rows = {});
// Zeroes the tile's accumulators.
MicroKernel make_reset_kernel(const TileShape& t, uint32_t acc_base);
// acc[tile] = acc[tile] op imm.
MicroKernel make_alu_imm_kernel(const TileShape& t, uint32_t acc_base, uint32_t alu_opcode,
                                int32_t imm);
// acc[o][p] = acc[o][p] op vec[o] for every position p of the tile: the bias (ADD) or the
// per-channel shifts (SHR), one ACC row per output-channel block at vec_base.
MicroKernel make_channel_vector_kernel(const TileShape& t, uint32_t acc_base, uint32_t vec_base,
                                       uint32_t alu_opcode);
// acc[o][p] += res[o][p].
MicroKernel make_residual_kernel(const TileShape& t, uint32_t acc_base, uint32_t res_base);

}  // namespace vta::compiler
