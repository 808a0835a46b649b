#include "vta/sim/contract/deadlock_report.h"

#include <algorithm>

#include <fmt/format.h>

#include "vta/sim/insn_check.h"

namespace vta {

namespace {

std::string describe(Stage stage, const UnitReport& u, uint64_t capacity) {
  const char* unit = stage_unit_name(stage);
  const char* op = opcode_name(u.opcode);
  switch (u.kind) {
    case UnitReport::kNoneLeft:
      return fmt::format("{} unit has no instructions left", unit);
    case UnitReport::kBlocked:
      return fmt::format("{} unit is blocked at instruction {} ({}): {} waits on queue {} ({})",
                         unit, u.insn, op, kDepFlagName[u.block.flag],
                         kTokenQueueName[u.block.queue],
                         u.block.on_push() ? fmt::format("full, {} tokens", capacity) : "empty");
    case UnitReport::kExecuting:
      return fmt::format("{} unit is executing instruction {} ({})", unit, u.insn, op);
    case UnitReport::kWaiting:
      return fmt::format("{} unit is waiting at instruction {} ({})", unit, u.insn, op);
    case UnitReport::kIdle:
      break;
  }
  return fmt::format("{} unit is idle", unit);
}

}  // namespace

bool no_instructions_left(const UnitReports& units) {
  for (const UnitReport& u : units) {
    if (u.kind != UnitReport::kNoneLeft) {
      return false;
    }
  }
  return true;
}

std::string tokens_text(const TokenCounts& t) {
  return fmt::format("tokens l2g={} g2l={} s2g={} g2s={}", t[kL2G], t[kG2L], t[kS2G], t[kG2S]);
}

std::string deadlock_message(const UnitReports& units, const TokenCounts& tokens, uint64_t capacity,
                             const std::string& detail) {
  std::string msg = "deadlock: no unit can progress and FINISH has not executed:";
  for (int s = kStageLoad; s <= kStageStore; ++s) {
    msg += " " + describe(static_cast<Stage>(s), units[static_cast<size_t>(s - 1)], capacity) + ";";
  }
  if (!detail.empty()) {
    msg += " " + detail + ";";
  }
  return msg + " " + tokens_text(tokens);
}

std::string no_progress_message(const UnitReports& units, uint64_t quiet_cycles, uint64_t cycle,
                                const std::string& detail) {
  std::string msg = fmt::format(
      "watchdog: no progress for {} cycles (no instruction finished, no memory traffic, no "
      "GEMM/ALU micro-op) and FINISH has not executed, at cycle {}:",
      quiet_cycles, cycle);
  for (int s = kStageLoad; s <= kStageStore; ++s) {
    msg += " " + describe(static_cast<Stage>(s), units[static_cast<size_t>(s - 1)], 0) + ";";
  }
  return msg + " " + detail;
}

std::string no_finish_message(uint64_t insn_count, const std::string& detail) {
  std::string msg =
      fmt::format("fetch unit: no FINISH executed within insn_count = {} instructions", insn_count);
  if (!detail.empty()) {
    msg += " (" + detail + ")";
  }
  return msg;
}

std::string unexecuted_at_finish_message(const std::array<std::vector<uint32_t>, 4>& per_stage,
                                         const std::vector<Insn>& insns,
                                         const UnitsCompleted& completed) {
  std::vector<uint32_t> left;
  for (int s = kStageLoad; s <= kStageStore; ++s) {
    const std::vector<uint32_t>& list = per_stage[static_cast<size_t>(s)];
    for (size_t j = completed[static_cast<size_t>(s - 1)]; j < list.size(); ++j) {
      left.push_back(list[j]);
    }
  }
  if (left.empty()) {
    return "";
  }
  // The FINISH that retired is the compute unit's last started instruction.
  const std::vector<uint32_t>& compute = per_stage[kStageCompute];
  const uint64_t done = completed[kStageCompute - 1];
  const uint32_t finish = done > 0 && done <= compute.size() ? compute[done - 1] : 0;
  std::sort(left.begin(), left.end());
  std::string names;
  const size_t shown = std::min<size_t>(left.size(), 8);
  for (size_t k = 0; k < shown; ++k) {
    names += fmt::format("{}{} ({})", k ? ", " : "", left[k], opcode_name(insns[left[k]].opcode));
  }
  if (shown < left.size()) {
    names += fmt::format(", ... {} more", left.size() - shown);
  }
  return fmt::format("FINISH (instruction {}) retired with {} instruction{} left unexecuted: {}",
                     finish, left.size(), left.size() == 1 ? "" : "s", names);
}

}  // namespace vta
