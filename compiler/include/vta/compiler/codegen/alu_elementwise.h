// Elementwise int8 work on VTA's ALU: the sum of two tensors, clamped: out = clamp(a + b, lo,
// hi) with -128 <= lo <= hi <= 127 (the add operator's ReLU / clip and int8 saturation), or one
// tensor through a list of ALU immediate operations, clamped: out = clamp(ops(a), lo, hi) (an
// integer form of an activation, e.g. hardsigmoid's ((a + b1) * m + r) >> s). The operands are
// loaded into the accumulator buffer with LOAD ACC_8BIT (sign-extended to int32, so a sum
// cannot wrap), ALU ADD adds b to a, the immediates follow, ALU MAX / MIN with the bounds
// clamp, and STORE writes the 8-bit output buffer the ALU writes.
//
// Tiling: the tensors in NCHWnc with BLOCK_OUT channels per element are one run of elements;
// a tile is a stretch of it, its slot holding a's then b's stretch. With two slots the compute
// unit fills one while the store unit drains the other.
//   compute: [pop s2g if tile >= slots] LOAD ACC_8BIT a, b; ALU ADD, MAX imm, MIN imm -> push g2s
//   store  : pop g2s, STORE -> push s2g
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vta/compiler/codegen/program_sink.h"
#include "vta/sim/hw_config.h"

namespace vta::compiler {

// An ALU immediate operation: acc = acc op imm.
struct AluImmOp {
  uint32_t opcode = 0;
  int32_t imm = 0;
};

struct AluAddPlan {
  int n = 1, c = 1, h = 1, w = 1;
  int lo = -128, hi = 127;
  bool binary = true;             // a + b; false: a alone
  std::vector<AluImmOp> imm_ops;  // after the sum, before the clamp
  uint32_t elems = 0;  // accumulator elements of a whole tensor (batch and channel blocks)
  uint32_t tile = 0;   // elements per tile
  int slots = 1;

  uint32_t tiles() const { return (elems + tile - 1) / tile; }
  std::string describe() const;  // "1x64x56x56 + 1x64x56x56 clamp -128..127"
  // Throws vta::Error for bounds outside int8 or a tensor larger than the ALU can index.
  static AluAddPlan make(int n, int c, int h, int w, int lo, int hi, const HwConfig& cfg);
  // One operand through `ops`, then the clamp.
  static AluAddPlan make_unary(int n, int c, int h, int w, std::vector<AluImmOp> ops, int lo,
                               int hi, const HwConfig& cfg);
};

// Appends the program: `a` and `b` hold the operands in NCHWnc (BLOCK_OUT channels per
// element), `out` receives the result in the same layout. No synchronize.
void emit_alu_add(ProgramSink& sink, const AluAddPlan& plan, BufferHandle a, BufferHandle b,
                  BufferHandle out);

// The cycles by the timing contract's formulas (sim/README.md section 4), as
// alu_maxpool_cycle_estimate counts them.
uint64_t alu_add_cycle_estimate(const AluAddPlan& plan, const HwConfig& cfg);

}  // namespace vta::compiler
