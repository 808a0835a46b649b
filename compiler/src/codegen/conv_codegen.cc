#include "vta/compiler/codegen/conv_codegen.h"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "vta/compiler/codegen/layout.h"
#include "vta/compiler/scheduling/load_split.h"
#include "vta/sim/error.h"
#include "vta/sim/isa.h"

namespace vta::compiler {

namespace {

// The `len` positions start, start + step, ... split into those before 0 and from `limit` on
// (padding: pad_before / pad_after of them) and the `size` in between, the first at `begin`.
struct Clip {
  int pad_before = 0, begin = 0, size = 0, pad_after = 0;
};
Clip clip_window(int start, int len, int limit, int step = 1) {
  const int first = std::min(len, start >= 0 ? 0 : ceil_div(-start, step));
  const int end = std::min(len, start >= limit ? 0 : ceil_div(limit - start, step));
  if (end <= first) {
    return Clip{0, 0, 0, 0};  // entirely in the padding
  }
  return Clip{first, start + first * step, end - first, len - end};
}

}  // namespace

// One output tile (edge tiles are smaller) and the accumulator slot it uses.
struct ConvCodegen::Tile {
  uint64_t index = 0;             // position in emission order
  int nb = 0, ot = 0;             // batch block, output-channel tile
  int pass = 0;                   // (nb, ot) pairs emitted before this tile's (weight tags)
  int ob0 = 0, oy0 = 0, ox0 = 0;  // first output-channel block, output row, output column
  int to = 0, th = 0, tw = 0;     // output-channel blocks, rows, columns
  uint32_t acc_slot = 0, acc_base = 0, out_base = 0;
  TileShape shape;  // with one input block: the shape of the element-wise kernels
  std::string key;  // names the tile's kernels: "<to>x<th>x<tw>@<acc slot>"
};

// The weights of a step one hand-over from load to compute covers: output-channel blocks
// [first, first + blocks) of the tile, kernel rows [kh0, kh0 + rows) of each
// (TilePlan::WeightParts: parts of rows only with one block each).
struct ConvCodegen::Part {
  int first = 0, blocks = 0, kh0 = 0, rows = 0;
};

// One input-channel chunk of a tile and the input/weight slot it uses.
struct ConvCodegen::Step {
  uint64_t index = 0;              // position in emission order
  int chunk = 0, ib0 = 0, ti = 0;  // chunk, its first input-channel block, its block count
  uint32_t io_slot = 0, inp_base = 0;
  TilePlan::WeightSlot wgt;  // which weights, in which weight slot
  uint32_t wgt_base = 0;
  bool loads_wgt = false;   // the weight slot does not hold the step's weights yet
  std::vector<Part> parts;  // the hand-overs from load to compute (whole step: one part)
  TileShape shape;
};

ConvCodegen::ConvCodegen(const TilePlan& plan, const HwConfig& cfg) : m_plan(plan), m_cfg(cfg) {
  const auto& p = m_plan.g.p;
  // Windows that do not touch the input at all (padding wider than the kernel) load zeros.
  for (int ht = 0; ht < m_plan.h_tiles; ++ht) {
    for (int wt = 0; wt < m_plan.w_tiles; ++wt) {
      int oy0 = ht * m_plan.s.tile_h, ox0 = wt * m_plan.s.tile_w;
      TileShape t = m_plan.shape(std::min(m_plan.s.tile_h, m_plan.g.oh - oy0),
                                 std::min(m_plan.s.tile_w, m_plan.g.ow - ox0), 1, 1);
      Clip cy = clip_window(oy0 * p.stride_h - p.pad_top, t.ih, p.h, t.row_step);
      Clip cx = clip_window(ox0 * p.stride_w - p.pad_left, t.iw, p.w);
      if (cy.size == 0 || cx.size == 0) {
        m_zero_elems = std::max(m_zero_elems, size_t(t.ih) * t.iw);
      }
    }
  }
}

size_t ConvCodegen::kernel_uops() const {
  size_t n = 0;
  for (const auto& [key, k] : m_kernels) {
    n += k->kernel.uops.size();
  }
  return n;
}

ConvCodegen::KernelSlot& ConvCodegen::kernel(const std::string& key,
                                             const std::function<MicroKernel()>& build) {
  auto it = m_kernels.find(key);
  if (it != m_kernels.end()) {
    return *it->second;
  }
  auto slot = std::make_unique<KernelSlot>();
  slot->kernel = build();
  auto& ref = *slot;
  m_kernels.emplace(key, std::move(slot));
  return ref;
}

ConvCodegen::Tile ConvCodegen::make_tile(int nb, int ot, int ht, int wt, uint64_t index) const {
  const TilePlan& P = m_plan;
  Tile t;
  t.index = index;
  t.nb = nb;
  t.ot = ot;
  t.ob0 = ot * P.s.tile_oc_blocks;
  t.oy0 = ht * P.s.tile_h;
  t.ox0 = wt * P.s.tile_w;
  t.to = std::min(P.s.tile_oc_blocks, P.g.ocb - t.ob0);
  t.th = std::min(P.s.tile_h, P.g.oh - t.oy0);
  t.tw = std::min(P.s.tile_w, P.g.ow - t.ox0);
  t.acc_slot = uint32_t(index % uint64_t(P.s.threads));
  t.acc_base = t.acc_slot * P.acc_slot;
  t.out_base = t.acc_base + P.acc_out_off;
  t.shape = P.shape(t.th, t.tw, t.to, 1);
  t.key = fmt::format("{}x{}x{}@{}", t.to, t.th, t.tw, t.acc_slot);
  return t;
}

ConvCodegen::Step ConvCodegen::make_step(const Tile& tile, int chunk, uint64_t index) {
  const TilePlan& P = m_plan;
  Step s;
  s.index = index;
  s.chunk = chunk;
  s.ib0 = chunk * P.s.tile_ic_blocks;
  s.ti = std::min(P.s.tile_ic_blocks, P.g.icb - s.ib0);
  s.shape = P.shape(tile.th, tile.tw, tile.to, s.ti);
  s.io_slot = uint32_t(index % uint64_t(P.s.threads));
  s.inp_base = s.io_slot * P.inp_slot;
  // Weight tags count the passes in emission order: a range's passes stay consecutive (the
  // slot rotation TilePlan::weight_slot relies on), the whole layer's are nb * oc_tiles + ot.
  s.wgt = P.weight_slot(0, tile.pass, chunk, index);
  s.wgt_base = s.wgt.slot * P.wgt_slot;
  // Skip the weight load when the slot already holds these weights (TilePlan::weight_slot).
  s.loads_wgt = m_wgt_tag[s.wgt.slot] != s.wgt.tag;
  m_wgt_tag[s.wgt.slot] = s.wgt.tag;
  const int kh = P.g.p.kh;
  const TilePlan::WeightParts wp = s.loads_wgt
                                       ? P.weight_parts(tile.to, tile.th * tile.tw, s.ti, m_cfg)
                                       : TilePlan::WeightParts{tile.to, kh};
  for (int first = 0; first < tile.to; first += wp.blocks) {
    for (int kh0 = 0; kh0 < kh; kh0 += wp.rows) {
      s.parts.push_back(
          Part{first, std::min(wp.blocks, tile.to - first), kh0, std::min(wp.rows, kh - kh0)});
    }
  }
  return s;
}

void ConvCodegen::emit(ProgramSink& sink, const ConvBuffers& b, const ConvTileRange& r) {
  const TilePlan& P = m_plan;
  m_wgt_tag.assign(size_t(P.s.threads), -1);
  const auto end = [](int e, int all) { return e < 0 ? all : std::min(e, all); };
  std::vector<Tile> tiles;
  tiles.reserve(P.tiles());
  int pass = 0;
  for (int nb = r.nb_begin; nb < end(r.nb_end, P.g.nb); ++nb) {
    for (int ot = r.ot_begin; ot < end(r.ot_end, P.oc_tiles); ++ot) {
      for (int ht = 0; ht < P.h_tiles; ++ht) {
        for (int wt = r.wt_begin; wt < end(r.wt_end, P.w_tiles); ++wt) {
          tiles.push_back(make_tile(nb, ot, ht, wt, tiles.size()));
          tiles.back().pass = pass;
        }
      }
      ++pass;
    }
  }
  if (tiles.empty()) {
    return;
  }
  uint64_t step = 0;
  for (size_t j = 0; j < tiles.size(); ++j) {
    emit_tile(sink, b, tiles[j], j + 1 < tiles.size() ? &tiles[j + 1] : nullptr, step);
  }
  drain_tokens(sink, tiles.size(), step);
}

void ConvCodegen::emit_tile(ProgramSink& sink, const ConvBuffers& b, const Tile& tile,
                            const Tile* next, uint64_t& step) {
  // With a residual and two or more accumulator slots, the next tile's start (its residual
  // loads) runs right after this tile's last GEMM, before the load unit is given the slot
  // back: the compute unit's own reads then find the memory port idle instead of queued
  // behind the next input window. Without a residual there is nothing to read, and starting
  // early would only wait sooner for the store of the slot's previous tile.
  const bool start_early = m_plan.s.threads >= 2 && m_plan.e.residual;
  for (int ch = 0; ch < m_plan.ic_chunks; ++ch, ++step) {
    const Step s = make_step(tile, ch, step);
    emit_loads(sink, b, tile, s);
    if (ch == 0 && (tile.index == 0 || !start_early)) {
      emit_tile_start(sink, b, tile);
    }
    for (const Part& part : s.parts) {
      sink.dep_pop(kStageLoad, kStageCompute);
      for (KernelSlot* k : step_kernels(tile, s, part)) {
        push(sink, *k);
      }
    }
    if (ch + 1 == m_plan.ic_chunks && next != nullptr && start_early) {
      emit_tile_start(sink, b, *next);
    }
    sink.dep_push(kStageCompute, kStageLoad);
  }
  emit_epilogue(sink, tile);
  emit_stores(sink, b, tile);
}

void ConvCodegen::emit_loads(ProgramSink& sink, const ConvBuffers& b, const Tile& tile,
                             const Step& s) {
  // The slot is free once the GEMM of the step that used it T steps ago has pushed g2l.
  if (s.index >= uint64_t(m_plan.s.threads)) {
    sink.dep_pop(kStageCompute, kStageLoad);
  }
  emit_input_loads(sink, b, tile, s);
  for (const Part& part : s.parts) {
    if (s.loads_wgt) {
      emit_weight_load(sink, b, tile, s, part);
    }
    sink.dep_push(kStageLoad, kStageCompute);
  }
}

void ConvCodegen::emit_input_loads(ProgramSink& sink, const ConvBuffers& b, const Tile& tile,
                                   const Step& s) {
  const Conv2dParams& p = m_plan.g.p;
  const TileShape& t = s.shape;
  // The input window of the tile, clipped at the image border (the DMA pads the rest); with a
  // row step > 1 only every row_step-th input row (the DRAM row pitch skips the others).
  const Clip cy = clip_window(tile.oy0 * p.stride_h - p.pad_top, t.ih, p.h, t.row_step);
  const Clip cx = clip_window(tile.ox0 * p.stride_w - p.pad_left, t.iw, p.w);
  for (int i = 0; i < s.ti; ++i) {
    Load2D l;
    l.sram_index = s.inp_base + uint32_t(i) * t.ih * t.iw;
    l.memory_type = kMemInp;
    if (cy.size == 0 || cx.size == 0) {
      l.src = b.zeros;  // a window entirely in the padding
      l.x_size = l.x_stride = uint32_t(t.iw);
      l.y_size = uint32_t(t.ih);
      sink.load_2d(l);
      continue;
    }
    l.src = b.inp;
    l.src_elem_offset =
        ((uint32_t(tile.nb) * m_plan.g.icb + s.ib0 + i) * p.h + cy.begin) * p.w + cx.begin;
    l.x_size = uint32_t(cx.size);
    l.y_size = uint32_t(cy.size);
    l.x_stride = uint32_t(p.w * t.row_step);
    l.x_pad_before = uint32_t(cx.pad_before);
    l.y_pad_before = uint32_t(cy.pad_before);
    l.x_pad_after = uint32_t(cx.pad_after);
    l.y_pad_after = uint32_t(cy.pad_after);
    emit_split(sink, l);
  }
}

void ConvCodegen::emit_split(ProgramSink& sink, const Load2D& l) const {
  const uint32_t max_bytes = m_plan.max_load_beats * uint32_t(m_cfg.bus_bytes);
  for (const Load2D& piece :
       split_load(l, uint32_t(m_cfg.elem_bytes(int(l.memory_type))), max_bytes)) {
    sink.load_2d(piece);
  }
}

void ConvCodegen::emit_weight_load(ProgramSink& sink, const ConvBuffers& b, const Tile& tile,
                                   const Step& s, const Part& part) {
  // One row per output-channel block; a part of kernel rows (one block, one input block) is
  // the contiguous run of those rows inside the block.
  const BlockedConv& g = m_plan.g;
  const uint32_t kk = uint32_t(g.p.kh) * g.p.kw;
  const uint32_t row = uint32_t(s.ti) * kk;  // weight tiles of one output-channel block
  const uint32_t skip = uint32_t(part.kh0 * g.p.kw);
  Load2D l;
  l.src = b.wgt;
  l.src_elem_offset = (uint32_t(tile.ob0 + part.first) * g.icb + s.ib0) * kk + skip;
  l.x_size = part.rows == g.p.kh ? row : uint32_t(part.rows * g.p.kw);
  l.y_size = uint32_t(part.blocks);
  l.x_stride = uint32_t(g.icb) * kk;
  l.sram_index = s.wgt_base + uint32_t(part.first) * row + skip;
  l.memory_type = kMemWgt;
  emit_split(sink, l);
}

void ConvCodegen::emit_tile_start(ProgramSink& sink, const ConvBuffers& b, const Tile& tile) {
  const TilePlan& P = m_plan;
  // The accumulator slot is free once the store of the tile T tiles ago has pushed s2g.
  if (tile.index >= uint64_t(P.s.threads)) {
    sink.dep_pop(kStageStore, kStageCompute);
  }
  if (!P.residual_init) {
    push(sink,
         kernel("reset " + tile.key, [&] { return make_reset_kernel(tile.shape, tile.out_base); }));
  }
  // One ACC row per output-channel block of the tile (bias, per-channel shifts).
  auto load_channel_rows = [&](BufferHandle src, uint32_t offset) {
    Load2D l;
    l.src = src;
    l.src_elem_offset = uint32_t(tile.ob0);
    l.x_size = l.x_stride = uint32_t(tile.to);
    l.y_size = 1;
    l.sram_index = tile.acc_base + offset;
    l.memory_type = kMemAcc;
    sink.load_2d(l);
  };
  if (P.e.bias) {
    load_channel_rows(b.bias, P.acc_bias_off);
  }
  if (P.e.per_channel()) {
    load_channel_rows(b.shifts, P.acc_shift_off);
  }
  if (P.e.residual) {
    emit_residual_loads(sink, b, tile);
  }
}

void ConvCodegen::emit_residual_loads(ProgramSink& sink, const ConvBuffers& b, const Tile& tile) {
  const TilePlan& P = m_plan;
  const BlockedConv& g = P.g;
  // Into the residual region, or as the initial accumulator (then shifted left by the
  // epilogue's shift, which the GEMM sums go through with it: residual_initialises_acc).
  const uint32_t base = P.residual_init ? tile.out_base : tile.acc_base + P.acc_res_off;
  for (int o = 0; o < tile.to; ++o) {
    Load2D l;
    l.src = b.residual;
    l.src_elem_offset =
        ((uint32_t(tile.nb) * g.ocb + tile.ob0 + o) * g.oh + tile.oy0) * g.ow + tile.ox0;
    l.x_size = uint32_t(tile.tw);
    l.y_size = uint32_t(tile.th);
    l.x_stride = uint32_t(g.ow);
    l.sram_index = base + uint32_t(o * tile.th * tile.tw);
    l.memory_type = kMemAcc8;
    sink.load_2d(l);
  }
  if (P.residual_init && P.e.shift) {
    push(sink, kernel(fmt::format("shl{} {}", P.e.shift, tile.key), [&] {
           return make_alu_imm_kernel(tile.shape, tile.out_base, kAluShr, -P.e.shift);
         }));
  }
}

const std::vector<ConvCodegen::KernelSlot*>& ConvCodegen::step_kernels(const Tile& tile,
                                                                       const Step& s,
                                                                       const Part& part) {
  const std::string key =
      fmt::format("gemm {}x{}x{}x{} inp{} wgt{} acc{} o{} kh{}+{}", part.blocks, s.ti, tile.th,
                  tile.tw, s.io_slot, s.wgt.slot, tile.acc_slot, part.first, part.kh0, part.rows);
  auto it = m_steps.find(key);
  if (it != m_steps.end()) {
    return it->second;
  }
  const uint32_t kk = uint32_t(m_plan.g.p.kh) * m_plan.g.p.kw;
  const uint32_t o = uint32_t(part.first);
  const TileShape shape = m_plan.shape(tile.th, tile.tw, part.blocks, s.ti);
  const KernelRows rows =
      part.rows == m_plan.g.p.kh ? KernelRows{} : KernelRows{part.kh0, part.rows};
  std::vector<KernelSlot*> slots;
  auto kernels =
      make_gemm_step(m_plan, shape, s.inp_base, s.wgt_base + o * uint32_t(s.ti) * kk,
                     tile.out_base + o * uint32_t(tile.th * tile.tw), m_cfg.uop_buff_depth, rows);
  for (size_t i = 0; i < kernels.size(); ++i) {
    slots.push_back(
        &kernel(fmt::format("{} part {}", key, i), [&] { return std::move(kernels[i]); }));
  }
  return m_steps.emplace(key, std::move(slots)).first->second;
}

// The shift rounded half away from zero (Epilogue::round): the sign -[v < 0] into the scratch
// region (0, + v, >> 31), added to v, then >> (shift - 1), + 1, >> 1.
void ConvCodegen::emit_rounding_shift(ProgramSink& sink, const Tile& tile) {
  const TileShape& t = tile.shape;
  const uint32_t out = tile.out_base, scratch = tile.acc_base + m_plan.acc_res_off;
  const int shift = m_plan.e.shift;
  auto imm = [&](const char* what, uint32_t base, uint32_t op, int v) {
    push(sink, kernel(fmt::format("round {} {}", what, tile.key),
                      [&] { return make_alu_imm_kernel(t, base, op, v); }));
  };
  auto add = [&](const char* what, uint32_t dst, uint32_t src) {
    push(sink, kernel(fmt::format("round {} {}", what, tile.key), [&] {
           MicroKernel k = make_residual_kernel(t, dst, src);
           k.what = fmt::format("alu ADD {}", what);
           return k;
         }));
  };
  imm("clear", scratch, kAluMul, 0);
  add("copy", scratch, out);
  imm("sign", scratch, kAluShr, 31);
  add("minus sign", out, scratch);
  if (shift > 1) {
    imm(fmt::format("shr{}", shift - 1).c_str(), out, kAluShr, shift - 1);
  }
  imm("half", out, kAluAdd, 1);
  imm("shr1", out, kAluShr, 1);
}

// The residual at a finer scale than the output (Epilogue::residual_shift r): + 2^(r-1), >> r
// in its region, rounding half up.
void ConvCodegen::emit_residual_shift(ProgramSink& sink, const Tile& tile) {
  const int r = m_plan.e.residual_shift;
  if (!r) {
    return;
  }
  const uint32_t res = tile.acc_base + m_plan.acc_res_off;
  push(sink, kernel(fmt::format("residual half{} {}", r, tile.key),
                    [&] { return make_alu_imm_kernel(tile.shape, res, kAluAdd, 1 << (r - 1)); }));
  push(sink, kernel(fmt::format("residual shr{} {}", r, tile.key),
                    [&] { return make_alu_imm_kernel(tile.shape, res, kAluShr, r); }));
}

void ConvCodegen::emit_epilogue(ProgramSink& sink, const Tile& tile) {
  const Epilogue& e = m_plan.e;
  const TileShape& t = tile.shape;
  const uint32_t out = tile.out_base;
  if (e.bias) {
    push(sink, kernel("bias " + tile.key, [&] {
           return make_channel_vector_kernel(t, out, tile.acc_base + m_plan.acc_bias_off, kAluAdd);
         }));
  }
  if (e.per_channel()) {  // SHR with the shift row of each channel block as its operand
    push(sink, kernel("shr per-channel " + tile.key, [&] {
           return make_channel_vector_kernel(t, out, tile.acc_base + m_plan.acc_shift_off, kAluShr);
         }));
  } else if (e.round) {
    emit_rounding_shift(sink, tile);
  } else if (e.shift) {
    push(sink, kernel(fmt::format("shr{} {}", e.shift, tile.key),
                      [&] { return make_alu_imm_kernel(t, out, kAluShr, e.shift); }));
  }
  if (e.residual && !m_plan.residual_init) {
    emit_residual_shift(sink, tile);
    push(sink, kernel("residual " + tile.key, [&] {
           return make_residual_kernel(t, out, tile.acc_base + m_plan.acc_res_off);
         }));
  }
  if (auto lo = e.lower_bound()) {
    push(sink, kernel(fmt::format("max{} {}", *lo, tile.key),
                      [&] { return make_alu_imm_kernel(t, out, kAluMax, *lo); }));
  }
  if (e.clip_hi) {
    push(sink, kernel(fmt::format("min{} {}", *e.clip_hi, tile.key),
                      [&] { return make_alu_imm_kernel(t, out, kAluMin, *e.clip_hi); }));
  }
  sink.dep_push(kStageCompute, kStageStore);
}

void ConvCodegen::emit_stores(ProgramSink& sink, const ConvBuffers& b, const Tile& tile) {
  const BlockedConv& g = m_plan.g;
  sink.dep_pop(kStageCompute, kStageStore);
  for (int o = 0; o < tile.to; ++o) {
    Store2D st;
    st.sram_index = tile.out_base + uint32_t(o * tile.th * tile.tw);
    st.memory_type = kMemOut;
    st.dst = b.out;
    st.dst_elem_offset =
        ((uint32_t(tile.nb) * g.ocb + tile.ob0 + o) * g.oh + tile.oy0) * g.ow + tile.ox0;
    st.x_size = uint32_t(tile.tw);
    st.y_size = uint32_t(tile.th);
    st.x_stride = uint32_t(g.ow);
    sink.store_2d(st);
  }
  sink.dep_push(kStageStore, kStageCompute);
}

void ConvCodegen::drain_tokens(ProgramSink& sink, uint64_t tiles, uint64_t steps) {
  // Nobody consumes the last T steps' g2l and the last T tiles' s2g tokens.
  const uint64_t vt = uint64_t(m_plan.s.threads);
  for (uint64_t i = 0; i < std::min(steps, vt); ++i) {
    sink.dep_pop(kStageCompute, kStageLoad);
  }
  for (uint64_t i = 0; i < std::min(tiles, vt); ++i) {
    sink.dep_pop(kStageStore, kStageCompute);
  }
}

}  // namespace vta::compiler
