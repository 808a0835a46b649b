#include "vta/compiler/check/program_check.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <optional>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "vta/runtime_cpp.h"  // SyncedProgram (data only)
#include "vta/sim/contract/dependency_replay.h"
#include "vta/sim/isa.h"

#include "check/interval_counter.h"
#include "check/uop_range_index.h"

namespace vta::compiler {

namespace {

using Clock = std::array<int64_t, 4>;  // per stage (1..3): last position known to precede

// SRAM footprint of one instruction.
struct Access {
  Interval inp_w, wgt_w, acc_w;  // writes (loads into INP/WGT; acc/out writes)
  Interval inp_r, wgt_r, acc_r;  // reads (GEMM operands; STORE source)
};

// The program's micro-op words and the physical address of the first.
struct UopImage {
  const std::vector<uint32_t>& words;
  uint32_t phys = 0;
};

// Range of uop.field + it_out*f_out + it_in*f_in over the kernel (factors are non-negative),
// from the field's extremes over the kernel's micro-ops.
Interval span(const std::optional<UopExtremes>& e, size_t field, uint32_t iter_out, uint32_t f_out,
              uint32_t iter_in, uint32_t f_in) {
  if (!e || iter_out == 0 || iter_in == 0) {
    return {};
  }
  return {e->min[field],
          int64_t{e->max[field]} + int64_t(iter_out - 1) * f_out + int64_t(iter_in - 1) * f_in};
}

// The program's instructions, each stage's instructions in order and their SRAM footprints,
// indexed by position within the stage: the sweeps read them in that order, densely.
struct Footprints {
  std::vector<Insn> insns;
  std::array<std::vector<size_t>, 4> per_stage;  // instruction indices of stages 1..3
  std::vector<Interval> inp_w, wgt_w;            // load stage: LOAD INP / WGT writes
  std::vector<Interval> acc_w, inp_r, wgt_r;     // compute stage: acc writes, GEMM operands
  std::vector<Interval> acc_r;                   // store stage: STORE source
};

// The SRAM entries a LOAD writes; a LOAD UOP also fills `uop_sram` from the program's uop image.
void load_footprint(const Insn& in, const UopImage& image, const IsaCodec& codec,
                    UopRangeIndex& uop_sram, Access& a) {
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
  const int64_t image_base = int64_t(image.phys) / 4;
  for (uint32_t k = 0; k < in.x_size && in.sram_base + k < uop_sram.depth(); ++k) {
    const int64_t idx = int64_t(in.dram_base) - image_base + k;
    if (idx >= 0 && idx < int64_t(image.words.size())) {
      uop_sram.set(in.sram_base + k, codec.decode_uop(image.words[size_t(idx)]));
    }
  }
}

// The accumulator entries a GEMM / ALU writes and the INP / WGT entries a GEMM reads, from the
// micro-ops currently in `uop_sram`.
void compute_footprint(const Insn& in, const UopRangeIndex& uop_sram, Access& a) {
  // uop_end <= uop_bgn is an empty loop (N = 0), as on every backend.
  const std::optional<UopExtremes> e = uop_sram.extremes(in.uop_bgn, in.uop_end);
  a.acc_w = span(e, 0, in.iter_out, in.dst_factor_out, in.iter_in, in.dst_factor_in);
  if (in.opcode == kOpGemm && !in.reset_reg) {
    a.inp_r = span(e, 1, in.iter_out, in.src_factor_out, in.iter_in, in.src_factor_in);
    a.wgt_r = span(e, 2, in.iter_out, in.wgt_factor_out, in.iter_in, in.wgt_factor_in);
  }
}

// Computes every footprint, following the uop SRAM through the LOAD UOPs in program order.
Footprints footprints_of(std::vector<Insn> insns, const UopImage& image, const HwConfig& cfg) {
  const IsaCodec codec(cfg);
  Footprints f;
  f.insns = std::move(insns);
  UopRangeIndex uop_sram(cfg.uop_buff_depth);
  for (size_t i = 0; i < f.insns.size(); ++i) {
    const Insn& in = f.insns[i];
    const Stage s = in.stage();
    if (s == kStageNone) {
      continue;
    }
    f.per_stage[s].push_back(i);
    Access a;
    if (in.opcode == kOpLoad && in.x_size > 0) {
      load_footprint(in, image, codec, uop_sram, a);
    } else if (in.opcode == kOpStore && in.x_size > 0) {
      a.acc_r = {in.sram_base, in.sram_base + int64_t(in.x_size) * in.y_size - 1};
    } else if (in.opcode == kOpGemm || in.opcode == kOpAlu) {
      compute_footprint(in, uop_sram, a);
    }
    if (s == kStageLoad) {
      f.inp_w.push_back(a.inp_w);
      f.wgt_w.push_back(a.wgt_w);
    } else if (s == kStageCompute) {
      f.acc_w.push_back(a.acc_w);
      f.inp_r.push_back(a.inp_r);
      f.wgt_r.push_back(a.wgt_r);
    } else {
      f.acc_r.push_back(a.acc_r);
    }
  }
  return f;
}

// The order the dependency tokens impose on the instructions of the three stages.
struct TokenOrder {
  std::array<std::vector<Clock>, 4> clock;  // per stage position: vector clock when it issues
  std::vector<int64_t> position;  // per instruction: index within its stage (-1: never issued)
  size_t leftover_tokens = 0;     // tokens still queued at the end
  std::string deadlock;           // the first stage that cannot proceed, if any
};

// Vector clocks over the contract's replay (unbounded queues): the replay gives the start order
// and, for every token popped, the instruction that pushed it; each instruction's clock joins its
// stage's clock and its pushers' clocks.
TokenOrder replay_tokens(const std::vector<Insn>& insns) {
  const DependencyReplay replay = replay_dependencies(insns, UINT64_MAX);
  TokenOrder order;
  order.position.assign(insns.size(), -1);
  for (const uint32_t i : replay.order) {
    const Stage s = insns[i].stage();
    std::vector<Clock>& own = order.clock[s];
    Clock c = own.empty() ? Clock{-1, -1, -1, -1} : own.back();
    for (const int64_t pusher : replay.popped_from[i]) {
      if (pusher < 0) {
        continue;
      }
      const size_t p = static_cast<size_t>(pusher);
      const Clock& t = order.clock[insns[p].stage()][static_cast<size_t>(order.position[p])];
      for (size_t k = 0; k < 4; ++k) {
        c[k] = std::max(c[k], t[k]);
      }
    }
    c[s] = static_cast<int64_t>(own.size());
    order.position[i] = c[s];
    own.push_back(c);
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

// One race check: the writers of one SRAM on stage `w_stage` against its readers on `r_stage`.
struct RaceCheck {
  Stage w_stage;
  std::vector<Interval> Footprints::*w;
  Stage r_stage;
  std::vector<Interval> Footprints::*r;
  const char* what;
};

// Each footprint's endpoints, for the interval counters.
std::vector<int64_t> endpoints(const std::vector<Interval>& footprints) {
  std::vector<int64_t> coords;
  coords.reserve(2 * footprints.size());
  for (const Interval& iv : footprints) {
    coords.push_back(iv.lo);
    coords.push_back(iv.hi);
  }
  return coords;
}

void name_first_race(const Footprints& f, const RaceCheck& rc, size_t a, size_t b,
                     ProgramCheck& res) {
  res.first_problem = fmt::format(
      "race on {}: instruction {} ({}) and instruction {} ({}) "
      "are not ordered by dependency tokens",
      rc.what, a, disassemble(f.insns[a]), b, disassemble(f.insns[b]));
}

// The readers a writer is not ordered with form a window of the reader stage: those after the
// last reader known to precede it (its clock) and before the first reader that knows it (whose
// clock has reached its position). Both ends only move forward as the writers go on in stage
// order, so one sweep keeps the window's footprints in a counter, each reader entering and
// leaving once; a second counter holds every reader for the count of overlapping pairs.
void check_races(const Footprints& f, const TokenOrder& order, const RaceCheck& rc,
                 ProgramCheck& res) {
  const std::vector<Interval>& writes = f.*rc.w;
  const std::vector<Interval>& reads = f.*rc.r;
  const std::vector<Clock>& writer_clock = order.clock[rc.w_stage];
  const std::vector<Clock>& reader_clock = order.clock[rc.r_stage];
  IntervalCounter all(endpoints(reads));
  IntervalCounter window = all;  // empty, over the same coordinates
  for (const Interval& r : reads) {
    if (!r.empty()) {
      all.add(r, 1);
    }
  }
  size_t lo = 0, hi = 0;  // the window: readers lo <= q < hi
  for (size_t p = 0; p < writes.size(); ++p) {
    const Interval& w = writes[p];
    if (w.empty()) {
      continue;
    }
    res.checked_pairs += all.count_overlapping(w);
    for (; hi < reads.size() && reader_clock[hi][rc.w_stage] < int64_t(p); ++hi) {
      if (hi >= lo && !reads[hi].empty()) {
        window.add(reads[hi], 1);
      }
    }
    for (const int64_t last_before = writer_clock[p][rc.r_stage]; int64_t(lo) <= last_before;
         ++lo) {
      if (lo < hi && !reads[lo].empty()) {
        window.add(reads[lo], -1);
      }
    }
    const size_t unordered = window.count_overlapping(w);
    if (unordered > 0 && res.races == 0) {
      size_t q = lo;
      while (!w.overlaps(reads[q])) {
        ++q;
      }
      name_first_race(f, rc, f.per_stage[rc.w_stage][p], f.per_stage[rc.r_stage][q], res);
    }
    res.races += unordered;
  }
}

// The first FINISH of the compute stage ends a run on every backend; an instruction it is not
// ordered after (through its stage or the tokens) may be left unexecuted or not, by timing.
// Such instructions are the tail of each stage after the last one FINISH's clock knows.
void check_finish(const Footprints& f, const TokenOrder& order, ProgramCheck& res) {
  const std::vector<size_t>& compute = f.per_stage[kStageCompute];
  const auto finish = std::find_if(compute.begin(), compute.end(),
                                   [&](size_t i) { return f.insns[i].opcode == kOpFinish; });
  if (finish == compute.end()) {
    return;  // the backends name a missing FINISH
  }
  size_t first = SIZE_MAX;
  for (int s = kStageLoad; s <= kStageStore; ++s) {
    const std::vector<size_t>& list = f.per_stage[s];
    const Clock& at_finish = order.clock[kStageCompute][size_t(order.position[*finish])];
    const size_t known = static_cast<size_t>(at_finish[s] + 1);
    if (known < list.size()) {
      res.unordered_at_finish += list.size() - known;
      first = std::min(first, list[known]);
    }
  }
  // Tokens left over keep their own message: such a program has a push nothing pops, which
  // usually is also what leaves its instruction unordered.
  if (first != SIZE_MAX && res.first_problem.empty() && res.leftover_tokens == 0) {
    res.first_problem = fmt::format(
        "instruction {} ({}) is not ordered before FINISH (instruction {}) by dependency "
        "tokens, so FINISH may retire before it runs",
        first, disassemble(f.insns[first]), *finish);
  }
}

// check_program on decoded instructions.
ProgramCheck check_decoded(std::vector<Insn> insns, const UopImage& image, const HwConfig& cfg) {
  const Footprints f = footprints_of(std::move(insns), image, cfg);
  const TokenOrder order = replay_tokens(f.insns);
  ProgramCheck res;
  res.insns = f.insns.size();
  res.leftover_tokens = order.leftover_tokens;
  res.first_problem = order.deadlock;
  if (!res.first_problem.empty()) {
    return res;
  }
  const RaceCheck checks[] = {
      {kStageLoad, &Footprints::inp_w, kStageCompute, &Footprints::inp_r, "the input buffer"},
      {kStageLoad, &Footprints::wgt_w, kStageCompute, &Footprints::wgt_r, "the weight buffer"},
      {kStageCompute, &Footprints::acc_w, kStageStore, &Footprints::acc_r, "the output buffer"},
  };
  for (const RaceCheck& rc : checks) {
    check_races(f, order, rc, res);
  }
  check_finish(f, order, res);
  return res;
}

}  // namespace

ProgramCheck check_program(const SyncedProgram& program, const HwConfig& cfg) {
  const IsaCodec codec(cfg);
  std::vector<Insn> insns;
  insns.reserve(program.insns.size());
  for (const auto& w : program.insns) {
    insns.push_back(codec.decode(w));
  }
  return check_decoded(std::move(insns), UopImage{program.uops, program.uop_phys}, cfg);
}

ProgramCheck check_stream(const HwConfig& cfg, const Dram& dram, uint32_t insn_phys,
                          uint32_t count) {
  const uint8_t* p = dram.checked_ptr(insn_phys, uint64_t{count} * kInsnBytes);
  if (p == nullptr) {
    return ProgramCheck{};
  }
  const IsaCodec codec(cfg);
  std::vector<Insn> insns;
  insns.reserve(count);
  uint64_t lo = UINT64_MAX, hi = 0;  // uop words read by LOAD UOPs
  for (uint32_t k = 0; k < count; ++k) {
    const Insn& in =
        insns.emplace_back(codec.decode(IsaCodec::load_words(p + uint64_t{k} * kInsnBytes)));
    if (in.opcode == kOpLoad && in.memory_type == kMemUop && in.x_size > 0) {
      lo = std::min<uint64_t>(lo, in.dram_base);
      hi = std::max<uint64_t>(hi, uint64_t{in.dram_base} + in.x_size);
    }
  }
  std::vector<uint32_t> uops;
  uint32_t uop_phys = 0;
  if (lo < hi && hi - lo <= (64u << 20) / kUopBytes) {
    const uint8_t* u = dram.checked_ptr(lo * kUopBytes, (hi - lo) * kUopBytes);
    if (u != nullptr) {
      uop_phys = static_cast<uint32_t>(lo * kUopBytes);
      uops.resize(hi - lo);
      std::memcpy(uops.data(), u, (hi - lo) * kUopBytes);
    }
  }
  return check_decoded(std::move(insns), UopImage{uops, uop_phys}, cfg);
}

std::string describe_problem(const ProgramCheck& check) {
  if (check.ok()) {
    return "";
  }
  return check.first_problem.empty()
             ? fmt::format("{} dependency tokens left over", check.leftover_tokens)
             : check.first_problem;
}

}  // namespace vta::compiler
