// Schedules as data, and the tile plan they imply on a given hardware configuration.
//
// A schedule fixes the output tile (rows x cols x output-channel blocks), the number of
// input-channel blocks loaded per step, and the number of virtual threads (SRAM slots used in
// rotation so that load, compute and store of different tiles overlap). TilePlan derives every
// SRAM footprint from it and rejects any schedule that does not fit the configuration, naming
// the violated limit.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "vta/compiler/scheduling/workload.h"
#include "vta/sim/error.h"
#include "vta/sim/hw_config.h"

namespace vta::compiler {

// A layer that a design cannot hold: the schedule does not fit its SRAMs, uop buffer or ISA
// fields, or no schedule does (a sweep records the design point as invalid, not failed).
class ScheduleFitError : public Error {
 public:
  explicit ScheduleFitError(const std::string& what) : Error(what) {}
};

struct ConvSchedule {
  int tile_h = 1;          // output rows per tile
  int tile_w = 1;          // output columns per tile
  int tile_oc_blocks = 1;  // output-channel blocks (of BLOCK_OUT) per tile
  int tile_ic_blocks = 1;  // input-channel blocks (of BLOCK_IN) loaded and reduced per step
  int threads = 2;         // virtual threads = SRAM slots in rotation (1..4)
  int fold_rows = 0;       // 0: the layer as is; f >= 1: kernel window folded (kernel_fold.h)
  std::optional<Epilogue> epilogue;  // a schedule file may carry the epilogue of its layer

  // Keys: tile_h, tile_w, tile_oc_blocks, tile_ic_blocks, threads, optional fold_rows, epilogue
  // and comment. Unknown keys are an error naming the key.
  static ConvSchedule from_json(const nlohmann::json& j, const std::string& source);
  static ConvSchedule from_file(const std::string& path);
  nlohmann::json to_json() const;
  std::string describe() const;  // "h7 w14 oc8 ic1 vt2" (+ " fold2" with fold_rows 2)
  bool operator==(const ConvSchedule& o) const;
};

// The convolution in VTA's blocked units.
struct BlockedConv {
  Conv2dParams p;
  int batch = 1, block_in = 16, block_out = 16;
  int nb = 1;   // batch blocks  = ceil(N / BATCH)
  int icb = 1;  // input-channel blocks = ceil(C / BLOCK_IN)
  int ocb = 1;  // output-channel blocks = ceil(K / BLOCK_OUT)
  int oh = 1, ow = 1;
  static BlockedConv make(const Conv2dParams& p, const HwConfig& cfg);
  // GEMM micro-op executions the whole layer needs (the compute lower bound in cycles).
  uint64_t gemm_uop_count() const;
};

// True when the residual can be the accumulator's initial value instead of a reset and an ALU
// ADD: ((x >> s) + r) = (x + r * 2^s) >> s for every sum x the layer can produce, with no
// 32-bit wrap (no bias, whose range is unknown; |x| <= 2^14 * C * KH * KW, r * 2^s >= -2^(7+s)).
// The tile then starts with LOAD ACC_8BIT into its outputs and, for s > 0, a shift left by s.
bool residual_initialises_acc(const BlockedConv& g, const Epilogue& e);

// Accumulator rows per output-channel block that a tile holds besides its outputs and
// residual: the bias and the per-channel shifts, each loaded once per tile.
inline uint64_t acc_channel_rows(const Epilogue& e) {
  return (e.bias ? 1 : 0) + (e.per_channel() ? 1 : 0);
}

// The longest LOAD INP / LOAD WGT the code generator issues, in bus beats (load_split.h). A
// LOAD posts all its bursts at once and read data returns in grant order, so a read of the
// compute unit (micro-ops, bias, residual) waits behind the rest of the load unit's current
// LOAD; every LOAD costs one memory latency on the read channel in return. Where the load unit
// has at least twice the compute unit's work, the compute unit has slack and long LOADs win;
// elsewhere short ones do (TilePlan::max_load_beats).
constexpr uint32_t kShortLoadBeats = 1024;
constexpr uint32_t kLongLoadBeats = 4096;

// Input rows between consecutive SRAM rows of a tile's input window. A one-row kernel with a
// row stride > 1 uses only every stride-th input row: the window then holds just those rows
// (one LOAD INP with a DRAM row pitch of stride x W), not the rows in between. A pitch beyond
// the DMA's 16-bit x_stride keeps every row (step 1).
int window_row_step(const Conv2dParams& p);
// SRAM rows of the input window of `th` output rows: th with a row step > 1, else
// (th-1)*stride + KH.
int window_rows(const Conv2dParams& p, int th);

// Geometry of one step's tile: output extents and the input window they need.
struct TileShape {
  int to = 1, ti = 1, th = 1, tw = 1;
  int ih = 1, iw = 1;  // SRAM rows (window_rows) / cols ((tw-1)*stride + KW) of the window
  int row_step = 1;    // input rows per window row (window_row_step)
  bool operator<(const TileShape& o) const;
};

// Everything the code generator needs; make() checks every hardware limit. With a fold, `g`
// is the folded layer (the one the program computes).
struct TilePlan {
  BlockedConv g;
  ConvSchedule s;
  Epilogue e;
  // SRAM slot of one virtual thread, in elements of each buffer.
  uint32_t inp_slot = 0, wgt_slot = 0, acc_slot = 0;
  // Element offsets inside an accumulator slot.
  uint32_t acc_out_off = 0, acc_bias_off = 0, acc_res_off = 0;
  uint32_t acc_shift_off = 0;  // per-channel shifts (Epilogue::shifts): one row per oc block
  bool residual_init = false;  // residual_initialises_acc(g, e): no reset, no residual ADD
  uint32_t max_load_beats = kShortLoadBeats;  // the longest LOAD INP / WGT (kShortLoadBeats)
  int h_tiles = 1, w_tiles = 1, oc_tiles = 1, ic_chunks = 1;

  static TilePlan make(const Conv2dParams& p, const Epilogue& e, const ConvSchedule& s,
                       const HwConfig& cfg);
  TileShape shape(int th, int tw, int to, int ti) const;
  TileShape full_shape() const {
    return shape(s.tile_h, s.tile_w, s.tile_oc_blocks, s.tile_ic_blocks);
  }
  uint64_t tiles() const { return uint64_t(g.nb) * oc_tiles * h_tiles * w_tiles; }
  uint64_t steps() const { return tiles() * ic_chunks; }

  // Where a step's weights live. With at most T chunks per tile, the weights of (batch block,
  // oc tile, chunk) get their own slot, tag % T, and stay there for every step that reduces
  // the same chunk: a single-chunk layer loads its weights once, not once per slot. Tags are
  // consecutive in emission order, so the T - 1 steps that may still be computing hold
  // distinct tags in distinct slots. With more chunks than slots the weights follow the
  // input slot (step % T) and are loaded every step.
  struct WeightSlot {
    int64_t tag = 0;  // which weights (equal tags: equal weights)
    uint32_t slot = 0;
  };
  WeightSlot weight_slot(int nb, int ot, int chunk, uint64_t step) const;
  // Steps whose weights are loaded under that rule.
  uint64_t weight_loads() const;
  // A step that loads its weights hands them to the compute unit in parts, one token each: its
  // first GEMMs start after the first part instead of after all the weights, so the pipeline
  // fills sooner and the last step drains sooner. A part is about one LOAD long
  // (max_load_beats; shorter parts would only add instructions): `blocks` output-channel
  // blocks (of `to` in the tile, `positions` output pixels, `ti` input blocks), and when one
  // block of one input block is longer than that, `rows` of its kernel rows. A part needs three
  // accumulators of its own to keep the dependence rule in one kernel; else one part.
  struct WeightParts {
    int blocks = 1;  // output-channel blocks per part
    int rows = 1;    // kernel rows per part (KH: whole blocks)
    int count(int to, int kh) const {
      return (to + blocks - 1) / blocks * ((kh + rows - 1) / rows);
    }
  };
  WeightParts weight_parts(int to, int positions, int ti, const HwConfig& cfg) const;
  // Two lines for humans: tile counts, SRAM use per virtual thread, the step kernel.
  std::string describe(const HwConfig& cfg) const;
};

}  // namespace vta::compiler
