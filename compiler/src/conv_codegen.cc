#include "vta/compiler/conv_codegen.h"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "vta/runtime.h"
#include "vta/sim/error.h"
#include "vta/sim/isa.h"

namespace vta::compiler {

namespace {

// Queue ids of the runtime (upstream numbering).
constexpr int kLoadQ = 1, kComputeQ = 2, kStoreQ = 3;

// The kernel being recorded: finit closures get it from here rather than from the signature
// bytes, so the recording does not depend on how the runtime forwards the signature.
thread_local const MicroKernel* g_recording = nullptr;

int record_kernel(void*) {
  const MicroKernel& k = *g_recording;
  for (const UopLoop& l : k.loops)
    VTAUopLoopBegin(l.extent, l.dst_factor, l.src_factor, l.wgt_factor);
  for (const Uop& u : k.uops)
    VTAUopPush(k.gemm ? 0 : 1, k.reset ? 1 : 0, u.dst_idx, u.src_idx, u.wgt_idx, k.alu_opcode,
               k.use_imm ? 1 : 0, k.imm);
  for (size_t i = 0; i < k.loops.size(); ++i)
    VTAUopLoopEnd();
  return 0;
}

// The part of [start, start + len) inside [0, limit): returns (before, size, after) padding.
struct Clip {
  int pad_before = 0, begin = 0, size = 0, pad_after = 0;
};
Clip clip_window(int start, int len, int limit) {
  Clip c;
  int lo = std::max(start, 0), hi = std::min(start + len, limit);
  if (hi <= lo)
    return Clip{0, 0, 0, 0};  // entirely in the padding
  c.pad_before = lo - start;
  c.begin = lo;
  c.size = hi - lo;
  c.pad_after = start + len - hi;
  return c;
}

}  // namespace

ConvCodegen::ConvCodegen(const TilePlan& plan, const HwConfig& cfg) : m_plan(plan), m_cfg(cfg) {
  const auto& p = m_plan.g.p;
  // Windows that do not touch the input at all (padding wider than the kernel) load zeros.
  for (int ht = 0; ht < m_plan.h_tiles; ++ht)
    for (int wt = 0; wt < m_plan.w_tiles; ++wt) {
      int oy0 = ht * m_plan.s.tile_h, ox0 = wt * m_plan.s.tile_w;
      TileShape t = m_plan.shape(std::min(m_plan.s.tile_h, m_plan.g.oh - oy0),
                                 std::min(m_plan.s.tile_w, m_plan.g.ow - ox0), 1, 1);
      Clip cy = clip_window(oy0 * p.stride_h - p.pad_top, t.ih, p.h);
      Clip cx = clip_window(ox0 * p.stride_w - p.pad_left, t.iw, p.w);
      if (cy.size == 0 || cx.size == 0)
        m_zero_elems = std::max(m_zero_elems, size_t(t.ih) * t.iw);
    }
}

size_t ConvCodegen::kernel_uops() const {
  size_t n = 0;
  for (const auto& [key, k] : m_kernels)
    n += k->kernel.uops.size();
  return n;
}

ConvCodegen::KernelSlot& ConvCodegen::kernel(const std::string& key,
                                             const std::function<MicroKernel()>& build) {
  auto it = m_kernels.find(key);
  if (it != m_kernels.end())
    return *it->second;
  auto slot = std::make_unique<KernelSlot>();
  slot->kernel = build();
  auto& ref = *slot;
  m_kernels.emplace(key, std::move(slot));
  return ref;
}

void ConvCodegen::push_kernel(KernelSlot& k) {
  g_recording = &k.kernel;
  if (k.kernel.gemm)
    VTAPushGEMMOp(&k.handle, &record_kernel, nullptr, 0);
  else
    VTAPushALUOp(&k.handle, &record_kernel, nullptr, 0);
  g_recording = nullptr;
}

void ConvCodegen::emit(const ConvBuffers& b) {
  const TilePlan& P = m_plan;
  const BlockedConv& g = P.g;
  const Conv2dParams& p = g.p;
  const Epilogue& e = P.e;
  const int vt = P.s.threads;
  const uint32_t kk = uint32_t(p.kh) * p.kw;
  const uint32_t uop_limit = m_cfg.uop_buff_depth;
  VTACommandHandle cmd = VTATLSCommandHandle();

  // Weights resident in each input/weight slot, to skip reloading identical tiles.
  std::vector<int64_t> wgt_tag(size_t(vt), -1);
  uint64_t step = 0, tile = 0;

  for (int nb = 0; nb < g.nb; ++nb)
    for (int ot = 0; ot < P.oc_tiles; ++ot)
      for (int ht = 0; ht < P.h_tiles; ++ht)
        for (int wt = 0; wt < P.w_tiles; ++wt, ++tile) {
          const int ob0 = ot * P.s.tile_oc_blocks, oy0 = ht * P.s.tile_h, ox0 = wt * P.s.tile_w;
          const int to = std::min(P.s.tile_oc_blocks, g.ocb - ob0);
          const int th = std::min(P.s.tile_h, g.oh - oy0);
          const int tw = std::min(P.s.tile_w, g.ow - ox0);
          const uint32_t acc_slot = uint32_t(tile % vt);
          const uint32_t acc_base = acc_slot * P.acc_slot;
          const uint32_t out_base = acc_base + P.acc_out_off;
          const TileShape tshape = P.shape(th, tw, to, 1);
          const std::string tkey = fmt::format("{}x{}x{}@{}", to, th, tw, acc_slot);

          for (int ch = 0; ch < P.ic_chunks; ++ch, ++step) {
            const int ib0 = ch * P.s.tile_ic_blocks;
            const int ti = std::min(P.s.tile_ic_blocks, g.icb - ib0);
            const TileShape t = P.shape(th, tw, to, ti);
            const uint32_t io_slot = uint32_t(step % vt);
            const uint32_t inp_base = io_slot * P.inp_slot;
            const uint32_t wgt_base = io_slot * P.wgt_slot;

            // ---- load stage ----
            if (step >= uint64_t(vt))
              VTADepPop(cmd, kComputeQ, kLoadQ);
            const Clip cy = clip_window(oy0 * p.stride_h - p.pad_top, t.ih, p.h);
            const Clip cx = clip_window(ox0 * p.stride_w - p.pad_left, t.iw, p.w);
            for (int i = 0; i < ti; ++i) {
              const uint32_t sram = inp_base + uint32_t(i) * t.ih * t.iw;
              if (cy.size == 0 || cx.size == 0) {
                VTALoadBuffer2D(cmd, b.zeros, 0, t.iw, t.ih, t.iw, 0, 0, 0, 0, sram, kMemInp);
                continue;
              }
              const uint32_t elem =
                  ((uint32_t(nb) * g.icb + ib0 + i) * p.h + cy.begin) * p.w + cx.begin;
              VTALoadBuffer2D(cmd, b.inp, elem, cx.size, cy.size, p.w, cx.pad_before, cy.pad_before,
                              cx.pad_after, cy.pad_after, sram, kMemInp);
            }
            const int64_t tag = (int64_t(ot) * P.ic_chunks + ch);
            if (wgt_tag[io_slot] != tag) {
              wgt_tag[io_slot] = tag;
              VTALoadBuffer2D(cmd, b.wgt, (uint32_t(ob0) * g.icb + ib0) * kk, ti * kk, to,
                              g.icb * kk, 0, 0, 0, 0, wgt_base, kMemWgt);
            }
            VTADepPush(cmd, kLoadQ, kComputeQ);

            // ---- compute stage ----
            if (ch == 0) {
              if (tile >= uint64_t(vt))
                VTADepPop(cmd, kStoreQ, kComputeQ);
              push_kernel(
                  kernel("reset " + tkey, [&] { return make_reset_kernel(tshape, out_base); }));
              if (e.bias)
                VTALoadBuffer2D(cmd, b.bias, ob0, to, 1, to, 0, 0, 0, 0, acc_base + P.acc_bias_off,
                                kMemAcc);
              if (e.residual)
                for (int o = 0; o < to; ++o) {
                  const uint32_t elem =
                      ((uint32_t(nb) * g.ocb + ob0 + o) * g.oh + oy0) * g.ow + ox0;
                  VTALoadBuffer2D(cmd, b.residual, elem, tw, th, g.ow, 0, 0, 0, 0,
                                  acc_base + P.acc_res_off + uint32_t(o * th * tw), kMemAcc8);
                }
            }
            VTADepPop(cmd, kLoadQ, kComputeQ);
            const std::string gkey =
                fmt::format("gemm {}x{}x{}x{} inp{} acc{}", to, ti, th, tw, io_slot, acc_slot);
            auto it = m_steps.find(gkey);
            if (it == m_steps.end()) {
              std::vector<KernelSlot*> slots;
              auto kernels = make_gemm_step(P, t, inp_base, wgt_base, out_base, uop_limit);
              for (size_t i = 0; i < kernels.size(); ++i)
                slots.push_back(&kernel(fmt::format("{} part {}", gkey, i),
                                        [&] { return std::move(kernels[i]); }));
              it = m_steps.emplace(gkey, std::move(slots)).first;
            }
            for (KernelSlot* k : it->second)
              push_kernel(*k);
            VTADepPush(cmd, kComputeQ, kLoadQ);
            if (ch + 1 < P.ic_chunks)
              continue;

            // ---- epilogue on the compute stage ----
            if (e.bias)
              push_kernel(kernel("bias " + tkey, [&] {
                return make_bias_kernel(tshape, out_base, acc_base + P.acc_bias_off);
              }));
            if (e.shift)
              push_kernel(kernel(fmt::format("shr{} {}", e.shift, tkey), [&] {
                return make_alu_imm_kernel(tshape, out_base, kAluShr, e.shift);
              }));
            if (e.residual)
              push_kernel(kernel("residual " + tkey, [&] {
                return make_residual_kernel(tshape, out_base, acc_base + P.acc_res_off);
              }));
            if (auto lo = e.lower_bound())
              push_kernel(kernel(fmt::format("max{} {}", *lo, tkey), [&] {
                return make_alu_imm_kernel(tshape, out_base, kAluMax, *lo);
              }));
            if (e.clip_hi)
              push_kernel(kernel(fmt::format("min{} {}", *e.clip_hi, tkey), [&] {
                return make_alu_imm_kernel(tshape, out_base, kAluMin, *e.clip_hi);
              }));
            VTADepPush(cmd, kComputeQ, kStoreQ);

            // ---- store stage ----
            VTADepPop(cmd, kComputeQ, kStoreQ);
            for (int o = 0; o < to; ++o) {
              const uint32_t elem = ((uint32_t(nb) * g.ocb + ob0 + o) * g.oh + oy0) * g.ow + ox0;
              VTAStoreBuffer2D(cmd, out_base + uint32_t(o * th * tw), kMemOut, b.out, elem, tw, th,
                               g.ow);
            }
            VTADepPush(cmd, kStoreQ, kComputeQ);
          }
        }

  // Drain the tokens nobody consumed: the last T steps' g2l and the last T tiles' s2g.
  for (uint64_t i = 0; i < std::min<uint64_t>(step, vt); ++i)
    VTADepPop(cmd, kComputeQ, kLoadQ);
  for (uint64_t i = 0; i < std::min<uint64_t>(tile, vt); ++i)
    VTADepPop(cmd, kStoreQ, kComputeQ);
}

}  // namespace vta::compiler
