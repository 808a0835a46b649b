// Max and average pooling on VTA's ALU. The input is loaded into the accumulator buffer with LOAD
// ACC_8BIT (int8 sign-extended to the int32 lanes), the output region is set to -128 (ALU MIN then
// MAX with that immediate: the result is -128 whatever the buffer held), and every kernel tap (ky,
// kx) is one ALU MAX instruction over the rectangle of outputs whose tap lies inside the input:
// out[oy][ox] = max(out[oy][ox], in[oy*sh - pt + ky][ox*sw - pl + kx]), its two hardware loops
// running over the rows and columns of that rectangle. Taps in the padding are never read, which is
// the same as padding with the most negative value; ceil mode is the same rule at the bottom and
// right edges. STORE writes the 8-bit output buffer the ALU writes (exact: every value is an int8).
// An average pool whose divisor is one power of two for every output (count_include_pad, or
// every window inside the input) sets the output to 0 instead, ALU ADDs every tap (padding
// adds 0), then runs its `finish` steps (the rounding shift of alu_elementwise.h, a scratch
// region of the output's size as b's slot) and the int8 clamp (MAX -128, MIN 127).
//
// Tiling: per batch block and channel block (BATCH x BLOCK_OUT lanes of one accumulator
// element), rows of output. A tile's slot holds its input rows (all columns) then its output
// rows; with two slots the compute unit fills one while the store unit drains the other.
//   compute: [pop s2g if tile >= slots] LOAD ACC_8BIT rows, ALU MIN/MAX init, ALU MAX per tap
//            -> push g2s
//   store  : pop g2s, STORE rows -> push s2g
#pragma once

#include <cstdint>
#include <string>

#include "vta/compiler/codegen/alu_elementwise.h"
#include "vta/compiler/codegen/program_sink.h"
#include "vta/sim/hw_config.h"

namespace vta::compiler {

// A pooling window over an NCHW int8 tensor; oh and ow are the output's size (the bottom and
// right padding and ceil mode are in them).
struct PoolWindow {
  int n = 1, c = 1, h = 1, w = 1;
  int kh = 1, kw = 1, stride_h = 1, stride_w = 1, pad_top = 0, pad_left = 0;
  int oh = 1, ow = 1;
  bool average = false;          // the sum of the taps, then `finish`; else the maximum
  std::vector<AluStep> finish;   // an average pool's steps after the sum, before the clamp
  std::string describe() const;  // "1x64x112x112 max 3x3 s2x2 pad 1,1 -> 56x56"
};

struct AluPoolPlan {
  PoolWindow p;
  int batch = 1, block = 16;  // lanes of one accumulator element
  int nb = 1, cb = 1;         // batch blocks, channel blocks
  int tile_oh = 1;            // output rows per tile
  int slots = 1;              // accumulator slots
  uint32_t slot_elems = 0;    // accumulator elements of one slot

  int row_tiles() const { return (p.oh + tile_oh - 1) / tile_oh; }
  uint64_t tiles() const { return uint64_t(nb) * uint64_t(cb) * uint64_t(row_tiles()); }
  // Throws vta::Error naming the reason when no tiling fits the accumulator buffer or the ALU's
  // loop and index fields.
  static AluPoolPlan make(const PoolWindow& p, const HwConfig& cfg);
  // The plan with fewer output rows per tile so that it has at least `tiles` tiles where its
  // rows allow, to divide it over that many cores; unchanged if it has as many already.
  AluPoolPlan with_tiles(uint64_t tiles, const HwConfig& cfg) const;
};

// Appends the pool's program: `in` holds the input in NCHWnc with BLOCK_OUT channels per
// element, `out` receives the output in the same layout. No synchronize. Only the tiles in
// `range` (tiles in the order batch block, channel block, row tile).
void emit_alu_pool(ProgramSink& sink, const AluPoolPlan& plan, BufferHandle in, BufferHandle out,
                   const AluTileRange& range = {});

// The cycles the program takes by the timing contract's formulas (sim/README.md section 4):
// per tile the compute unit's ACC_8BIT load and ALU instructions in sequence, the stores hidden
// behind the next tile's compute with two slots (added with one), plus the last store. Of the
// tiles in `range` as a program of their own.
uint64_t alu_pool_cycle_estimate(const AluPoolPlan& plan, const HwConfig& cfg,
                                 const AluTileRange& range = {});

}  // namespace vta::compiler
