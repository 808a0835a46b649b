#include "vta/sim/contract/contract_backend.h"

#include <algorithm>

#include <fmt/format.h>

#include "vta/sim/error.h"

namespace vta {

namespace {

// Sets the named counter (creating it): the mirror of a count kept elsewhere.
void set_counter(Stats& into, const std::string& name, double value, const std::string& unit,
                 const std::string& description) {
  for (NamedCounter& c : into.extra) {
    if (c.name == name) {
      c.value = value;
      return;
    }
  }
  into.extra.push_back({name, value, unit, description});
}

// Core k's counters (k >= 1) under "coreK." in the system's stats() too (core 0's are stats()'s
// own), so one report shows every core.
void mirror_core(Stats& into, const Stats& core, int k) {
  const std::string p = fmt::format("core{}.", k);
  const std::pair<const char*, uint64_t> upstream[] = {{"inp_load_nbytes", core.inp_load_nbytes},
                                                       {"wgt_load_nbytes", core.wgt_load_nbytes},
                                                       {"acc_load_nbytes", core.acc_load_nbytes},
                                                       {"uop_load_nbytes", core.uop_load_nbytes},
                                                       {"out_store_nbytes", core.out_store_nbytes}};
  for (const auto& [name, v] : upstream) {
    set_counter(into, p + name, static_cast<double>(v), "bytes", "this core's upstream counter");
  }
  set_counter(into, p + "gemm_counter", static_cast<double>(core.gemm_counter), "uops",
              "this core's upstream counter");
  set_counter(into, p + "alu_counter", static_cast<double>(core.alu_counter), "uops",
              "this core's upstream counter");
  set_counter(into, p + "runs", static_cast<double>(core.runs), "runs", "this core's runs");
  for (const NamedCounter& c : core.extra) {
    set_counter(into, p + c.name, c.value, c.unit, c.description);
  }
}

}  // namespace

ContractBackend::ContractBackend(const HwConfig& cfg, Dram& dram)
    : Backend(cfg, dram), m_codec(cfg) {
  for (int k = 1; k < cfg.num_cores(); ++k) {
    m_core_codecs.push_back(std::make_unique<IsaCodec>(m_cfg.core_config(k)));
  }
}

void ContractBackend::finish_core(int core, const LoadedProgram& program, const RunOutcome& out) {
  const uint32_t insn_count = program.count();
  const int dep_depth = m_cfg.core_config(core).dep_queue_depth;
  if (out.kind == RunOutcome::kStuck) {
    if (no_instructions_left(out.units)) {
      const std::string detail =
          out.detail.empty() ? "" : out.detail + "; " + tokens_text(out.tokens);
      throw ProgramError(no_finish_message(insn_count, detail));
    }
    throw ProgramError(
        deadlock_message(out.units, out.tokens, static_cast<uint64_t>(dep_depth), out.detail));
  }
  if (out.kind == RunOutcome::kFinished) {
    const std::string left =
        unexecuted_at_finish_message(program.per_stage, program.insns, out.completed);
    if (!left.empty()) {
      throw ProgramError(left);
    }
  }
  Stats& stats = core_stats_mut(core);
  if (stats.timed) {
    stats.cycles += out.cycles;
  }
  if (out.counters) {
    publish_counters(stats, *out.counters);
  }
}

RunStatus ContractBackend::run(uint32_t insn_phys, uint32_t insn_count, uint64_t wait_cycles) {
  ++m_stats.runs;
  const LoadedProgram program = load_program(m_codec, m_dram, insn_phys, insn_count);
  const RunOutcome out = execute(program, wait_cycles);
  finish_core(0, program, out);
  return out.kind == RunOutcome::kTimeout ? RunStatus::kTimeout : RunStatus::kOk;
}

std::vector<RunOutcome> ContractBackend::execute_cores(
    const std::vector<const LoadedProgram*>& programs, uint64_t wait_cycles, uint64_t& makespan) {
  std::vector<RunOutcome> outs(programs.size());
  for (size_t k = 1; k < programs.size(); ++k) {
    if (programs[k] != nullptr) {
      throw Error(
          fmt::format("backend '{}' runs one core only (core {} has a program)", name(), k));
    }
  }
  if (!programs.empty() && programs[0] != nullptr) {
    outs[0] = execute(*programs[0], wait_cycles);
    makespan = outs[0].cycles;
  }
  return outs;
}

RunStatus ContractBackend::run_cores(const std::vector<CoreProgram>& programs,
                                     uint64_t wait_cycles) {
  if (programs.size() > static_cast<size_t>(cores())) {
    throw Error(
        fmt::format("{} programs for a system of {} cores (CORES)", programs.size(), cores()));
  }
  std::vector<LoadedProgram> loaded(programs.size());
  std::vector<const LoadedProgram*> ptrs(programs.size(), nullptr);
  const auto where = [&](size_t k) { return cores() > 1 ? fmt::format("core {}: ", k) : ""; };
  for (size_t k = 0; k < programs.size(); ++k) {
    if (programs[k].insn_count == 0) {
      continue;
    }
    const IsaCodec& codec = k == 0 ? m_codec : *m_core_codecs[k - 1];
    try {
      loaded[k] = load_program(codec, m_dram, programs[k].insn_phys, programs[k].insn_count);
    } catch (const ProgramError& e) {
      throw ProgramError(where(k) + e.what());
    }
    ptrs[k] = &loaded[k];
    ++core_stats_mut(static_cast<int>(k)).runs;
  }
  uint64_t makespan = 0;
  const std::vector<RunOutcome> outs = execute_cores(ptrs, wait_cycles, makespan);
  bool timeout = false;
  for (size_t k = 0; k < programs.size(); ++k) {
    if (ptrs[k] == nullptr) {
      continue;
    }
    try {
      finish_core(static_cast<int>(k), loaded[k], outs[k]);
    } catch (const ProgramError& e) {
      throw ProgramError(where(k) + e.what());
    }
    timeout = timeout || outs[k].kind == RunOutcome::kTimeout;
    if (k > 0) {
      mirror_core(m_stats, core_stats(static_cast<int>(k)), static_cast<int>(k));
    }
  }
  if (m_stats.timed) {
    m_stats.add("system.cycles", static_cast<double>(makespan), "cycles",
                "cycles of the runs of several cores, first start to last FINISH");
  }
  return timeout ? RunStatus::kTimeout : RunStatus::kOk;
}

}  // namespace vta
