#include "vta/compiler/codegen/micro_kernel.h"

#include <array>
#include <limits>

#include <fmt/format.h>

#include "vta/sim/error.h"

namespace vta::compiler {

namespace {

constexpr uint32_t kMaxLoopExtent = (1u << 14) - 1;  // iter_out / iter_in are 14-bit fields

// The six dimensions of a step's loop nest and how each moves the three SRAM indices.
enum Dim { kDimO, kDimY, kDimX, kDimI, kDimKh, kDimKw, kNumDims, kDimNone = kNumDims };
const char* const kDimNames[] = {"oc", "y", "x", "ic", "kh", "kw"};

struct DimInfo {
  uint32_t extent;
  uint32_t dst, src, wgt;
};

// dst(o,y,x) = o*th*tw + y*tw + x; src(i,y,x,kh,kw) = i*ih*iw + (y*sh/rs+kh)*iw + x*sw + kw
// (rs: the window's row step, so a window of only the used rows advances one row per y);
// wgt(o,i,kh,kw) = ((o*ti + i)*KH + kh)*KW + kw.
std::array<DimInfo, kNumDims> dim_table(const TilePlan& plan, const TileShape& t) {
  const auto& p = plan.g.p;
  const uint32_t kk = uint32_t(p.kh) * p.kw;
  std::array<DimInfo, kNumDims> d{};
  d[kDimO] = {uint32_t(t.to), uint32_t(t.th * t.tw), 0, uint32_t(t.ti) * kk};
  d[kDimY] = {uint32_t(t.th), uint32_t(t.tw), uint32_t(p.stride_h / t.row_step * t.iw), 0};
  d[kDimX] = {uint32_t(t.tw), 1, uint32_t(p.stride_w), 0};
  d[kDimI] = {uint32_t(t.ti), 0, uint32_t(t.ih * t.iw), kk};
  d[kDimKh] = {uint32_t(p.kh), 0, uint32_t(t.iw), uint32_t(p.kw)};
  d[kDimKw] = {uint32_t(p.kw), 0, 1, 1};
  return d;
}

// True if no dst repeats within distance 2 along `dst` (the runtime's check, or ours over the
// unrolled loop nest).
bool no_close_repeat(const std::vector<uint32_t>& dst) {
  for (size_t i = 1; i < dst.size(); ++i) {
    if (dst[i] == dst[i - 1]) {
      return false;
    }
    if (i >= 2 && dst[i] == dst[i - 2]) {
      return false;
    }
  }
  return true;
}

std::vector<uint32_t> unrolled_dst(const MicroKernel& k, size_t limit) {
  std::vector<uint32_t> seq;
  const UopLoop& lo = k.loops[0];
  const UopLoop& li = k.loops[1];
  for (uint32_t a = 0; a < lo.extent; ++a) {
    for (uint32_t b = 0; b < li.extent; ++b) {
      for (const Uop& u : k.uops) {
        seq.push_back(u.dst_idx + a * lo.dst_factor + b * li.dst_factor);
        if (seq.size() >= limit) {
          return seq;
        }
      }
    }
  }
  return seq;
}

MicroKernel two_loop_elementwise(const TileShape& t, uint32_t acc_base, uint32_t src_base,
                                 uint32_t src_factor_o, uint32_t src_factor_p) {
  const uint32_t plane = uint32_t(t.th * t.tw);
  if (plane > kMaxLoopExtent || uint32_t(t.to) > kMaxLoopExtent) {
    throw Error(fmt::format("tile of {} positions exceeds the 14-bit ALU loop extent", plane));
  }
  MicroKernel k;
  k.loops = {UopLoop{uint32_t(t.to), plane, src_factor_o, 0}, UopLoop{plane, 1, src_factor_p, 0}};
  k.uops = {Uop{acc_base, src_base, 0}};
  return k;
}

}  // namespace

bool MicroKernel::satisfies_dep_rule() const {
  std::vector<uint32_t> dst;
  for (const Uop& u : uops) {
    dst.push_back(u.dst_idx);
  }
  return no_close_repeat(dst);
}

uint64_t MicroKernel::executions() const {
  uint64_t n = uops.size();
  for (const UopLoop& l : loops) {
    n *= l.extent;
  }
  return n;
}

namespace {

using DimTable = std::array<DimInfo, kNumDims>;

// Micro-op nest order: reduction dims outside, output dims inside, so consecutive micro-ops
// write different accumulators whenever the tile has at least three of them.
constexpr Dim kUopOrder[] = {kDimI, kDimKh, kDimKw, kDimO, kDimY, kDimX};

// (outer, inner) hardware-loop candidates, kDimNone for an unused loop: the natural (row,
// column) pair first.
std::vector<std::pair<int, int>> loop_candidates() {
  std::vector<std::pair<int, int>> candidates = {{kDimY, kDimX}};
  for (int a = 0; a <= kNumDims; ++a) {
    for (int b = 0; b <= kNumDims; ++b) {
      if ((a != b || a == kDimNone) && !(a == kDimY && b == kDimX)) {
        candidates.push_back({a, b});
      }
    }
  }
  return candidates;
}

// The dims that are unrolled into micro-ops when `outer` and `inner` are the loops.
std::vector<Dim> unrolled_dims(int outer, int inner) {
  std::vector<Dim> rest;
  for (Dim dim : kUopOrder) {
    if (dim != outer && dim != inner) {
      rest.push_back(dim);
    }
  }
  return rest;
}

uint64_t unrolled_uops(const DimTable& d, int outer, int inner) {
  uint64_t n = 1;
  for (Dim dim : unrolled_dims(outer, inner)) {
    n *= d[dim].extent;
  }
  return n;
}

// The kernel with `outer` and `inner` as hardware loops and the other dims unrolled.
MicroKernel nest_kernel(const DimTable& d, int outer, int inner, const Uop& base) {
  MicroKernel k;
  k.gemm = true;
  auto loop_of = [&](int dim) {
    if (dim == kDimNone) {
      return UopLoop{};
    }
    return UopLoop{d[dim].extent, d[dim].dst, d[dim].src, d[dim].wgt};
  };
  k.loops = {loop_of(outer), loop_of(inner)};
  const std::vector<Dim> rest = unrolled_dims(outer, inner);
  const uint64_t n = unrolled_uops(d, outer, inner);
  std::vector<uint32_t> idx(rest.size(), 0);  // odometer over the unrolled dims
  k.uops.reserve(n);
  for (uint64_t u = 0; u < n; ++u) {
    Uop op = base;
    for (size_t r = 0; r < rest.size(); ++r) {
      op.dst_idx += idx[r] * d[rest[r]].dst;
      op.src_idx += idx[r] * d[rest[r]].src;
      op.wgt_idx += idx[r] * d[rest[r]].wgt;
    }
    k.uops.push_back(op);
    for (size_t r = rest.size(); r-- > 0;) {
      if (++idx[r] < d[rest[r]].extent) {
        break;
      }
      idx[r] = 0;
    }
  }
  return k;
}

// "gemm 63 uops, loops oc(8) x(14)"
std::string nest_description(const MicroKernel& k, int outer, int inner) {
  return fmt::format("gemm {} uops, loops {}({}) {}({})", k.uops.size(),
                     outer == kDimNone ? "-" : kDimNames[outer], k.loops[0].extent,
                     inner == kDimNone ? "-" : kDimNames[inner], k.loops[1].extent);
}

bool fits_loop_field(const DimTable& d, int dim) {
  return dim == kDimNone || d[dim].extent <= kMaxLoopExtent;
}

}  // namespace

MicroKernel make_gemm_kernel(const TilePlan& plan, const TileShape& t, uint32_t inp_base,
                             uint32_t wgt_base, uint32_t acc_base, uint32_t uop_limit, int only_ic,
                             KernelRows rows) {
  DimTable d = dim_table(plan, t);
  if (rows.count > 0) {
    // Some kernel rows of the step: same strides, the first row's offsets.
    inp_base += uint32_t(rows.first) * d[kDimKh].src;
    wgt_base += uint32_t(rows.first) * d[kDimKh].wgt;
    d[kDimKh].extent = uint32_t(rows.count);
  }
  if (only_ic >= 0) {
    // One input block of the step: same strides, that block's offsets.
    inp_base += uint32_t(only_ic) * d[kDimI].src;
    wgt_base += uint32_t(only_ic) * d[kDimI].wgt;
    d[kDimI].extent = 1;
  }
  MicroKernel best;
  int best_rank = std::numeric_limits<int>::max();
  uint64_t best_uops = std::numeric_limits<uint64_t>::max();
  uint64_t smallest_seen = std::numeric_limits<uint64_t>::max();
  for (auto [outer, inner] : loop_candidates()) {
    if (!fits_loop_field(d, outer) || !fits_loop_field(d, inner)) {
      continue;
    }
    const uint64_t n = unrolled_uops(d, outer, inner);
    smallest_seen = std::min(smallest_seen, n);
    if (n > uop_limit || (best_rank == 0 && n >= best_uops)) {
      continue;
    }
    MicroKernel k = nest_kernel(d, outer, inner, Uop{acc_base, inp_base, wgt_base});
    if (!k.satisfies_dep_rule()) {
      continue;
    }
    // Prefer nests whose unrolled sequence also avoids close repeats across loop iterations.
    const int rank = no_close_repeat(unrolled_dst(k, 4096)) ? 0 : 1;
    if (std::make_pair(rank, n) < std::make_pair(best_rank, best_uops)) {
      k.what = nest_description(k, outer, inner);
      best = std::move(k);
      best_rank = rank;
      best_uops = n;
    }
  }
  if (best.uops.empty()) {
    throw Error(fmt::format(
        "micro-op kernel of the tile (oc {} x {} rows x {} cols, ic {} x {}x{} kernel) needs at "
        "least {} micro-ops but the uop buffer allows {} (LOG_UOP_BUFF_SIZE); use a smaller tile",
        t.to, t.th, t.tw, t.ti, plan.g.p.kh, plan.g.p.kw, smallest_seen, uop_limit));
  }
  return best;
}

std::vector<MicroKernel> make_gemm_step(const TilePlan& plan, const TileShape& t, uint32_t inp_base,
                                        uint32_t wgt_base, uint32_t acc_base, uint32_t uop_limit,
                                        KernelRows rows) {
  try {
    return {make_gemm_kernel(plan, t, inp_base, wgt_base, acc_base, uop_limit, -1, rows)};
  } catch (const Error&) {
    // A tile with one or two accumulators and three reduction dimensions cannot keep the
    // dependence rule in one kernel: issue one GEMM per input-channel block instead, each
    // with the kernel taps in the hardware loops.
    if (t.ti == 1 || uint64_t(t.to) * t.th * t.tw > 2) {
      throw;
    }
    std::vector<MicroKernel> out;
    for (int i = 0; i < t.ti; ++i) {
      out.push_back(make_gemm_kernel(plan, t, inp_base, wgt_base, acc_base, uop_limit, i, rows));
    }
    return out;
  }
}

MicroKernel make_reset_kernel(const TileShape& t, uint32_t acc_base) {
  MicroKernel k = two_loop_elementwise(t, acc_base, 0, 0, 0);
  k.gemm = true;
  k.reset = true;
  k.what = "gemm reset";
  return k;
}

MicroKernel make_alu_imm_kernel(const TileShape& t, uint32_t acc_base, uint32_t alu_opcode,
                                int32_t imm) {
  const uint32_t plane = uint32_t(t.th * t.tw);
  MicroKernel k = two_loop_elementwise(t, acc_base, acc_base, plane, 1);
  k.gemm = false;
  k.alu_opcode = alu_opcode;
  k.use_imm = true;
  k.imm = imm;
  k.what = fmt::format("alu {} imm {}", alu_op_name(alu_opcode), imm);
  return k;
}

MicroKernel make_channel_vector_kernel(const TileShape& t, uint32_t acc_base, uint32_t vec_base,
                                       uint32_t alu_opcode) {
  MicroKernel k = two_loop_elementwise(t, acc_base, vec_base, 1, 0);
  k.gemm = false;
  k.alu_opcode = alu_opcode;
  k.what = alu_opcode == kAluAdd ? "alu ADD bias"
                                 : fmt::format("alu {} per channel", alu_op_name(alu_opcode));
  return k;
}

MicroKernel make_residual_kernel(const TileShape& t, uint32_t acc_base, uint32_t res_base) {
  const uint32_t plane = uint32_t(t.th * t.tw);
  MicroKernel k = two_loop_elementwise(t, acc_base, res_base, plane, 1);
  k.gemm = false;
  k.alu_opcode = kAluAdd;
  k.what = "alu ADD residual";
  return k;
}

}  // namespace vta::compiler
