#include "vta/compiler/program_check.h"

#include <algorithm>
#include <array>
#include <deque>
#include <vector>

#include <fmt/format.h>

#include "vta/runtime_cpp.h"  // SyncedProgram (data only)
#include "vta/sim/isa.h"
#include "vta/sim/token_queues.h"

namespace vta::compiler {

namespace {

using Clock = std::array<int64_t, 4>;  // per stage (1..3): last position known to precede

struct Interval {
  int64_t lo = 0, hi = -1;  // inclusive; empty if hi < lo
  bool empty() const { return hi < lo; }
  bool overlaps(const Interval& o) const {
    return !empty() && !o.empty() && lo <= o.hi && o.lo <= hi;
  }
};

// SRAM footprint of one instruction.
struct Access {
  Interval inp_w, wgt_w, acc_w;  // writes (loads into INP/WGT; acc/out writes)
  Interval inp_r, wgt_r, acc_r;  // reads (GEMM operands; STORE source)
};

// Range of uop.field + it_out*f_out + it_in*f_in over the kernel (factors are non-negative).
Interval span(const std::vector<Uop>& uops, uint32_t Uop::*field, uint32_t iter_out, uint32_t f_out,
              uint32_t iter_in, uint32_t f_in) {
  if (uops.empty() || iter_out == 0 || iter_in == 0) {
    return {};
  }
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  for (const Uop& u : uops) {
    lo = std::min<int64_t>(lo, u.*field);
    hi = std::max<int64_t>(hi, u.*field);
  }
  hi += int64_t(iter_out - 1) * f_out + int64_t(iter_in - 1) * f_in;
  return {lo, hi};
}

}  // namespace

ProgramCheck check_program(const SyncedProgram& program, const HwConfig& cfg) {
  const IsaCodec codec(cfg);
  ProgramCheck res;
  res.insns = program.insns.size();
  std::vector<Insn> insns;
  insns.reserve(program.insns.size());
  for (const auto& w : program.insns) {
    insns.push_back(codec.decode(w));
  }

  // Footprints, following the uop SRAM through the LOAD UOPs in compute order.
  std::vector<Uop> uop_sram(cfg.uop_buff_depth);
  const int64_t image_base = int64_t(program.uop_phys) / 4;
  std::vector<Access> acc(insns.size());
  std::array<std::vector<size_t>, 4> per_stage;
  for (size_t i = 0; i < insns.size(); ++i) {
    const Insn& in = insns[i];
    const Stage s = in.stage();
    if (s == kStageNone) {
      continue;
    }
    per_stage[s].push_back(i);
    Access& a = acc[i];
    if (in.opcode == kOpLoad && in.x_size > 0) {
      const int64_t n =
          int64_t(in.y_pad_0 + in.y_size + in.y_pad_1) * (in.x_pad_0 + in.x_size + in.x_pad_1);
      const Interval w{in.sram_base, in.sram_base + n - 1};
      if (in.memory_type == kMemInp) {
        a.inp_w = w;
      }
      if (in.memory_type == kMemWgt) {
        a.wgt_w = w;
      }
      if (in.memory_type == kMemAcc || in.memory_type == kMemAcc8) {
        a.acc_w = w;
      }
      if (in.memory_type == kMemUop) {
        for (uint32_t k = 0; k < in.x_size && in.sram_base + k < uop_sram.size(); ++k) {
          const int64_t idx = int64_t(in.dram_base) - image_base + k;
          if (idx >= 0 && idx < int64_t(program.uops.size())) {
            uop_sram[in.sram_base + k] = codec.decode_uop(program.uops[size_t(idx)]);
          }
        }
      }
    } else if (in.opcode == kOpStore && in.x_size > 0) {
      a.acc_r = {in.sram_base, in.sram_base + int64_t(in.x_size) * in.y_size - 1};
    } else if (in.opcode == kOpGemm || in.opcode == kOpAlu) {
      const std::vector<Uop> uops(uop_sram.begin() + std::min<size_t>(in.uop_bgn, uop_sram.size()),
                                  uop_sram.begin() + std::min<size_t>(in.uop_end, uop_sram.size()));
      a.acc_w =
          span(uops, &Uop::dst_idx, in.iter_out, in.dst_factor_out, in.iter_in, in.dst_factor_in);
      if (in.opcode == kOpGemm && !in.reset_reg) {
        a.inp_r =
            span(uops, &Uop::src_idx, in.iter_out, in.src_factor_out, in.iter_in, in.src_factor_in);
        a.wgt_r =
            span(uops, &Uop::wgt_idx, in.iter_out, in.wgt_factor_out, in.iter_in, in.wgt_factor_in);
      }
    }
  }

  // Replay the tokens: each token carries the clock of the instruction that pushed it.
  std::vector<Clock> clock(insns.size(), Clock{-1, -1, -1, -1});
  std::vector<int64_t> position(insns.size(), -1);  // index within its stage
  std::array<std::deque<Clock>, 4> queues;
  std::array<size_t, 4> pos{};
  std::array<Clock, 4> stage_clock;
  stage_clock.fill(Clock{-1, -1, -1, -1});
  for (bool progress = true; progress;) {
    progress = false;
    for (int s = kStageLoad; s <= kStageStore; ++s) {
      while (pos[s] < per_stage[s].size()) {
        const size_t i = per_stage[s][pos[s]];
        const Insn& in = insns[i];
        const int pp = in.pop_prev_dep ? kPopPrev[s] : -1;
        const int pn = in.pop_next_dep ? kPopNext[s] : -1;
        if ((pp >= 0 && queues[pp].empty()) || (pn >= 0 && queues[pn].empty())) {
          break;
        }
        Clock c = stage_clock[s];
        for (int q : {pp, pn}) {
          if (q < 0) {
            continue;
          }
          const Clock& t = queues[q].front();
          for (int k = 0; k < 4; ++k) {
            c[k] = std::max(c[k], t[k]);
          }
          queues[q].pop_front();
        }
        c[s] = int64_t(pos[s]);
        clock[i] = c;
        position[i] = int64_t(pos[s]);
        stage_clock[s] = c;
        if (in.push_prev_dep && kPushPrev[s] >= 0) {
          queues[kPushPrev[s]].push_back(c);
        }
        if (in.push_next_dep && kPushNext[s] >= 0) {
          queues[kPushNext[s]].push_back(c);
        }
        ++pos[s];
        progress = true;
      }
    }
  }
  for (int s = kStageLoad; s <= kStageStore; ++s) {
    if (pos[s] < per_stage[s].size() && res.first_problem.empty()) {
      res.first_problem =
          fmt::format("deadlock: stage {} stops at instruction {} ({})", s, per_stage[s][pos[s]],
                      disassemble(insns[per_stage[s][pos[s]]]));
    }
  }
  for (const auto& q : queues) {
    res.leftover_tokens += q.size();
  }
  if (!res.first_problem.empty()) {
    return res;
  }

  auto ordered = [&](size_t a, size_t b) {
    const int sa = insns[a].stage(), sb = insns[b].stage();
    return clock[b][sa] >= position[a] || clock[a][sb] >= position[b];
  };
  auto check = [&](Stage writer_stage, Interval Access::*w, Stage reader_stage, Interval Access::*r,
                   const char* what) {
    for (size_t a : per_stage[writer_stage]) {
      if ((acc[a].*w).empty()) {
        continue;
      }
      for (size_t b : per_stage[reader_stage]) {
        if (!(acc[a].*w).overlaps(acc[b].*r)) {
          continue;
        }
        ++res.checked_pairs;
        if (ordered(a, b)) {
          continue;
        }
        if (res.races++ == 0) {
          res.first_problem = fmt::format(
              "race on {}: instruction {} ({}) and instruction {} ({}) "
              "are not ordered by dependency tokens",
              what, a, disassemble(insns[a]), b, disassemble(insns[b]));
        }
      }
    }
  };
  check(kStageLoad, &Access::inp_w, kStageCompute, &Access::inp_r, "the input buffer");
  check(kStageLoad, &Access::wgt_w, kStageCompute, &Access::wgt_r, "the weight buffer");
  check(kStageCompute, &Access::acc_w, kStageStore, &Access::acc_r, "the output buffer");
  return res;
}

}  // namespace vta::compiler
