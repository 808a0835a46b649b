#include "vta/sim/fsim.h"

#include <algorithm>
#include <array>

#include "vta/sim/contract/dependency_rule.h"
#include "vta/sim/functional_core.h"
#include "vta/sim/isa.h"
#include "vta/sim/run_progress.h"

namespace vta {

namespace {

// xorshift32: a tiny deterministic PRNG for the randomised stage order.
uint32_t next_random(uint32_t& state) {
  state ^= state << 13;
  state ^= state >> 17;
  state ^= state << 5;
  return state;
}

}  // namespace

struct FsimBackend::Impl {
  Impl(const HwConfig& c, Dram& d, Stats& s) : cfg(c), stats(s), core(c, d, s) {}

  const HwConfig& cfg;
  Stats& stats;
  FunctionalCore core;  // the SRAMs (persist across runs) and the instruction semantics
  uint32_t order_seed = 0;

  // ---- per-run state ----
  const LoadedProgram* program = nullptr;
  std::array<size_t, 4> head{};  // per stage: next position in program->per_stage
  TokenCounts tokens{};          // per token queue: tokens available
  bool finished = false;
  uint64_t work_limit = 0;  // set_work_limit (0 = none)
  uint64_t budget = 0;      // work units allowed in this run (0 = no limit)
  uint64_t work = 0;        // work units executed: one per instruction plus N per GEMM/ALU
  bool out_of_budget = false;

  RunOutcome run(const LoadedProgram& p);
  bool pick_and_step(uint32_t& rng);
  StartBlock start_block_of(int stage) const;
  bool can_start(int stage) const;
  void step(int stage);
  RunOutcome stuck() const;
  void execute(uint64_t index, const Insn& i);
};

FsimBackend::FsimBackend(const HwConfig& cfg, Dram& dram)
    : ContractBackend(cfg, dram), m_impl(std::make_unique<Impl>(m_cfg, m_dram, m_stats)) {
  // CORES: cores 1..N-1, each with its own SRAMs and counters (docs/multicore.md).
  for (int k = 1; k < cores(); ++k) {
    m_more.push_back(std::make_unique<Impl>(m_cfg.core_config(k), m_dram, core_stats_mut(k)));
  }
}

FsimBackend::~FsimBackend() = default;

RunOutcome FsimBackend::execute(const LoadedProgram& program, uint64_t wait_cycles) {
  (void)wait_cycles;  // untimed: set_work_limit bounds a run instead
  return m_impl->run(program);
}

// Untimed, so the cores' streams run one after the other, core 0 first: the same results as
// together whenever the programs touch disjoint memory (or only read what they share).
std::vector<RunOutcome> FsimBackend::execute_cores(
    const std::vector<const LoadedProgram*>& programs, uint64_t wait_cycles, uint64_t& makespan) {
  (void)wait_cycles;
  makespan = 0;
  std::vector<RunOutcome> outs(programs.size());
  for (size_t k = 0; k < programs.size(); ++k) {
    if (programs[k] != nullptr) {
      Impl& core = k == 0 ? *m_impl : *m_more[k - 1];
      core.order_seed = m_impl->order_seed;
      core.work_limit = m_impl->work_limit;
      outs[k] = core.run(*programs[k]);
    }
  }
  return outs;
}

void FsimBackend::set_work_limit(uint64_t units) {
  m_impl->work_limit = units;
}

void FsimBackend::set_stage_order_seed(uint32_t seed) {
  m_impl->order_seed = seed;
}
uint32_t FsimBackend::stage_order_seed() const {
  return m_impl->order_seed;
}

void FsimBackend::set_gemm_kernel(GemmKernelKind kind) {
  m_impl->core.set_gemm_kernel(kind);
}

const char* FsimBackend::gemm_kernel_name() const {
  return m_impl->core.gemm_kernel_name();
}

int32_t FsimBackend::acc_lane(uint32_t index, uint32_t lane) const {
  return m_impl->core.acc_lane(index, lane);
}

int32_t FsimBackend::out_lane(uint32_t index, uint32_t lane) const {
  return m_impl->core.out_lane(index, lane);
}

Uop FsimBackend::uop_at(uint32_t index) const {
  return m_impl->core.uop_at(index);
}

// ---------------------------------------------------------------------------------------------
// Scheduling: the contract's start rule decides which unit may take its next instruction.

// The work limit counts one unit per instruction plus one per GEMM/ALU micro-op iteration
// (fsim.md): an instruction that would exceed it is not executed and the run times out.
RunOutcome FsimBackend::Impl::run(const LoadedProgram& p) {
  program = &p;
  head.fill(0);
  tokens.fill(0);
  finished = false;
  budget = work_limit;
  work = 0;
  out_of_budget = false;
  uint32_t rng = order_seed;
  while (!finished) {
    if (!pick_and_step(rng)) {
      return stuck();
    }
    if (out_of_budget) {
      RunOutcome out;
      out.kind = RunOutcome::kTimeout;
      out.cycles = work;
      return out;
    }
  }
  RunOutcome out;
  for (int s = kStageLoad; s <= kStageStore; ++s) {
    out.completed[static_cast<size_t>(s - 1)] = head[s];
  }
  return out;
}

// Order 0: a fixed round robin, one instruction per unit and round; else a seeded random pick
// among the units that can start. False if none can.
bool FsimBackend::Impl::pick_and_step(uint32_t& rng) {
  if (order_seed == 0) {
    bool progressed = false;
    for (int s = kStageLoad; s <= kStageStore && !finished && !out_of_budget; ++s) {
      if (can_start(s)) {
        step(s);
        progressed = true;
      }
    }
    return progressed;
  }
  int runnable[3];
  int n = 0;
  for (int s = kStageLoad; s <= kStageStore; ++s) {
    if (can_start(s)) {
      runnable[n++] = s;
    }
  }
  if (n == 0) {
    return false;
  }
  step(runnable[next_random(rng) % static_cast<uint32_t>(n)]);
  return true;
}

StartBlock FsimBackend::Impl::start_block_of(int s) const {
  const Insn& i = program->insns[program->per_stage[s][head[s]]];
  return start_block(token_use(i, static_cast<Stage>(s)), tokens,
                     static_cast<uint64_t>(cfg.dep_queue_depth));
}

bool FsimBackend::Impl::can_start(int s) const {
  return head[s] < program->per_stage[s].size() && !start_block_of(s).blocked();
}

void FsimBackend::Impl::step(int s) {
  const uint32_t k = program->per_stage[s][head[s]];
  const Insn& i = program->insns[k];
  const bool loop = i.opcode == kOpGemm || i.opcode == kOpAlu;
  const uint64_t cost = 1 + (loop ? uint64_t{i.iter_out} * i.iter_in *
                                        (i.uop_end > i.uop_bgn ? i.uop_end - i.uop_bgn : 0)
                                  : 0);
  if (budget != 0 && cost > budget - std::min(budget, work)) {
    out_of_budget = true;
    return;
  }
  work += cost;
  ++head[s];
  const TokenUse use = token_use(i, static_cast<Stage>(s));
  pop_tokens(use, tokens);
  execute(k, i);
  push_tokens(use, tokens);
  run_progress().add(cost, 1);
  poll_stop(cost);
}

RunOutcome FsimBackend::Impl::stuck() const {
  RunOutcome out;
  out.kind = RunOutcome::kStuck;
  out.tokens = tokens;
  for (int s = kStageLoad; s <= kStageStore; ++s) {
    UnitReport& u = out.units[static_cast<size_t>(s - 1)];
    if (head[s] < program->per_stage[s].size()) {
      u.kind = UnitReport::kBlocked;
      u.insn = program->per_stage[s][head[s]];
      u.opcode = program->insns[u.insn].opcode;
      u.block = start_block_of(s);
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Instructions

void FsimBackend::Impl::execute(uint64_t index, const Insn& i) {
  ++stats.insn_count[i.opcode];
  switch (i.opcode) {
    case kOpLoad:
      core.exec_load(index, i);
      break;
    case kOpStore:
      core.exec_store(index, i);
      break;
    case kOpGemm:
      core.exec_gemm(index, i);
      break;
    case kOpAlu:
      core.exec_alu(index, i);
      break;
    case kOpFinish:
      finished = true;
      break;
    default:
      break;  // rejected by check_insn_static
  }
}

}  // namespace vta

#include "vta/sim/backend_registry.h"
VTA_REGISTER_BACKEND(fsim, vta::FsimBackend, /*order=*/10, /*timed=*/false);
