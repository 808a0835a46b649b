#include "vta/sim/stats.h"

#include <nlohmann/json.hpp>

#include "vta/sim/isa.h"

namespace vta {

void Stats::add(const std::string& name, double value, const std::string& unit,
                const std::string& description) {
  for (auto& c : extra) {
    if (c.name == name) {
      c.value += value;
      return;
    }
  }
  extra.push_back({name, value, unit, description});
}

void Stats::add_counts(const Stats& o) {
  inp_load_nbytes += o.inp_load_nbytes;
  wgt_load_nbytes += o.wgt_load_nbytes;
  acc_load_nbytes += o.acc_load_nbytes;
  uop_load_nbytes += o.uop_load_nbytes;
  out_store_nbytes += o.out_store_nbytes;
  gemm_counter += o.gemm_counter;
  alu_counter += o.alu_counter;
  for (size_t i = 0; i < insn_count.size(); ++i) {
    insn_count[i] += o.insn_count[i];
  }
  runs += o.runs;
  cycles += o.cycles;
}

const NamedCounter* Stats::find(const std::string& name) const {
  for (const auto& c : extra) {
    if (c.name == name) {
      return &c;
    }
  }
  return nullptr;
}

nlohmann::ordered_json Stats::to_json() const {
  nlohmann::ordered_json j;
  j["inp_load_nbytes"] = inp_load_nbytes;
  j["wgt_load_nbytes"] = wgt_load_nbytes;
  j["acc_load_nbytes"] = acc_load_nbytes;
  j["uop_load_nbytes"] = uop_load_nbytes;
  j["out_store_nbytes"] = out_store_nbytes;
  j["gemm_counter"] = gemm_counter;
  j["alu_counter"] = alu_counter;
  nlohmann::ordered_json insns;
  for (uint32_t op = 0; op < insn_count.size(); ++op) {
    if (op <= kOpAlu) {
      insns[opcode_name(op)] = insn_count[op];
    }
  }
  j["insn_count"] = insns;
  j["runs"] = runs;
  if (timed) {
    j["cycles"] = cycles;
  }
  for (const auto& c : extra) {
    j[c.name] = c.value;
  }
  return j;
}

}  // namespace vta
