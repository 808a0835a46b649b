#include "vta/compiler/reports/layer_run_codec.h"

#include <nlohmann/json.hpp>

#include "vta/compiler/reports/layer_fields.h"

namespace vta::compiler {

namespace {

nlohmann::json stats_to_json(const Stats& s) {
  nlohmann::json extra = nlohmann::json::array();
  for (const NamedCounter& c : s.extra) {
    extra.push_back({c.name, c.value, c.unit, c.description});
  }
  return {s.inp_load_nbytes, s.wgt_load_nbytes,  s.acc_load_nbytes,
          s.uop_load_nbytes, s.out_store_nbytes, s.gemm_counter,
          s.alu_counter,     s.insn_count,       s.runs,
          s.timed,           s.cycles,           extra};
}

Stats stats_from_json(const nlohmann::json& j) {
  Stats s;
  s.inp_load_nbytes = j[0], s.wgt_load_nbytes = j[1], s.acc_load_nbytes = j[2];
  s.uop_load_nbytes = j[3], s.out_store_nbytes = j[4], s.gemm_counter = j[5];
  s.alu_counter = j[6], s.insn_count = j[7], s.runs = j[8], s.timed = j[9], s.cycles = j[10];
  for (const auto& c : j[11]) {
    s.extra.push_back(NamedCounter{c[0], c[1], c[2], c[3]});
  }
  return s;
}

}  // namespace

std::vector<uint8_t> encode_layer_run(const LayerRun& r) {
  nlohmann::json j;
  nlohmann::json fields = nlohmann::json::object();
  for (const LayerField& f : layer_fields()) {
    if (f.set) {
      fields[f.key] = nlohmann::json(f.get(r));
    }
  }
  j["fields"] = fields;
  j["schedule"] = r.schedule.to_json();
  j["epilogue"] = r.epilogue.to_json();
  j["out"] = nlohmann::json::binary(std::vector<uint8_t>(r.out.begin(), r.out.end()));
  j["stats"] = stats_to_json(r.stats);
  const LayerBound& b = r.bound;
  j["bound"] = {b.gemm_cycles,       b.alu_cycles,     b.compute_cycles, b.bytes.read,
                b.bytes.write,       b.memory_cycles,  b.cycles,         b.acc_load_cycles,
                b.bytes.acc_counted, b.bytes.acc_moved};
  return nlohmann::json::to_msgpack(j);
}

LayerRun decode_layer_run(const std::vector<uint8_t>& bytes) {
  const nlohmann::json j = nlohmann::json::from_msgpack(bytes);
  LayerRun r;
  for (const LayerField& f : layer_fields()) {
    if (f.set) {
      f.set(r, j.at("fields").at(f.key));
    }
  }
  r.schedule = ConvSchedule::from_json(j.at("schedule"), "worker result");
  r.epilogue = Epilogue::from_json(j.at("epilogue"), "worker result");
  const auto& out = j.at("out").get_binary();
  r.out.assign(out.begin(), out.end());
  r.stats = stats_from_json(j.at("stats"));
  const auto& b = j.at("bound");
  r.bound.gemm_cycles = b[0], r.bound.alu_cycles = b[1], r.bound.compute_cycles = b[2];
  r.bound.bytes.read = b[3], r.bound.bytes.write = b[4];
  r.bound.memory_cycles = b[5], r.bound.cycles = b[6];
  r.bound.acc_load_cycles = b[7], r.bound.bytes.acc_counted = b[8], r.bound.bytes.acc_moved = b[9];
  return r;
}

}  // namespace vta::compiler
