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
};

AddTile make_tile(const AluAddPlan& plan, uint32_t t) {
  AddTile tile;
  tile.index = t;
  tile.first = t * plan.tile;
  tile.count = std::min(plan.tile, plan.elems - tile.first);
  tile.a_base = (t % uint32_t(plan.slots)) * 2 * plan.tile;
  tile.b_base = tile.a_base + plan.tile;
  return tile;
}

MicroKernel elementwise(const AddTile& t, uint32_t opcode, bool imm, int32_t value) {
  MicroKernel k;
  k.gemm = false;
  k.alu_opcode = opcode;
  k.use_imm = imm;
  k.imm = value;
  k.loops = {UopLoop{1, 0, 0, 0}, UopLoop{t.count, 1, 1, 0}};
  k.uops = {Uop{t.a_base, imm ? t.a_base : t.b_base, 0}};
  k.what = imm ? fmt::format("alu {} imm {}", alu_op_name(opcode), value) : "alu ADD operand";
  return k;
}

std::vector<MicroKernel> tile_kernels(const AluAddPlan& plan, const AddTile& t) {
  std::vector<MicroKernel> ks;
  if (plan.binary) {
    ks.push_back(elementwise(t, kAluAdd, false, 0));
  }
  for (const AluImmOp& op : plan.imm_ops) {
    ks.push_back(elementwise(t, op.opcode, true, op.imm));
  }
  ks.push_back(elementwise(t, kAluMax, true, plan.lo));
  ks.push_back(elementwise(t, kAluMin, true, plan.hi));
  return ks;
}

Load2D operand_load(const AddTile& t, BufferHandle src, uint32_t sram) {
  Load2D l;
  l.src = src;
  l.src_elem_offset = t.first;
  l.x_size = t.count;
  l.y_size = 1;
  l.x_stride = t.count;
  l.sram_index = sram;
  l.memory_type = kMemAcc8;
  return l;
}

}  // namespace

std::string AluAddPlan::describe() const {
  if (binary) {
    return fmt::format("{}x{}x{}x{} + {}x{}x{}x{} clamp {}..{}", n, c, h, w, n, c, h, w, lo, hi);
  }
  std::string ops;
  for (const AluImmOp& op : imm_ops) {
    ops += fmt::format("{}{} {}", ops.empty() ? "" : ", ", alu_op_name(op.opcode), op.imm);
  }
  return fmt::format("{}x{}x{}x{} ({}) clamp {}..{}", n, c, h, w, ops, lo, hi);
}

AluAddPlan AluAddPlan::make_unary(int n, int c, int h, int w, std::vector<AluImmOp> ops, int lo,
                                  int hi, const HwConfig& cfg) {
  AluAddPlan p = make(n, c, h, w, lo, hi, cfg);
  p.binary = false;
  p.imm_ops = std::move(ops);
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
  return p;
}

void emit_alu_add(ProgramSink& sink, const AluAddPlan& plan, BufferHandle a, BufferHandle b,
                  BufferHandle out) {
  // Every tile of one size has the same kernels per slot: one cache record each.
  std::map<std::string, KernelCacheSlot> cache;
  for (uint32_t i = 0; i < plan.tiles(); ++i) {
    const AddTile t = make_tile(plan, i);
    if (t.index >= uint64_t(plan.slots)) {
      sink.dep_pop(kStageStore, kStageCompute);
    }
    sink.load_2d(operand_load(t, a, t.a_base));
    if (plan.binary) {
      sink.load_2d(operand_load(t, b, t.b_base));
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
  for (uint32_t i = 0; i < std::min(plan.tiles(), uint32_t(plan.slots)); ++i) {
    sink.dep_pop(kStageStore, kStageCompute);  // nobody consumes the last tiles' tokens
  }
}

uint64_t alu_add_cycle_estimate(const AluAddPlan& plan, const HwConfig& cfg) {
  const double elem = double(cfg.batch) * double(cfg.block_out);  // ACC_8BIT / OUT bytes
  AluTileEstimate est(cfg);
  for (uint32_t i = 0; i < plan.tiles(); ++i) {
    const AddTile t = make_tile(plan, i);
    const uint64_t loads = plan.binary ? 2 : 1;
    uint64_t c = loads * est.load(t.count * elem);
    for (const MicroKernel& k : tile_kernels(plan, t)) {
      c += est.kernel(k, fmt::format("{} {} {}", k.what, t.a_base, t.count));
    }
    est.add_tile(c, t.count * elem);
  }
  return est.total(plan.slots);
}

}  // namespace vta::compiler
