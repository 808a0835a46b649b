#include "vta/compiler/codegen/alu_pool.h"

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <vector>

#include <fmt/format.h>

#include "vta/compiler/codegen/alu_tile_estimate.h"
#include "vta/compiler/codegen/micro_kernel.h"
#include "vta/compiler/scheduling/bound.h"
#include "vta/sim/error.h"

namespace vta::compiler {

namespace {

constexpr uint32_t kMaxLoopExtent = (1u << 14) - 1;  // iter_out / iter_in are 14-bit fields
constexpr int32_t kInt8Min = -128;                   // the value padding stands for

int floor_div(int a, int b) {
  return a >= 0 ? a / b : -((-a + b - 1) / b);
}

// Accumulator elements of a slot for tiles of `rows` output rows: their input rows, then them
// (an average pool: then its scratch).
uint32_t slot_size(const PoolWindow& p, int rows) {
  const int in_rows = std::min(p.h, (rows - 1) * p.stride_h + p.kh);
  const uint32_t outs = uint32_t(rows) * uint32_t(p.ow) * (p.average ? 2 : 1);
  return uint32_t(in_rows) * uint32_t(p.w) + outs;
}

// The largest number of output rows whose slots fit `depth` elements `slots` times (0: none).
int rows_fitting(const PoolWindow& p, uint32_t depth, int slots) {
  int best = 0;
  for (int t = 1; t <= std::min<int>(p.oh, kMaxLoopExtent); ++t) {
    if (uint64_t(slot_size(p, t)) * uint64_t(slots) > depth) {
      break;
    }
    best = t;
  }
  return best;
}

// The outputs in [o0, o1) whose tap `k` lies inside the input [0, size): [lo, hi).
struct Span {
  int lo = 0, hi = 0;
  int count() const { return hi - lo; }
};
Span tap_span(int o0, int o1, int k, int stride, int pad, int size) {
  const int lo = std::max(o0, -floor_div(k - pad, stride));  // ceil((pad - k) / stride)
  const int hi = std::min(o1, floor_div(size - 1 + pad - k, stride) + 1);
  return Span{lo, std::max(lo, hi)};
}

// One tile: output rows [oy0, oy1) of batch block nb and channel block cb, input rows
// [iy0, iy1), and where its input and output sit in the accumulator buffer.
struct PoolTile {
  int nb = 0, cb = 0, oy0 = 0, oy1 = 0, iy0 = 0, iy1 = 0;
  uint64_t index = 0;
  uint32_t in_base = 0, out_base = 0, scratch_base = 0;
};

PoolTile make_tile(const AluPoolPlan& plan, int nb, int cb, int rt, uint64_t index) {
  const PoolWindow& p = plan.p;
  PoolTile t;
  t.nb = nb, t.cb = cb, t.index = index;
  t.oy0 = rt * plan.tile_oh;
  t.oy1 = std::min(p.oh, t.oy0 + plan.tile_oh);
  t.iy0 = std::max(0, t.oy0 * p.stride_h - p.pad_top);
  t.iy1 = std::min(p.h, (t.oy1 - 1) * p.stride_h - p.pad_top + p.kh);
  t.in_base = uint32_t(index % uint64_t(plan.slots)) * plan.slot_elems;
  const uint32_t outs = uint32_t(plan.tile_oh) * uint32_t(p.ow);
  t.out_base = t.in_base + plan.slot_elems - outs * (p.average ? 2 : 1);
  t.scratch_base = t.out_base + outs;
  return t;
}

// Calls f(tile) for every tile of `range` in program order; a tile's index (and slot) counts
// from the range's first tile, the program's first.
template <typename F>
void for_each_tile(const AluPoolPlan& plan, const AluTileRange& range, const F& f) {
  uint64_t index = 0;
  for (int nb = 0; nb < plan.nb; ++nb) {
    for (int cb = 0; cb < plan.cb; ++cb) {
      for (int rt = 0; rt < plan.row_tiles(); ++rt, ++index) {
        if (index >= range.begin && index < range.end) {
          f(make_tile(plan, nb, cb, rt, index - range.begin));
        }
      }
    }
  }
}

// Tiles of `range` that exist in the plan.
uint64_t range_tiles(const AluPoolPlan& plan, const AluTileRange& range) {
  const uint64_t end = std::min(range.end, plan.tiles());
  return end > range.begin ? end - range.begin : 0;
}

// out = out op imm (or, with a vector step, out op scratch; on_b: scratch op= ...) over the
// tile's output rows.
MicroKernel output_kernel(const AluPoolPlan& plan, const PoolTile& t, const AluStep& step) {
  const uint32_t rows = uint32_t(t.oy1 - t.oy0), ow = uint32_t(plan.p.ow);
  const uint32_t dst = step.on_b ? t.scratch_base : t.out_base;
  const uint32_t src = step.vector ? (step.on_b ? t.out_base : t.scratch_base) : dst;
  MicroKernel k;
  k.gemm = false;
  k.alu_opcode = step.opcode;
  k.use_imm = !step.vector;
  k.imm = step.vector ? 0 : step.imm;
  k.loops = {UopLoop{rows, ow, ow, 0}, UopLoop{ow, 1, 1, 0}};
  k.uops = {Uop{dst, src, 0}};
  k.what = fmt::format("alu {} {}{}", alu_op_name(step.opcode),
                       step.vector ? "vector" : fmt::format("imm {}", step.imm),
                       step.on_b ? " on scratch" : "");
  return k;
}

// out = max(out, in at tap (ky, kx)) over the tile's outputs whose tap is inside the input;
// no micro-ops when there are none.
MicroKernel tap_kernel(const AluPoolPlan& plan, const PoolTile& t, int ky, int kx) {
  const PoolWindow& p = plan.p;
  MicroKernel k;
  k.gemm = false;
  k.alu_opcode = p.average ? kAluAdd : kAluMax;
  k.what = fmt::format("alu {} tap {},{}", alu_op_name(k.alu_opcode), ky, kx);
  const Span ys = tap_span(t.oy0, t.oy1, ky, p.stride_h, p.pad_top, p.h);
  const Span xs = tap_span(0, p.ow, kx, p.stride_w, p.pad_left, p.w);
  if (ys.count() <= 0 || xs.count() <= 0) {
    return k;
  }
  const uint32_t ny = uint32_t(ys.count()), nx = uint32_t(xs.count());
  const uint32_t iy = uint32_t(ys.lo * p.stride_h - p.pad_top + ky - t.iy0);
  const uint32_t ix = uint32_t(xs.lo * p.stride_w - p.pad_left + kx);
  // A loop of extent 1 gets factors 0: its factor may not fit the field.
  k.loops = {UopLoop{ny, ny > 1 ? uint32_t(p.ow) : 0, ny > 1 ? uint32_t(p.stride_h * p.w) : 0, 0},
             UopLoop{nx, nx > 1 ? 1u : 0, nx > 1 ? uint32_t(p.stride_w) : 0, 0}};
  k.uops = {Uop{t.out_base + uint32_t(ys.lo - t.oy0) * uint32_t(p.ow) + uint32_t(xs.lo),
                t.in_base + iy * uint32_t(p.w) + ix, 0}};
  return k;
}

// The ALU kernels of a tile, in program order.
std::vector<MicroKernel> tile_kernels(const AluPoolPlan& plan, const PoolTile& t) {
  const int32_t init = plan.p.average ? 0 : kInt8Min;  // the sum's start, or the lowest value
  std::vector<MicroKernel> ks{output_kernel(plan, t, AluStep{kAluMin, init}),
                              output_kernel(plan, t, AluStep{kAluMax, init})};
  for (int ky = 0; ky < plan.p.kh; ++ky) {
    for (int kx = 0; kx < plan.p.kw; ++kx) {
      MicroKernel k = tap_kernel(plan, t, ky, kx);
      if (!k.uops.empty()) {
        ks.push_back(std::move(k));
      }
    }
  }
  if (plan.p.average) {
    for (const AluStep& step : plan.p.finish) {
      ks.push_back(output_kernel(plan, t, step));
    }
    ks.push_back(output_kernel(plan, t, AluStep{kAluMax, kInt8Min}));
    ks.push_back(output_kernel(plan, t, AluStep{kAluMin, 127}));
  }
  return ks;
}

Load2D tile_load(const AluPoolPlan& plan, const PoolTile& t, BufferHandle in) {
  const PoolWindow& p = plan.p;
  Load2D l;
  l.src = in;
  l.src_elem_offset = uint32_t(((uint64_t(t.nb) * plan.cb + t.cb) * p.h + t.iy0) * p.w);
  l.x_size = uint32_t(p.w);
  l.y_size = uint32_t(t.iy1 - t.iy0);
  l.x_stride = uint32_t(p.w);
  l.sram_index = t.in_base;
  l.memory_type = kMemAcc8;
  return l;
}

Store2D tile_store(const AluPoolPlan& plan, const PoolTile& t, BufferHandle out) {
  const PoolWindow& p = plan.p;
  Store2D s;
  s.sram_index = t.out_base;
  s.memory_type = kMemOut;
  s.dst = out;
  s.dst_elem_offset = uint32_t(((uint64_t(t.nb) * plan.cb + t.cb) * p.oh + t.oy0) * p.ow);
  s.x_size = uint32_t(p.ow);
  s.y_size = uint32_t(t.oy1 - t.oy0);
  s.x_stride = uint32_t(p.ow);
  return s;
}

std::string kernel_key(const MicroKernel& k) {
  std::string key = fmt::format("{} {} {}", k.alu_opcode, k.use_imm, k.imm);
  for (const UopLoop& l : k.loops) {
    key += fmt::format(" {}:{}:{}", l.extent, l.dst_factor, l.src_factor);
  }
  return key + fmt::format(" {}:{}", k.uops[0].dst_idx, k.uops[0].src_idx);
}

}  // namespace

std::string PoolWindow::describe() const {
  return fmt::format("{}x{}x{}x{} {} {}x{} s{}x{} pad {},{} -> {}x{}", n, c, h, w,
                     average ? "avg" : "max", kh, kw, stride_h, stride_w, pad_top, pad_left, oh,
                     ow);
}

AluPoolPlan AluPoolPlan::make(const PoolWindow& p, const HwConfig& cfg) {
  if (uint32_t(p.ow) > kMaxLoopExtent) {
    throw Error(fmt::format("{}pool {}: {} output columns exceed the ALU's 14-bit loop extent",
                            p.average ? "avg" : "max", p.describe(), p.ow));
  }
  AluPoolPlan plan;
  plan.p = p;
  plan.batch = cfg.batch, plan.block = cfg.block_out;
  plan.nb = (p.n + cfg.batch - 1) / cfg.batch;
  plan.cb = (p.c + cfg.block_out - 1) / cfg.block_out;
  const uint32_t depth = std::min(cfg.acc_buff_depth, cfg.out_buff_depth);
  plan.tile_oh = rows_fitting(p, depth, 1);
  if (plan.tile_oh == 0) {
    throw Error(
        fmt::format("{}pool {}: one output row needs {} accumulator elements, the buffer holds {}",
                    p.average ? "avg" : "max", p.describe(), slot_size(p, 1), depth));
  }
  // Two slots (compute beside store) whenever there is more than one tile and a row fits twice.
  const int two = rows_fitting(p, depth, 2);
  if (two > 0 && plan.tiles() > 1) {
    plan.tile_oh = two;
    plan.slots = 2;
  }
  plan.slot_elems = slot_size(p, plan.tile_oh);
  return plan;
}

AluPoolPlan AluPoolPlan::with_tiles(uint64_t tiles, const HwConfig& cfg) const {
  const uint64_t blocks = uint64_t(nb) * uint64_t(cb);
  if (this->tiles() >= tiles || row_tiles() >= p.oh) {
    return *this;
  }
  const uint64_t row_tiles = std::min<uint64_t>((tiles + blocks - 1) / blocks, uint64_t(p.oh));
  AluPoolPlan plan = *this;
  plan.tile_oh = int((uint64_t(p.oh) + row_tiles - 1) / row_tiles);
  const uint32_t depth = std::min(cfg.acc_buff_depth, cfg.out_buff_depth);
  plan.slots = plan.tiles() > 1 && rows_fitting(p, depth, 2) >= plan.tile_oh ? 2 : 1;
  plan.slot_elems = slot_size(p, plan.tile_oh);
  return plan;
}

void emit_alu_pool(ProgramSink& sink, const AluPoolPlan& plan, BufferHandle in, BufferHandle out,
                   const AluTileRange& range) {
  std::map<std::string, std::unique_ptr<KernelCacheSlot>> cache;  // one record per kernel
  for_each_tile(plan, range, [&](const PoolTile& t) {
    if (t.index >= uint64_t(plan.slots)) {
      sink.dep_pop(kStageStore, kStageCompute);  // the slot's previous tile is stored
    }
    sink.load_2d(tile_load(plan, t, in));
    for (const MicroKernel& k : tile_kernels(plan, t)) {
      auto& slot = cache[kernel_key(k)];
      if (!slot) {
        slot = std::make_unique<KernelCacheSlot>();
      }
      sink.push_kernel(k, *slot);
    }
    sink.dep_push(kStageCompute, kStageStore);
    sink.dep_pop(kStageCompute, kStageStore);
    sink.store_2d(tile_store(plan, t, out));
    sink.dep_push(kStageStore, kStageCompute);
  });
  for (uint64_t i = 0; i < std::min<uint64_t>(range_tiles(plan, range), uint64_t(plan.slots));
       ++i) {
    sink.dep_pop(kStageStore, kStageCompute);  // nobody consumes the last tiles' tokens
  }
}

uint64_t alu_pool_cycle_estimate(const AluPoolPlan& plan, const HwConfig& cfg,
                                 const AluTileRange& range) {
  const uint64_t elem = uint64_t(cfg.batch) * uint64_t(cfg.block_out);  // ACC_8BIT / OUT bytes
  AluTileEstimate est(cfg);
  for_each_tile(plan, range, [&](const PoolTile& t) {
    uint64_t c = est.load(double(t.iy1 - t.iy0) * plan.p.w * double(elem));
    for (const MicroKernel& k : tile_kernels(plan, t)) {
      c += est.kernel(k, kernel_key(k));
    }
    est.add_tile(c, double(t.oy1 - t.oy0) * plan.p.ow * double(elem));
  });
  return est.total(plan.slots);
}

}  // namespace vta::compiler
