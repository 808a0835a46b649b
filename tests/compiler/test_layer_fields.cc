// The layer result fields, described once (layer_fields.cc): every key is a layer property of
// the report schema with the schema's unit, the JSON report holds exactly the fields that
// apply to a run, the worker codec carries every stored field and the text report takes its
// figure columns from the table.
#include <fstream>
#include <string>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "vta/compiler/reports/layer_fields.h"
#include "vta/compiler/reports/layer_run_codec.h"
#include "vta/compiler/reports/report.h"

using namespace vta::compiler;

namespace {

nlohmann::json schema() {
  std::ifstream in(std::string(VTA_SOURCE_DIR) + "/compiler/report.schema.json");
  return nlohmann::json::parse(in);
}

// The unit of a schema property, directly or through its $ref.
std::string unit_of(const nlohmann::json& s, const nlohmann::json& prop) {
  if (prop.contains("unit")) {
    return prop["unit"];
  }
  const std::string ref = prop.at("$ref");  // "#/$defs/NAME"
  return s.at("$defs").at(ref.substr(ref.rfind('/') + 1)).at("unit");
}

// A run with a value in every field, different from the defaults.
LayerRun sample_run(bool timed, bool checked) {
  LayerRun r;
  r.name = "C8", r.kind = "conv2d", r.shape = "1x256x14x14", r.backend = "cycle";
  r.config = "pynq", r.wall_seconds = 0.25, r.macs = 1000, r.gemm_bound = 70;
  r.peak_macs_per_cycle = 256, r.min_bytes = 500, r.kernels = 3, r.kernel_uops = 40;
  r.checked = checked, r.mismatches = checked ? 2 : 0, r.first_mismatch = "n 0 k 1 y 2 x 3";
  r.verdict.key = "gemm_issue", r.verdict.advice = "larger block";
  r.stats.timed = timed, r.stats.cycles = timed ? 100 : 0, r.stats.gemm_counter = 70;
  r.stats.inp_load_nbytes = 600;
  r.bound.cycles = 80;
  return r;
}

}  // namespace

TEST_CASE("every layer field is a layer property of the report schema, with its unit", "[fields]") {
  const nlohmann::json s = schema();
  const nlohmann::json& props = s.at("$defs").at("layer").at("properties");
  for (const LayerField& f : layer_fields()) {
    INFO("field " << f.key);
    REQUIRE(props.contains(f.key));
    CHECK(unit_of(s, props[f.key]) == f.unit);
    CHECK(std::string(f.description).size() > 0);
  }
}

TEST_CASE("the JSON report lists the fields that apply to a run", "[fields]") {
  const nlohmann::ordered_json untimed = run_to_json(sample_run(false, false));
  CHECK_FALSE(untimed.contains("cycles"));
  CHECK_FALSE(untimed.contains("gemm_utilization"));
  CHECK_FALSE(untimed.contains("mismatches"));
  CHECK(untimed.at("gemm_lower_bound") == 70);
  CHECK(untimed.at("bytes_moved") == 600);  // inp_load_nbytes alone
  CHECK(untimed.at("bytes_minimum") == 500);
  const nlohmann::ordered_json timed = run_to_json(sample_run(true, true));
  CHECK(timed.at("cycles") == 100);
  CHECK(timed.at("gemm_utilization") == 0.7);    // 70 micro-ops / 100 cycles
  CHECK(timed.at("cycles_over_bound") == 1.25);  // 100 / 80
  CHECK(timed.at("mismatches") == 2);
  CHECK(timed.at("first_mismatch") == "n 0 k 1 y 2 x 3");
}

TEST_CASE("the worker codec carries every stored layer field", "[fields]") {
  const LayerRun r = sample_run(true, true);
  const LayerRun back = decode_layer_run(encode_layer_run(r));
  for (const LayerField& f : layer_fields()) {
    INFO("field " << f.key);
    CHECK(f.get(back) == f.get(r));
  }
}

TEST_CASE("the text report takes its figure columns from the field table", "[fields]") {
  const std::string timed = format_report({sample_run(true, true)});
  CHECK(timed.find("cycles   util     MAC/cyc x bound   B/min check          limit\n") !=
        std::string::npos);
  // 100 cycles, 70 / 100 utilization, 1000 / 100 MAC/cycle of 256, 100 / 80, 600 / 500, 2 BAD.
  CHECK(timed.find("    100  70.0%    10.0/256    1.25    1.20 2 BAD     gemm_issue\n") !=
        std::string::npos);
  const std::string untimed = format_report({sample_run(false, false)});
  CHECK(untimed.find("      -      -           -       -    1.20     -     gemm_issue\n") !=
        std::string::npos);
}
