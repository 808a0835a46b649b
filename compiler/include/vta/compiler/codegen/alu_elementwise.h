// Elementwise int8 work on VTA's ALU: one or two tensors through a list of ALU operations,
// clamped: out = clamp(ops(a[, b]), lo, hi) with -128 <= lo <= hi <= 127. The sum of two tensors
// (the add operator's ReLU / clip and int8 saturation) is the list {a += b}; an integer form of
// an activation, e.g. hardsigmoid's ((a + b1) * m + r) >> s, a list of immediates; a product
// a * b rounded to a shift, vector and immediate operations on both slots (b's slot is scratch
// once read). The operands are loaded into the accumulator buffer with LOAD ACC_8BIT
// (sign-extended to int32, so a sum cannot wrap), the operations follow, ALU MAX / MIN with the
// bounds clamp, and STORE writes the 8-bit output buffer the ALU writes. b may hold one value per
// sample and channel (N x C x 1 x 1, a squeeze-and-excitation scale): the first operation that
// reads it repeats that value over the plane (source stride 0).
//
// Tiling: the tensors in NCHWnc with BLOCK_OUT channels per element are one run of elements;
// a tile is a stretch of it, its slot holding a's then b's stretch. With a per-channel b a tile
// holds whole planes (H x W elements of one batch and channel block) or a part of one plane.
// With two slots the compute unit fills one while the store unit drains the other.
//   compute: [pop s2g if tile >= slots] LOAD ACC_8BIT a, b; ALU ops, MAX imm, MIN imm -> push g2s
//   store  : pop g2s, STORE -> push s2g
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vta/compiler/codegen/program_sink.h"
#include "vta/sim/hw_config.h"

namespace vta::compiler {

// An ALU operation of the program: on a's slot (or b's with on_b) dst = dst op imm, or with
// `vector` dst = dst op (the other slot).
struct AluStep {
  uint32_t opcode = 0;
  int32_t imm = 0;
  bool vector = false;
  bool on_b = false;
};

// The value one lane ends with: `ops` applied to a and b as the ALU does (int32 wrap,
// arithmetic shifts), before the clamp. For checking an integer form against its operator.
int32_t apply_alu_steps(const std::vector<AluStep>& ops, int32_t a, int32_t b);

// a * 2^-r on a's slot, b's slot scratch: for r > 0 rounded half away from zero, as the host's
// int8 operators round: b = a (MUL 0, ADD), b >> 15 `sign_shifts` times (-1 exactly when a < 0
// while |a| < 2^(15 * sign_shifts)), a = (a + b + 2^(r-1)) >> r; for r <= 0 a << -r. Throws
// vta::Error for |r| > 15 (the shifts the ALU's immediates agree on).
std::vector<AluStep> round_shift_steps(int r, int sign_shifts);

// The tiles [begin, end) of an ALU program in program order: one core's share when the cores of
// a system divide a layer (run/alu_runner.h); the default is every tile.
struct AluTileRange {
  uint64_t begin = 0, end = UINT64_MAX;
  bool empty() const { return begin >= end; }
};

struct AluAddPlan {
  int n = 1, c = 1, h = 1, w = 1;
  int lo = -128, hi = 127;
  bool binary = true;        // a and b loaded; false: a alone
  bool per_channel = false;  // b is N x C x 1 x 1
  std::vector<AluStep> ops;  // before the clamp
  uint32_t elems = 0;        // accumulator elements of a whole tensor (batch and channel blocks)
  uint32_t tile = 0;         // elements per tile
  uint32_t plane = 1;        // elements per batch and channel block (h * w)
  uint32_t tiles_per_plane = 0;  // per-channel b and planes larger than a tile; else 0
  int slots = 1;

  uint32_t tiles() const {
    return tiles_per_plane ? elems / plane * tiles_per_plane : (elems + tile - 1) / tile;
  }
  std::string describe() const;  // "1x64x56x56 + 1x64x56x56 clamp -128..127"
  // The plan cut into at least `tiles` tiles where its elements allow (one per element at the
  // most; per-channel b: parts of a plane), to divide it over that many cores; unchanged if it
  // has as many already.
  AluAddPlan with_tiles(uint32_t tiles, const HwConfig& cfg) const;
  // a + b. Throws vta::Error for bounds outside int8 or a tensor larger than the ALU can index.
  static AluAddPlan make(int n, int c, int h, int w, int lo, int hi, const HwConfig& cfg);
  // One operand through `ops`, then the clamp.
  static AluAddPlan make_unary(int n, int c, int h, int w, std::vector<AluStep> ops, int lo, int hi,
                               const HwConfig& cfg);
  // Two operands (b per channel or of a's shape) through `ops`, then the clamp.
  static AluAddPlan make_binary(int n, int c, int h, int w, bool per_channel,
                                std::vector<AluStep> ops, int lo, int hi, const HwConfig& cfg);
};

// Appends the program: `a` and `b` hold the operands in NCHWnc (BLOCK_OUT channels per
// element; b of N x C x 1 x 1 for a per-channel plan), `out` receives the result in the same
// layout. No synchronize. Only the tiles in `range`.
void emit_alu_add(ProgramSink& sink, const AluAddPlan& plan, BufferHandle a, BufferHandle b,
                  BufferHandle out, const AluTileRange& range = {});

// The cycles by the timing contract's formulas (sim/README.md section 4), as
// alu_pool_cycle_estimate counts them; of the tiles in `range` as a program of their own.
uint64_t alu_add_cycle_estimate(const AluAddPlan& plan, const HwConfig& cfg,
                                const AluTileRange& range = {});

}  // namespace vta::compiler
