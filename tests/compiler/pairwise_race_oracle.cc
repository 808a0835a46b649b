#include "pairwise_race_oracle.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <vector>

#include <fmt/format.h>

#include "vta/runtime_cpp.h"  // SyncedProgram (data only)
#include "vta/sim/contract/dependency_replay.h"
#include "vta/sim/isa.h"

namespace vta::compiler::oracle {

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

// The program's instructions, their SRAM footprints and each stage's instructions in order.
struct Footprints {
  std::vector<Insn> insns;
  std::vector<Access> access;                    // per instruction
  std::array<std::vector<size_t>, 4> per_stage;  // instruction indices of stages 1..3
};

// The SRAM entries a LOAD writes; a LOAD UOP also fills `uop_sram` from the program's uop image.
void load_footprint(const Insn& in, const SyncedProgram& program, const IsaCodec& codec,
                    std::vector<Uop>& uop_sram, Access& a) {
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
  if (in.memory_type != kMemUop) {
    return;
  }
  const int64_t image_base = int64_t(program.uop_phys) / 4;
  for (uint32_t k = 0; k < in.x_size && in.sram_base + k < uop_sram.size(); ++k) {
    const int64_t idx = int64_t(in.dram_base) - image_base + k;
    if (idx >= 0 && idx < int64_t(program.uops.size())) {
      uop_sram[in.sram_base + k] = codec.decode_uop(program.uops[size_t(idx)]);
    }
  }
}

// The accumulator entries a GEMM / ALU writes and the INP / WGT entries a GEMM reads, from the
// micro-ops currently in `uop_sram`.
void compute_footprint(const Insn& in, const std::vector<Uop>& uop_sram, Access& a) {
  // uop_end <= uop_bgn is an empty loop (N = 0), as on every backend.
  const size_t bgn = std::min<size_t>(in.uop_bgn, uop_sram.size());
  const size_t end = std::max(bgn, std::min<size_t>(in.uop_end, uop_sram.size()));
  const std::vector<Uop> uops(uop_sram.begin() + static_cast<std::ptrdiff_t>(bgn),
                              uop_sram.begin() + static_cast<std::ptrdiff_t>(end));
  a.acc_w = span(uops, &Uop::dst_idx, in.iter_out, in.dst_factor_out, in.iter_in, in.dst_factor_in);
  if (in.opcode == kOpGemm && !in.reset_reg) {
    a.inp_r =
        span(uops, &Uop::src_idx, in.iter_out, in.src_factor_out, in.iter_in, in.src_factor_in);
    a.wgt_r =
        span(uops, &Uop::wgt_idx, in.iter_out, in.wgt_factor_out, in.iter_in, in.wgt_factor_in);
  }
}

// Decodes the program and computes every footprint, following the uop SRAM through the LOAD
// UOPs in program order.
Footprints footprints_of(const SyncedProgram& program, const HwConfig& cfg) {
  const IsaCodec codec(cfg);
  Footprints f;
  f.insns.reserve(program.insns.size());
  for (const auto& w : program.insns) {
    f.insns.push_back(codec.decode(w));
  }
  std::vector<Uop> uop_sram(cfg.uop_buff_depth);
  f.access.resize(f.insns.size());
  for (size_t i = 0; i < f.insns.size(); ++i) {
    const Insn& in = f.insns[i];
    const Stage s = in.stage();
    if (s == kStageNone) {
      continue;
    }
    f.per_stage[s].push_back(i);
    if (in.opcode == kOpLoad && in.x_size > 0) {
      load_footprint(in, program, codec, uop_sram, f.access[i]);
    } else if (in.opcode == kOpStore && in.x_size > 0) {
      f.access[i].acc_r = {in.sram_base, in.sram_base + int64_t(in.x_size) * in.y_size - 1};
    } else if (in.opcode == kOpGemm || in.opcode == kOpAlu) {
      compute_footprint(in, uop_sram, f.access[i]);
    }
  }
  return f;
}

// The order the dependency tokens impose on the instructions of the three stages.
struct TokenOrder {
  std::vector<Clock> clock;       // per instruction: vector clock when it issues
  std::vector<int64_t> position;  // per instruction: index within its stage (-1: never issued)
  size_t leftover_tokens = 0;     // tokens still queued at the end
  std::string deadlock;           // the first stage that cannot proceed, if any

  // True if a and b (on different stages) are ordered by tokens one way or the other.
  bool ordered(const std::vector<Insn>& insns, size_t a, size_t b) const {
    const int sa = insns[a].stage(), sb = insns[b].stage();
    return clock[b][sa] >= position[a] || clock[a][sb] >= position[b];
  }
};

// Vector clocks over the contract's replay (unbounded queues): the replay gives the start order
// and, for every token popped, the instruction that pushed it; each instruction's clock joins its
// stage's clock and its pushers' clocks.
TokenOrder replay_tokens(const std::vector<Insn>& insns) {
  const DependencyReplay replay = replay_dependencies(insns, UINT64_MAX);
  TokenOrder order;
  order.clock.assign(insns.size(), Clock{-1, -1, -1, -1});
  order.position.assign(insns.size(), -1);
  std::array<Clock, 4> stage_clock;
  stage_clock.fill(Clock{-1, -1, -1, -1});
  std::array<int64_t, 4> next_position{};
  for (const uint32_t i : replay.order) {
    const int s = insns[i].stage();
    Clock c = stage_clock[s];
    for (const int64_t pusher : replay.popped_from[i]) {
      if (pusher < 0) {
        continue;
      }
      const Clock& t = order.clock[static_cast<size_t>(pusher)];
      for (size_t k = 0; k < 4; ++k) {
        c[k] = std::max(c[k], t[k]);
      }
    }
    c[s] = next_position[s]++;
    order.clock[i] = c;
    order.position[i] = c[s];
    stage_clock[s] = c;
  }
  for (int s = kStageLoad; s <= kStageStore; ++s) {
    if (replay.stuck[s] && order.deadlock.empty()) {
      const uint32_t i = replay.stuck[s]->insn;
      order.deadlock = fmt::format("deadlock: stage {} stops at instruction {} ({})", s, i,
                                   disassemble(insns[i]));
    }
  }
  for (const uint64_t n : replay.left) {
    order.leftover_tokens += n;
  }
  return order;
}

// Counts the overlapping (writer, reader) pairs of two stages and reports those the tokens do
// not order.
void check_races(const Footprints& f, const TokenOrder& order, Stage writer_stage,
                 Interval Access::*w, Stage reader_stage, Interval Access::*r, const char* what,
                 ProgramCheck& res) {
  for (size_t a : f.per_stage[writer_stage]) {
    if ((f.access[a].*w).empty()) {
      continue;
    }
    for (size_t b : f.per_stage[reader_stage]) {
      if (!(f.access[a].*w).overlaps(f.access[b].*r)) {
        continue;
      }
      ++res.checked_pairs;
      if (order.ordered(f.insns, a, b)) {
        continue;
      }
      if (res.races++ == 0) {
        res.first_problem = fmt::format(
            "race on {}: instruction {} ({}) and instruction {} ({}) "
            "are not ordered by dependency tokens",
            what, a, disassemble(f.insns[a]), b, disassemble(f.insns[b]));
      }
    }
  }
}

// Compares every instruction with the first FINISH of the compute stage, one at a time.
void check_finish(const Footprints& f, const TokenOrder& order, ProgramCheck& res) {
  int64_t finish = -1;
  for (size_t i : f.per_stage[kStageCompute]) {
    if (f.insns[i].opcode == kOpFinish) {
      finish = int64_t(i);
      break;
    }
  }
  if (finish < 0) {
    return;
  }
  const Clock& at_finish = order.clock[size_t(finish)];
  for (size_t i = 0; i < f.insns.size(); ++i) {
    const Stage s = f.insns[i].stage();
    if (s == kStageNone || at_finish[s] >= order.position[i]) {
      continue;
    }
    if (res.unordered_at_finish++ == 0 && res.first_problem.empty() && res.leftover_tokens == 0) {
      res.first_problem = fmt::format(
          "instruction {} ({}) is not ordered before FINISH (instruction {}) by dependency "
          "tokens, so FINISH may retire before it runs",
          i, disassemble(f.insns[i]), finish);
    }
  }
}

}  // namespace

ProgramCheck pairwise_check_program(const SyncedProgram& program, const HwConfig& cfg) {
  const Footprints f = footprints_of(program, cfg);
  const TokenOrder order = replay_tokens(f.insns);
  ProgramCheck res;
  res.insns = program.insns.size();
  res.leftover_tokens = order.leftover_tokens;
  res.first_problem = order.deadlock;
  if (!res.first_problem.empty()) {
    return res;
  }
  check_races(f, order, kStageLoad, &Access::inp_w, kStageCompute, &Access::inp_r,
              "the input buffer", res);
  check_races(f, order, kStageLoad, &Access::wgt_w, kStageCompute, &Access::wgt_r,
              "the weight buffer", res);
  check_races(f, order, kStageCompute, &Access::acc_w, kStageStore, &Access::acc_r,
              "the output buffer", res);
  check_finish(f, order, res);
  return res;
}

SyncedProgram stream_program(const HwConfig& cfg, const Dram& dram, uint32_t insn_phys,
                             uint32_t count) {
  SyncedProgram p;
  const uint8_t* words = dram.checked_ptr(insn_phys, uint64_t{count} * kInsnBytes);
  if (words == nullptr) {
    return p;
  }
  const IsaCodec codec(cfg);
  uint64_t lo = UINT64_MAX, hi = 0;
  for (uint32_t k = 0; k < count; ++k) {
    p.insns.push_back(IsaCodec::load_words(words + uint64_t{k} * kInsnBytes));
    const Insn in = codec.decode(p.insns.back());
    if (in.opcode == kOpLoad && in.memory_type == kMemUop && in.x_size > 0) {
      lo = std::min<uint64_t>(lo, in.dram_base);
      hi = std::max<uint64_t>(hi, uint64_t{in.dram_base} + in.x_size);
    }
  }
  if (lo < hi && hi - lo <= (64u << 20) / kUopBytes) {
    const uint8_t* u = dram.checked_ptr(lo * kUopBytes, (hi - lo) * kUopBytes);
    if (u != nullptr) {
      p.uop_phys = static_cast<uint32_t>(lo * kUopBytes);
      p.uops.resize(hi - lo);
      std::memcpy(p.uops.data(), u, (hi - lo) * kUopBytes);
    }
  }
  return p;
}

}  // namespace vta::compiler::oracle
