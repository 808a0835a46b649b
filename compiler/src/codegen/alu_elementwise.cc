#include "vta/compiler/codegen/alu_elementwise.h"

#include <algorithm>
#include <map>
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

struct AddTile {
  uint64_t index = 0;
  uint32_t first = 0, count = 0;  // elements [first, first + count) of the tensors
  uint32_t a_base = 0, b_base = 0;
  uint32_t b_first = 0, b_count = 0;  // b's elements (per channel: one per plane)
};

// Tile t of the plan, the `local`-th of its program (which picks its slot).
AddTile make_tile(const AluAddPlan& plan, uint32_t t, uint32_t local) {
  AddTile tile;
  tile.index = local;
  if (plan.tiles_per_plane) {  // a part of one plane
    const uint32_t part = t % plan.tiles_per_plane;
    tile.first = t / plan.tiles_per_plane * plan.plane + part * plan.tile;
    tile.count = std::min(plan.tile, plan.plane - part * plan.tile);
  } else {
    tile.first = t * plan.tile;
    tile.count = std::min(plan.tile, plan.elems - tile.first);
  }
  tile.a_base = (local % uint32_t(plan.slots)) * 2 * plan.tile;
  tile.b_base = tile.a_base + plan.tile;
  tile.b_first = plan.per_channel ? tile.first / plan.plane : tile.first;
  tile.b_count = plan.per_channel ? std::max(1u, tile.count / plan.plane) : tile.count;
  return tile;
}

// dst = dst op src over the tile; `broadcast`: src is b's per-channel values, one per plane.
MicroKernel elementwise(const AluAddPlan& plan, const AddTile& t, const AluStep& op,
                        bool broadcast) {
  MicroKernel k;
  k.gemm = false;
  k.alu_opcode = op.opcode;
  k.use_imm = !op.vector;
  k.imm = op.vector ? 0 : op.imm;
  const uint32_t dst = op.on_b ? t.b_base : t.a_base, src = op.on_b ? t.a_base : t.b_base;
  k.loops = {UopLoop{1, 0, 0, 0}, UopLoop{t.count, 1, 1, 0}};
  if (broadcast) {
    const bool whole = t.count % plan.plane == 0 && !plan.tiles_per_plane;
    k.loops = whole ? std::vector<UopLoop>{UopLoop{t.b_count, plan.plane, 1, 0},
                                           UopLoop{plan.plane, 1, 0, 0}}
                    : std::vector<UopLoop>{UopLoop{1, 0, 0, 0}, UopLoop{t.count, 1, 0, 0}};
  }
  k.uops = {Uop{dst, op.vector ? src : dst, 0}};
  k.what = op.vector ? fmt::format("alu {} {}", alu_op_name(op.opcode), op.on_b ? "a->b" : "b->a")
                     : fmt::format("alu {} imm {}{}", alu_op_name(op.opcode), op.imm,
                                   op.on_b ? " on b" : "");
  return k;
}

std::vector<MicroKernel> tile_kernels(const AluAddPlan& plan, const AddTile& t) {
  std::vector<MicroKernel> ks;
  bool b_written = false;  // b's slot no longer holds the per-channel values
  for (const AluStep& op : plan.ops) {
    ks.push_back(elementwise(plan, t, op, plan.per_channel && op.vector && !op.on_b && !b_written));
    b_written = b_written || op.on_b;
  }
  ks.push_back(elementwise(plan, t, AluStep{kAluMax, plan.lo}, false));
  ks.push_back(elementwise(plan, t, AluStep{kAluMin, plan.hi}, false));
  return ks;
}

Load2D operand_load(BufferHandle src, uint32_t first, uint32_t count, uint32_t sram) {
  Load2D l;
  l.src = src;
  l.src_elem_offset = first;
  l.x_size = count;
  l.y_size = 1;
  l.x_stride = count;
  l.sram_index = sram;
  l.memory_type = kMemAcc8;
  return l;
}

int32_t shift(int32_t a, int32_t b) {
  return b >= 0 ? a >> b : int32_t(uint32_t(a) << -b);
}

int32_t apply(uint32_t opcode, int32_t a, int32_t b) {
  switch (opcode) {
    case kAluMin:
      return std::min(a, b);
    case kAluMax:
      return std::max(a, b);
    case kAluAdd:
      return int32_t(uint32_t(a) + uint32_t(b));
    case kAluShr:
      return shift(a, b);
    default:
      return int32_t(uint32_t(a) * uint32_t(b));
  }
}

}  // namespace

int32_t apply_alu_steps(const std::vector<AluStep>& ops, int32_t a, int32_t b) {
  for (const AluStep& op : ops) {
    int32_t& dst = op.on_b ? b : a;
    dst = apply(op.opcode, dst, op.vector ? (op.on_b ? a : b) : op.imm);
  }
  return a;
}

std::vector<AluStep> round_shift_steps(int r, int sign_shifts) {
  if (r < -15 || r > 15) {
    throw Error(fmt::format("a shift by {} is beyond the ALU's -15..15", r));
  }
  if (r <= 0) {
    return r ? std::vector<AluStep>{{kAluShr, r}} : std::vector<AluStep>{};
  }
  std::vector<AluStep> s{{kAluMul, 0, false, true}, {kAluAdd, 0, true, true}};
  for (int i = 0; i < sign_shifts; ++i) {
    s.push_back({kAluShr, 15, false, true});
  }
  s.insert(s.end(), {{kAluAdd, 0, true}, {kAluAdd, 1 << (r - 1)}, {kAluShr, r}});
  return s;
}

std::string AluAddPlan::describe() const {
  const std::string b = fmt::format("{}x{}x{}x{}", n, c, per_channel ? 1 : h, per_channel ? 1 : w);
  if (binary && ops.size() == 1 && ops[0].opcode == kAluAdd && ops[0].vector) {
    return fmt::format("{}x{}x{}x{} + {} clamp {}..{}", n, c, h, w, b, lo, hi);
  }
  std::string text;
  for (const AluStep& op : ops) {
    const std::string arg = op.vector ? (op.on_b ? "a" : "b") : fmt::format("{}", op.imm);
    text += fmt::format("{}{}{} {}", text.empty() ? "" : ", ", op.on_b ? "b " : "",
                        alu_op_name(op.opcode), arg);
  }
  return fmt::format("{}x{}x{}x{}{} ({}) clamp {}..{}", n, c, h, w,
                     binary ? fmt::format(", {}", b) : "", text, lo, hi);
}

AluAddPlan AluAddPlan::make_unary(int n, int c, int h, int w, std::vector<AluStep> ops, int lo,
                                  int hi, const HwConfig& cfg) {
  AluAddPlan p = make(n, c, h, w, lo, hi, cfg);
  p.binary = false;
  p.ops = std::move(ops);
  return p;
}

AluAddPlan AluAddPlan::make_binary(int n, int c, int h, int w, bool per_channel,
                                   std::vector<AluStep> ops, int lo, int hi, const HwConfig& cfg) {
  AluAddPlan p = make(n, c, h, w, lo, hi, cfg);
  p.ops = std::move(ops);
  p.per_channel = per_channel;
  p.plane = uint32_t(h) * uint32_t(w);
  if (per_channel && p.plane <= p.tile) {
    p.tile = p.tile / p.plane * p.plane;  // whole planes
  } else if (per_channel) {
    const uint32_t max_tile = p.tile;
    p.tiles_per_plane = (p.plane + max_tile - 1) / max_tile;
    p.tile = (p.plane + p.tiles_per_plane - 1) / p.tiles_per_plane;
  }
  return p;
}

AluAddPlan AluAddPlan::make(int n, int c, int h, int w, int lo, int hi, const HwConfig& cfg) {
  AluAddPlan p;
  p.n = n, p.c = c, p.h = h, p.w = w, p.lo = lo, p.hi = hi;
  if (lo < -128 || hi > 127 || lo > hi) {
    throw Error(
        fmt::format("add {}: the bounds must satisfy -128 <= lo <= hi <= 127", p.describe()));
  }
  const uint64_t elems = uint64_t((n + cfg.batch - 1) / cfg.batch) *
                         uint64_t((c + cfg.block_out - 1) / cfg.block_out) * uint64_t(h) *
                         uint64_t(w);
  if (elems >= (uint64_t(1) << 31)) {
    throw Error(fmt::format("add {}: {} accumulator elements are too many", p.describe(), elems));
  }
  p.elems = uint32_t(elems);
  const uint32_t depth = std::min(cfg.acc_buff_depth, cfg.out_buff_depth);
  p.slots = p.elems > depth / 2 ? 2 : 1;
  p.tile = std::min({kMaxLoopExtent, depth / (2 * uint32_t(p.slots)), p.elems});
  p.ops = {AluStep{kAluAdd, 0, true}};
  return p;
}

AluAddPlan AluAddPlan::with_tiles(uint32_t tiles, const HwConfig& cfg) const {
  if (this->tiles() >= tiles) {
    return *this;
  }
  AluAddPlan p = *this;
  const uint32_t planes = elems / plane;
  if (!per_channel) {
    p.tile = std::max(1u, (elems + tiles - 1) / tiles);
  } else if (planes >= tiles && !tiles_per_plane) {  // whole planes
    p.tile = (planes + tiles - 1) / tiles * plane;
  } else {  // parts of a plane
    p.tiles_per_plane = std::min(plane, std::max(tiles_per_plane, (tiles + planes - 1) / planes));
    p.tile = (plane + p.tiles_per_plane - 1) / p.tiles_per_plane;
  }
  const uint32_t depth = std::min(cfg.acc_buff_depth, cfg.out_buff_depth);
  p.slots = p.tiles() > 1 && 4 * p.tile <= depth ? 2 : 1;
  return p;
}

namespace {

// The tiles of `range` that exist in the plan: [first, end).
std::pair<uint32_t, uint32_t> range_of(const AluAddPlan& plan, const AluTileRange& range) {
  const uint32_t end = uint32_t(std::min<uint64_t>(range.end, plan.tiles()));
  return {uint32_t(std::min<uint64_t>(range.begin, end)), end};
}

}  // namespace

void emit_alu_add(ProgramSink& sink, const AluAddPlan& plan, BufferHandle a, BufferHandle b,
                  BufferHandle out, const AluTileRange& range) {
  // Every tile of one size has the same kernels per slot: one cache record each.
  std::map<std::string, KernelCacheSlot> cache;
  const auto [first, end] = range_of(plan, range);
  for (uint32_t i = first; i < end; ++i) {
    const AddTile t = make_tile(plan, i, i - first);
    if (t.index >= uint64_t(plan.slots)) {
      sink.dep_pop(kStageStore, kStageCompute);
    }
    sink.load_2d(operand_load(a, t.first, t.count, t.a_base));
    if (plan.binary) {
      sink.load_2d(operand_load(b, t.b_first, t.b_count, t.b_base));
    }
    for (const MicroKernel& k : tile_kernels(plan, t)) {
      sink.push_kernel(k, cache[fmt::format("{} {} {} {}", k.what, t.a_base, t.count, k.imm)]);
    }
    sink.dep_push(kStageCompute, kStageStore);
    sink.dep_pop(kStageCompute, kStageStore);
    Store2D s;
    s.sram_index = t.a_base;
    s.dst = out;
    s.dst_elem_offset = t.first;
    s.x_size = t.count;
    s.y_size = 1;
    s.x_stride = t.count;
    sink.store_2d(s);
    sink.dep_push(kStageStore, kStageCompute);
  }
  for (uint32_t i = 0; i < std::min(end - first, uint32_t(plan.slots)); ++i) {
    sink.dep_pop(kStageStore, kStageCompute);  // nobody consumes the last tiles' tokens
  }
}

uint64_t alu_add_cycle_estimate(const AluAddPlan& plan, const HwConfig& cfg,
                                const AluTileRange& range) {
  const double elem = double(cfg.batch) * double(cfg.block_out);  // ACC_8BIT / OUT bytes
  AluTileEstimate est(cfg);
  const auto [first, end] = range_of(plan, range);
  for (uint32_t i = first; i < end; ++i) {
    const AddTile t = make_tile(plan, i, i - first);
    uint64_t c = est.load(t.count * elem) + (plan.binary ? est.load(t.b_count * elem) : 0);
    for (const MicroKernel& k : tile_kernels(plan, t)) {
      c += est.kernel(k, fmt::format("{} {} {}", k.what, t.a_base, t.count));
    }
    est.add_tile(c, t.count * elem);
  }
  return est.total(plan.slots);
}

}  // namespace vta::compiler
