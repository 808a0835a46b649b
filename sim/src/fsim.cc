#include "vta/sim/fsim.h"

#include <array>

#include <fmt/format.h>

#include "vta/sim/error.h"
#include "vta/sim/insn_check.h"
#include "vta/sim/functional_core.h"
#include "vta/sim/isa.h"
#include "vta/sim/token_queues.h"

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
  Impl(const HwConfig& c, Dram& d, Stats& s) : cfg(c), dram(d), stats(s), codec(c), core(c, d, s) {}

  const HwConfig& cfg;
  Dram& dram;
  Stats& stats;
  IsaCodec codec;
  FunctionalCore core;  // the SRAMs (persist across runs) and the instruction semantics
  uint32_t order_seed = 0;

  // ---- per-run state ----
  std::vector<Insn> insns;                     // the fetched stream
  std::array<std::vector<uint32_t>, 4> queue;  // per stage: instruction indices, in order
  std::array<size_t, 4> head{};                // per stage: next position in `queue`
  std::array<uint64_t, 4> tokens{};            // per token queue: tokens available
  bool finished = false;

  void run(uint32_t insn_phys, uint32_t insn_count);
  void fetch(uint32_t insn_phys, uint32_t insn_count);
  bool can_start(int stage, std::string* why) const;
  void step(int stage);
  [[noreturn]] void deadlock() const;
  void execute(uint64_t index, const Insn& i);
};

FsimBackend::FsimBackend(const HwConfig& cfg, Dram& dram)
    : Backend(cfg, dram), m_impl(std::make_unique<Impl>(m_cfg, m_dram, m_stats)) {}

FsimBackend::~FsimBackend() = default;

RunStatus FsimBackend::run(uint32_t insn_phys, uint32_t insn_count, uint64_t wait_cycles) {
  (void)wait_cycles;  // untimed
  m_impl->run(insn_phys, insn_count);
  return RunStatus::kOk;
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

int8_t FsimBackend::out_lane(uint32_t index, uint32_t lane) const {
  return m_impl->core.out_lane(index, lane);
}

Uop FsimBackend::uop_at(uint32_t index) const {
  return m_impl->core.uop_at(index);
}

// ---------------------------------------------------------------------------------------------
// Fetch and scheduling

void FsimBackend::Impl::fetch(uint32_t insn_phys, uint32_t insn_count) {
  const uint8_t* p = checked_insn_stream(dram, insn_phys, insn_count);
  insns.resize(insn_count);
  for (auto& q : queue) {
    q.clear();
  }
  for (uint32_t k = 0; k < insn_count; ++k) {
    insns[k] = codec.decode(IsaCodec::load_words(p + static_cast<size_t>(k) * kInsnBytes));
    check_insn_static(k, insns[k]);
    queue[insns[k].stage()].push_back(k);
  }
}

void FsimBackend::Impl::run(uint32_t insn_phys, uint32_t insn_count) {
  ++stats.runs;
  fetch(insn_phys, insn_count);
  head.fill(0);
  tokens.fill(0);
  finished = false;
  uint32_t rng = order_seed;
  while (!finished) {
    bool progressed = false;
    if (order_seed == 0) {
      for (int s = kStageLoad; s <= kStageStore && !finished; ++s) {
        if (can_start(s, nullptr)) {
          step(s);
          progressed = true;
        }
      }
    } else {
      int runnable[3];
      int n = 0;
      for (int s = kStageLoad; s <= kStageStore; ++s) {
        if (can_start(s, nullptr)) {
          runnable[n++] = s;
        }
      }
      if (n > 0) {
        step(runnable[next_random(rng) % n]);
        progressed = true;
      }
    }
    if (!progressed) {
      deadlock();
    }
  }
}

bool FsimBackend::Impl::can_start(int s, std::string* why) const {
  if (head[s] >= queue[s].size()) {
    if (why != nullptr) {
      *why = "has no instructions left";
    }
    return false;
  }
  const uint32_t k = queue[s][head[s]];
  const Insn& i = insns[k];
  const auto blocked = [&](const char* flag, int q, const char* state) {
    if (why != nullptr) {
      *why = fmt::format("is blocked at instruction {} ({}): {} waits on queue {} ({})", k,
                         opcode_name(i.opcode), flag, kTokenQueueName[q], state);
    }
    return false;
  };
  if (i.pop_prev_dep && tokens[kPopPrev[s]] == 0) {
    return blocked("pop_prev_dep", kPopPrev[s], "empty");
  }
  if (i.pop_next_dep && tokens[kPopNext[s]] == 0) {
    return blocked("pop_next_dep", kPopNext[s], "empty");
  }
  const uint64_t depth = static_cast<uint64_t>(cfg.dep_queue_depth);
  if (i.push_prev_dep && tokens[kPushPrev[s]] >= depth) {
    return blocked("push_prev_dep", kPushPrev[s], fmt::format("full, {} tokens", depth).c_str());
  }
  if (i.push_next_dep && tokens[kPushNext[s]] >= depth) {
    return blocked("push_next_dep", kPushNext[s], fmt::format("full, {} tokens", depth).c_str());
  }
  return true;
}

void FsimBackend::Impl::step(int s) {
  const uint32_t k = queue[s][head[s]++];
  const Insn& i = insns[k];
  if (i.pop_prev_dep) {
    --tokens[kPopPrev[s]];
  }
  if (i.pop_next_dep) {
    --tokens[kPopNext[s]];
  }
  execute(k, i);
  if (i.push_prev_dep) {
    ++tokens[kPushPrev[s]];
  }
  if (i.push_next_dep) {
    ++tokens[kPushNext[s]];
  }
}

void FsimBackend::Impl::deadlock() const {
  bool any_left = false;
  for (int s = kStageLoad; s <= kStageStore; ++s) {
    any_left |= head[s] < queue[s].size();
  }
  if (!any_left) {
    throw ProgramError(fmt::format(
        "fetch unit: no FINISH executed within insn_count = {} instructions", insns.size()));
  }
  std::string msg = "deadlock: no unit can progress and FINISH has not executed:";
  for (int s = kStageLoad; s <= kStageStore; ++s) {
    std::string why;
    can_start(s, &why);
    msg += fmt::format(" {} unit {};", stage_unit_name(static_cast<Stage>(s)), why);
  }
  msg += fmt::format(" tokens l2g={} g2l={} s2g={} g2s={}", tokens[kL2G], tokens[kG2L],
                     tokens[kS2G], tokens[kG2S]);
  throw ProgramError(msg);
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
