// Code generation: turns a TilePlan into the calls of a ProgramSink (2D loads, GEMM / ALU
// instructions with their micro-op kernels, dependency tokens, 2D stores), the way TVM's lowered
// VTA code drives the runtime.
//
// Pipeline: step s = (output tile j, input-channel chunk c). Input tiles of step s live in SRAM
// slot s % T, its weights in the slot TilePlan::weight_slot gives, the accumulators of tile j in
// slot j % T (T = virtual threads).
//   load   : [pop g2l if s >= T] LOAD INP (one per channel block) + LOAD WGT   -> push l2g
//            (each cut to at most TilePlan::max_load_beats: load_split.h; a step's
//            weights in parts of TilePlan::weight_parts, one l2g push each)
//   compute: tile start: [pop s2g if j >= T] GEMM reset, LOAD ACC bias (and per-channel
//            shifts), LOAD ACC_8BIT residual
//            pop l2g, GEMM (accumulate) of each part
//            last chunk, residual and T >= 2: the start of tile j + 1            -> push g2l
//            last chunk: ALU epilogue                                            -> push g2s
//   store  : pop g2s, STORE (one per output-channel block)                       -> push s2g
// Otherwise a tile starts before its own first GEMM.
// and the tokens left at the end are drained so every run ends balanced.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "vta/compiler/codegen/micro_kernel.h"
#include "vta/compiler/codegen/program_sink.h"
#include "vta/compiler/scheduling/schedule.h"

namespace vta::compiler {

// Device buffers of one convolution in the blocked layouts.
struct ConvBuffers {
  BufferHandle inp = nullptr;       // NCHWnc int8
  BufferHandle wgt = nullptr;       // OIHWoi int8
  BufferHandle out = nullptr;       // NCHWnc int8
  BufferHandle bias = nullptr;      // [K/BO][B][BO] int32 (if the epilogue has a bias)
  BufferHandle residual = nullptr;  // NCHWnc int8 of the output's shape (if it has a residual)
  BufferHandle zeros = nullptr;     // zero_bytes() of zeros (if zero_bytes() > 0)
  BufferHandle shifts = nullptr;    // [K/BO][B][BO] int32 (if the shifts are per channel)
};

// The output tiles one program computes: batch blocks [nb_begin, nb_end), output-channel tiles
// [ot_begin, ot_end) and column tiles [wt_begin, wt_end) of the plan (an end of -1: to the last).
// The cores of a system each emit a disjoint range into the same output tensor
// (run/core_split.h); the default is the whole layer.
struct ConvTileRange {
  int nb_begin = 0, nb_end = -1;
  int ot_begin = 0, ot_end = -1;
  int wt_begin = 0, wt_end = -1;
};

class ConvCodegen {
 public:
  ConvCodegen(const TilePlan& plan, const HwConfig& cfg);
  ConvCodegen(const ConvCodegen&) = delete;
  ConvCodegen& operator=(const ConvCodegen&) = delete;

  // Appends the layer's tiles in `range` to the sink's program (no synchronize); nothing for
  // an empty range.
  void emit(ProgramSink& sink, const ConvBuffers& buffers, const ConvTileRange& range = {});
  // Bytes of the all-zero buffer needed for input windows that lie entirely in the padding.
  size_t zero_bytes() const { return m_zero_elems * size_t(m_cfg.inp_elem_bytes); }
  const TilePlan& plan() const { return m_plan; }
  // Distinct micro-op kernels recorded so far and their total size.
  size_t kernel_count() const { return m_kernels.size(); }
  size_t kernel_uops() const;

 private:
  struct KernelSlot {
    MicroKernel kernel;
    KernelCacheSlot cache;  // the sink's record of this kernel
  };
  struct Tile;  // one output tile: position, extents, accumulator slot
  struct Step;  // one input-channel chunk of a tile: extents, input/weight slot
  struct Part;  // the weights of a step one hand-over from load to compute covers

  Tile make_tile(int nb, int ot, int ht, int wt, uint64_t index) const;
  // Also records the weights the step leaves in its weight slot.
  Step make_step(const Tile& tile, int chunk, uint64_t index);
  // The stages of one tile, in the order the pipeline comment above lists them.
  void emit_tile(ProgramSink& sink, const ConvBuffers& b, const Tile& tile, const Tile* next,
                 uint64_t& step);
  void emit_loads(ProgramSink& sink, const ConvBuffers& b, const Tile& tile, const Step& s);
  void emit_input_loads(ProgramSink& sink, const ConvBuffers& b, const Tile& tile, const Step& s);
  void emit_weight_load(ProgramSink& sink, const ConvBuffers& b, const Tile& tile, const Step& s,
                        const Part& part);
  void emit_split(ProgramSink& sink, const Load2D& l) const;
  void emit_tile_start(ProgramSink& sink, const ConvBuffers& b, const Tile& tile);
  void emit_residual_loads(ProgramSink& sink, const ConvBuffers& b, const Tile& tile);
  void emit_epilogue(ProgramSink& sink, const Tile& tile);
  void emit_rounding_shift(ProgramSink& sink, const Tile& tile);
  void emit_residual_shift(ProgramSink& sink, const Tile& tile);
  void emit_stores(ProgramSink& sink, const ConvBuffers& b, const Tile& tile);
  void drain_tokens(ProgramSink& sink, uint64_t tiles, uint64_t steps);

  KernelSlot& kernel(const std::string& key, const std::function<MicroKernel()>& build);
  // The GEMM kernels of a step shape and slot pair, built on first use.
  const std::vector<KernelSlot*>& step_kernels(const Tile& tile, const Step& s, const Part& part);
  static void push(ProgramSink& sink, KernelSlot& k) { sink.push_kernel(k.kernel, k.cache); }

  TilePlan m_plan;
  HwConfig m_cfg;
  size_t m_zero_elems = 0;
  std::vector<int64_t> m_wgt_tag;  // weights resident in each input/weight slot (-1: none)
  std::map<std::string, std::unique_ptr<KernelSlot>> m_kernels;
  std::map<std::string, std::vector<KernelSlot*>> m_steps;  // GEMM kernels of each step shape
};

}  // namespace vta::compiler
