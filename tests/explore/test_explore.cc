// The exploration layer and config sources: constraint expressions against hand-computed
// values, base chains and overrides, the config hash against the documented FNV-1a formula,
// spec errors, grid / range / sample / constraint expansion counts, shard partitions, the
// SQLite results database (replace, resume status, CSV / JSONL export, merge). The worker
// processes of sweeps are tested with their pool (tests/compiler/test_process_pool.cc).
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>

#include <fmt/format.h>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "test_paths.h"
#include "vta/explore/constraint_expr.h"
#include "vta/explore/results_db.h"
#include "vta/explore/sweep_job.h"
#include "vta/explore/sweep_spec.h"
#include "vta/sim/config_source.h"
#include "vta/sim/error.h"

using namespace vta;
using namespace vta::explore;
namespace fs = std::filesystem;

namespace {

// A fresh temp folder per test case.
fs::path temp_dir(const std::string& name) {
  const fs::path d = unique_temp_path("explore_" + name, "");
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

void write_file(const fs::path& p, const std::string& text) {
  std::ofstream(p) << text;
}

SweepSpec spec_of(const std::string& text) {
  return SweepSpec::from_json(nlohmann::ordered_json::parse(text), "spec.json", "");
}

std::string spec_error(const std::string& text) {
  try {
    (void)expand(spec_of(text));
  } catch (const SpecError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("constraint expressions evaluate like C on config keys", "[explore]") {
  const nlohmann::json keys = {{"A", 4}, {"B", 6}, {"C", 2.5}};
  const std::vector<std::string> names = {"A", "B", "C"};
  const auto eval = [&](const std::string& t) {
    return ConstraintExpr::parse(t, names).evaluate(keys);
  };
  CHECK(eval("A + B * 2") == 16);
  CHECK(eval("(A + B) * 2") == 20);
  CHECK(eval("B / A") == 1.5);
  CHECK(eval("B % A") == 2);
  CHECK(eval("-A + 1") == -3);
  CHECK(eval("A < B && B <= 6") == 1);
  CHECK(eval("A > B || C == 2.5") == 1);
  CHECK(eval("!(A != 4)") == 1);
  CHECK(eval("A >= 5") == 0);
  // && and || stop early, as in C: the division by zero is never evaluated.
  CHECK(eval("A == 5 && B / (A - 4) > 0") == 0);
  CHECK(eval("A == 4 || B / (A - 4) > 0") == 1);
  CHECK_THROWS_WITH(eval("B / (A - 4)"), Catch::Contains("division by zero"));
  CHECK_THROWS_WITH(eval("B > 1 > 0"), Catch::Contains("expected an operator or the end"));
  CHECK_THROWS_WITH(ConstraintExpr::parse("A < D", names), Catch::Contains("'D' is not a numeric"));
  CHECK_THROWS_WITH(ConstraintExpr::parse("(A < 1", names), Catch::Contains("expected ')'"));
  CHECK_THROWS_WITH(ConstraintExpr::parse("A <", names),
                    Catch::Contains("expected a number, a config key or '(' at position 4"));
}

// Deep or long expressions are refused by name before they can exhaust the stack (10,000 nested
// parentheses and a flat sum of 40,000 terms used to crash the parser or the evaluator).
TEST_CASE("constraint expressions: length and depth limits", "[explore]") {
  const std::vector<std::string> names = {"A"};
  const std::string nested = std::string(10000, '(') + "A" + std::string(10000, ')');
  CHECK_THROWS_WITH(ConstraintExpr::parse(nested, names),
                    Catch::Contains("longer than the limit of 4096"));
  const std::string nested_short = std::string(1000, '(') + "A" + std::string(1000, ')');
  CHECK_THROWS_WITH(ConstraintExpr::parse(nested_short, names),
                    Catch::Contains("nesting deeper than 256"));
  CHECK_THROWS_WITH(ConstraintExpr::parse(std::string(300, '!') + "A", names),
                    Catch::Contains("nesting deeper than 256"));
  std::string sum = "A";
  for (int i = 0; i < 40000; ++i) {
    sum += "+1";
  }
  CHECK_THROWS_WITH(ConstraintExpr::parse(sum, names), Catch::Contains("longer than the limit"));
  std::string sum300 = "A";
  for (int i = 0; i < 300; ++i) {
    sum300 += "+1";
  }
  CHECK_THROWS_WITH(ConstraintExpr::parse(sum300, names),
                    Catch::Contains("more than 256 operators in a row"));
  // Just inside the limits: 255 additions and 200 parentheses evaluate.
  std::string sum255 = "A";
  for (int i = 0; i < 255; ++i) {
    sum255 += "+1";
  }
  CHECK(ConstraintExpr::parse(sum255, names).evaluate({{"A", 1}}) == 256);
  const std::string nested200 = std::string(200, '(') + "A" + std::string(200, ')');
  CHECK(ConstraintExpr::parse(nested200, names).evaluate({{"A", 7}}) == 7);
}

TEST_CASE("config sources: base chains, overrides, labels", "[explore][config]") {
  const fs::path d = temp_dir("config");
  write_file(d / "a.json", R"({"base": "ultra96", "LOG_BLOCK": 5})");
  fs::create_directories(d / "sub");
  write_file(d / "sub/b.json", R"({"base": "../a.json", "CLOCK_MHZ": 200})");
  const ResolvedConfig b = resolve_config((d / "sub/b.json").string(), {});
  const HwConfig ultra96 = HwConfig::from_file(config_path("ultra96"));
  CHECK(b.config.log_block == 5);
  CHECK(b.config.clock_mhz == 200);
  CHECK(b.config.log_bus_width == ultra96.log_bus_width);  // from the base of the base
  CHECK(b.label == "ultra96+CLOCK_MHZ=200,LOG_BLOCK=5");
  // --set applies last and is named in errors.
  const ResolvedConfig o = resolve_config(
      "pynq", {parse_config_override("LOG_BUS_WIDTH=7"), parse_config_override("TARGET=ultra96")});
  CHECK(o.config.log_bus_width == 7);
  CHECK(o.config.target == "ultra96");
  CHECK(o.label == "pynq+LOG_BUS_WIDTH=7,TARGET=ultra96");
  CHECK(resolve_config("pynq", {}).label == "pynq");
  CHECK_THROWS_WITH(
      resolve_config("pynq", {parse_config_override("LOG_BLOCK=9")}),
      Catch::Contains("pynq with --set LOG_BLOCK: key 'LOG_BLOCK' = 9 is out of range"));
  CHECK_THROWS_WITH(resolve_config("pynq", {parse_config_override("NOPE=1")}),
                    Catch::Contains("--set NOPE: unknown key 'NOPE'"));
  CHECK_THROWS_WITH(parse_config_override("LOG_BLOCK"), Catch::Contains("must be KEY=VALUE"));
  // A cycle of bases is named.
  write_file(d / "c1.json", R"({"base": "c2.json"})");
  write_file(d / "c2.json", R"({"base": "c1.json"})");
  CHECK_THROWS_WITH(HwConfig::from_file((d / "c1.json").string()),
                    Catch::Contains("config bases form a cycle") && Catch::Contains("c2.json"));
  write_file(d / "bad_base.json", R"({"base": 5})");
  CHECK_THROWS_WITH(HwConfig::from_file((d / "bad_base.json").string()),
                    Catch::Contains("key 'base' must be a preset name or a config path"));
  // VTA_CONFIG takes preset names.
  ::setenv("VTA_CONFIG", "small", 1);
  CHECK(HwConfig::from_env().model_name == HwConfig::from_file(config_path("small")).model_name);
  ::unsetenv("VTA_CONFIG");
}

TEST_CASE("config hash: FNV-1a of the canonical JSON, first 12 hex digits", "[explore][config]") {
  const HwConfig cfg = HwConfig::from_file(config_path("pynq"));
  // The documented formula, written out independently.
  const std::string text = cfg.to_json().dump();
  uint64_t h = 14695981039346656037ull;
  for (unsigned char c : text) {
    h = (h ^ c) * 1099511628211ull;
  }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  CHECK(config_hash(cfg) == std::string(hex).substr(0, 12));
  // Same design, same hash, however it was written; another design, another hash.
  CHECK(resolve_config("pynq", {parse_config_override("CLOCK_MHZ=100.0")}).hash ==
        config_hash(cfg));
  CHECK(resolve_config("pynq", {parse_config_override("CLOCK_MHZ=101")}).hash != config_hash(cfg));
}

TEST_CASE("sweep specs: every error is named", "[explore][spec]") {
  const std::string w = R"("workloads": ["matmul:16x16x16"])";
  CHECK_THAT(spec_error(R"({"base": "pynq"})"), Catch::Contains("'workloads' is missing"));
  CHECK_THAT(spec_error(R"({"workloads": ["matmul:16x16x16"]})"),
             Catch::Contains("'base' must name the base config"));
  CHECK_THAT(spec_error(R"({"base": "nope", )" + w + "}"),
             Catch::Contains("unknown config 'nope'"));
  CHECK_THAT(spec_error(R"({"base": "pynq", "bogus": 1, )" + w + "}"),
             Catch::Contains("unknown key 'bogus'"));
  CHECK_THAT(spec_error(R"({"base": "pynq", "axes": {"FOO": [1]}, )" + w + "}"),
             Catch::Contains("axis 'FOO': not a config key"));
  CHECK_THAT(spec_error(R"({"base": "pynq", "axes": {"LOG_BLOCK": []}, )" + w + "}"),
             Catch::Contains("axis 'LOG_BLOCK': has no values"));
  CHECK_THAT(
      spec_error(R"({"base": "pynq", "axes": {"LOG_BLOCK": {"from": 5, "to": 4}}, )" + w + "}"),
      Catch::Contains("the range is empty"));
  CHECK_THAT(
      spec_error(R"({"base": "pynq", "axes": {"LOG_BLOCK": {"from": 1, "to": 4, "step": 0}}, )" +
                 w + "}"),
      Catch::Contains("step > 0"));
  CHECK_THAT(
      spec_error(R"({"base": "pynq", "axes": {"LOG_BLOCK": {"from": 1, "upto": 4}}, )" + w + "}"),
      Catch::Contains("unknown range key 'upto'"));
  // Integers beyond 2^53 are refused before any conversion (2^63 and above used to collapse
  // into one point labelled -9223372036854775808).
  CHECK_THAT(spec_error(R"({"base": "pynq", "axes": {"CLOCK_MHZ": [9223372036854775808, )"
                        R"(18446744073709551615]}, )" +
                        w + "}"),
             Catch::Contains("axis 'CLOCK_MHZ': value 9223372036854775808 is outside the integer "
                             "range -2^53..2^53"));
  CHECK_THAT(
      spec_error(R"({"base": "pynq", "axes": {"CLOCK_MHZ": [-9223372036854775807]}, )" + w + "}"),
      Catch::Contains("outside the integer range"));
  CHECK_THAT(spec_error(R"({"base": "pynq", "axes": {"CLOCK_MHZ": {"from": 1, "to": )"
                        R"(9223372036854775808}}, )" +
                        w + "}"),
             Catch::Contains("outside the integer range"));
  CHECK_THAT(
      spec_error(R"({"base": "pynq", "points": [{"CLOCK_MHZ": 18446744073709551615}], )" + w + "}"),
      Catch::Contains("points[0]: 'CLOCK_MHZ': value 18446744073709551615 is outside"));
  CHECK_THAT(spec_error(R"({"base": "pynq", "points": [{"X": 1}], )" + w + "}"),
             Catch::Contains("points[0]: 'X' is not a config key"));
  CHECK_THAT(spec_error(R"({"base": "pynq", "sample": {"count": 0}, )" + w + "}"),
             Catch::Contains("'sample' must be"));
  CHECK_THAT(spec_error(R"({"base": "pynq", "constraints": ["LOG_BLOCK <"], )" + w + "}"),
             Catch::Contains("constraint \"LOG_BLOCK <\": expected"));
  CHECK_THAT(spec_error(R"({"base": "pynq", "constraints": "TARGET > 1", )" + w + "}"),
             Catch::Contains("'TARGET' is not a numeric config key"));
  CHECK_THAT(
      spec_error(R"({"base": "pynq", "constraints": "LOG_BLOCK / LOG_BATCH > 1", )" + w + "}"),
      Catch::Contains("division by zero (point pynq)"));
  CHECK_THAT(spec_error(R"({"base": "pynq", "workloads": []})"),
             Catch::Contains("'workloads' must be a non-empty list"));
  CHECK_THAT(spec_error(R"({"base": "pynq", "workloads": ["matmul:1x2"]})"),
             Catch::Contains("workload 'matmul:1x2': expected matmul:MxKxN"));
  CHECK_THAT(spec_error(R"({"base": "pynq", "workloads": ["conv2d:resnet18.C99"]})"),
             Catch::Contains("unknown layer 'resnet18.C99'"));
  CHECK_THAT(spec_error(R"({"base": "pynq", "workloads": ["conv2d:c=16,q=3"]})"),
             Catch::Contains("'q=3' is not KEY=VALUE"));
  CHECK_THAT(spec_error(R"({"base": "pynq", "workloads": ["conv2d:c=64,c=32"]})"),
             Catch::Contains("workload 'conv2d:c=64,c=32': 'c=32' sets c a second time"));
  CHECK_THAT(spec_error(R"({"base": "pynq", "workloads": ["conv2d:h=8,hw=16"]})"),
             Catch::Contains("'hw=16' sets h a second time"));
  CHECK_THAT(spec_error(R"({"base": "pynq", "workloads": ["network:/no/such.json"]})"),
             Catch::Contains("/no/such.json"));
  CHECK_THAT(spec_error(R"({"base": "pynq", "workloads": ["gpu:x"]})"),
             Catch::Contains("unknown workload kind 'gpu'"));
  CHECK_THAT(spec_error(R"({"base": "pynq", "workloads": ["matmul:16x16x16", "matmul:16x16x16"]})"),
             Catch::Contains("listed twice"));
  CHECK_THAT(spec_error(R"({"base": "pynq", "backend": "gpu", )" + w + "}"),
             Catch::Contains("backend \"gpu\" is not one of the built backends"));
  CHECK_THAT(spec_error(R"({"base": "pynq", "schedule": "tune:0", )" + w + "}"),
             Catch::Contains("must be \"auto\" or \"tune:N\""));
  CHECK_THAT(spec_error(R"({"base": "pynq", "check": "yes", )" + w + "}"),
             Catch::Contains("'check' must be true or false"));
  CHECK_THAT(spec_error(R"({"base": "pynq", "seed": -1, )" + w + "}"),
             Catch::Contains("'seed' must be an integer"));
  CHECK_THAT(spec_error("[1]"), Catch::Contains("must be a JSON object"));
  CHECK_THROWS_WITH(SweepSpec::from_file("/no/such/spec.json"),
                    Catch::Contains("cannot open sweep spec '/no/such/spec.json'"));
}

TEST_CASE("sweep specs: relative paths are resolved against the spec's folder", "[explore][spec]") {
  const fs::path d = temp_dir("spec_paths");
  fs::create_directories(d / "specs");
  write_file(d / "specs/mine.json", R"({"base": "small", "CLOCK_MHZ": 50})");
  fs::copy_file(std::string(VTA_SOURCE_DIR) + "/compiler/networks/tiny_resnet.json",
                d / "specs/net.json");
  write_file(d / "specs/s.json",
             R"({"base": "mine.json", "workloads": ["network:net.json"], "backend": "fsim"})");
  const SweepSpec s = SweepSpec::from_file((d / "specs/s.json").string());
  CHECK(s.base_keys["CLOCK_MHZ"] == 50);
  CHECK(s.base_keys["LOG_BLOCK"] == HwConfig::from_file(config_path("small")).log_block);
  REQUIRE(s.workloads.size() == 1);
  CHECK(s.workloads[0].network.layers.size() > 1);
  CHECK(s.name == "s");
  CHECK(expand(s).front().keys == s.base_keys);
}

TEST_CASE("sweep expansion: grid, ranges, constraints, sample, points", "[explore][spec]") {
  const std::string w = R"("workloads": ["matmul:16x16x16"])";
  // 3 x 2 grid; the last axis varies fastest.
  const auto g = expand(spec_of(
      R"({"base": "pynq", "axes": {"LOG_BLOCK": [3, 4, 5], "LOG_BUS_WIDTH": [6, 7]}, )" + w + "}"));
  REQUIRE(g.size() == 6);
  CHECK(g[1].overrides == nlohmann::json({{"LOG_BLOCK", 3}, {"LOG_BUS_WIDTH", 7}}));
  CHECK(g[2].overrides == nlohmann::json({{"LOG_BLOCK", 4}, {"LOG_BUS_WIDTH", 6}}));
  for (size_t i = 0; i < g.size(); ++i) {
    CHECK(g[i].index == i);
    CHECK(g[i].keys["LOG_UOP_BUFF_SIZE"] == 15);  // the base's other keys
  }
  // Ranges: inclusive arithmetic (1..9 step 4 = 1, 5, 9) and geometric (16..256 x4 = 16, 64, 256).
  const auto r = expand(spec_of(
      R"({"base": "pynq", "axes": {"DRAM_READ_LATENCY_CYCLES": {"from": 1, "to": 9, "step": 4},
          "MAX_BURST_BEATS": {"from": 16, "to": 256, "times": 4}}, )" +
      w + "}"));
  REQUIRE(r.size() == 9);
  CHECK(r[0].overrides["DRAM_READ_LATENCY_CYCLES"] == 1);
  CHECK(r[8].overrides["DRAM_READ_LATENCY_CYCLES"] == 9);
  CHECK(r[8].overrides["MAX_BURST_BEATS"] == 256);
  CHECK(r[4].overrides["MAX_BURST_BEATS"] == 64);
  // Constraints: of LOG_BLOCK 1..6 x LOG_BATCH 0..3 (24), LOG_BLOCK + LOG_BATCH <= 5 keeps
  // 5 + 4 + 3 + 2 = 14; also LOG_BLOCK != 2 drops (2,0) (2,1) (2,2) (2,3): 10.
  const std::string axes =
      R"("axes": {"LOG_BLOCK": {"from": 1, "to": 6}, "LOG_BATCH": {"from": 0, "to": 3}})";
  CHECK(expand(spec_of(R"({"base": "pynq", )" + axes +
                       R"(, "constraints": "LOG_BLOCK + LOG_BATCH <= 5", )" + w + "}"))
            .size() == 14);
  CHECK(expand(spec_of(R"({"base": "pynq", )" + axes +
                       R"(, "constraints": ["LOG_BLOCK + LOG_BATCH <= 5", "LOG_BLOCK != 2"], )" +
                       w + "}"))
            .size() == 10);
  // A seeded sample: K distinct grid points in grid order, the same for the same seed.
  const auto sample = [&](int seed) {
    return expand(spec_of(R"({"base": "pynq", )" + axes + R"(, "sample": {"count": 7, "seed": )" +
                          std::to_string(seed) + "}, " + w + "}"));
  };
  const auto s1 = sample(42), s2 = sample(42), s3 = sample(43);
  REQUIRE(s1.size() == 7);
  std::set<std::string> ids;
  for (size_t i = 0; i < s1.size(); ++i) {
    CHECK(s1[i].id == s2[i].id);
    ids.insert(s1[i].id);
    if (i > 0) {  // grid order: LOG_BLOCK slowest
      const int prev = s1[i - 1].overrides["LOG_BLOCK"].get<int>() * 4 +
                       s1[i - 1].overrides["LOG_BATCH"].get<int>();
      CHECK(s1[i].overrides["LOG_BLOCK"].get<int>() * 4 + s1[i].overrides["LOG_BATCH"].get<int>() >
            prev);
    }
  }
  CHECK(ids.size() == 7);
  bool differs = false;
  for (size_t i = 0; i < s1.size(); ++i) {
    differs = differs || s1[i].id != s3[i].id;
  }
  CHECK(differs);
  // Explicit points follow the grid; a point equal to a grid point is kept once; no axes and
  // no points is the base alone.
  const auto p = expand(spec_of(R"({"base": "pynq", "axes": {"LOG_BLOCK": [4, 5]},
      "points": [{"LOG_BLOCK": 5}, {"LOG_BUS_WIDTH": 7, "CLOCK_MHZ": 200}], )" +
                                w + "}"));
  REQUIRE(p.size() == 3);
  CHECK(p[2].overrides["CLOCK_MHZ"] == 200);
  CHECK(expand(spec_of(R"({"base": "pynq", )" + w + "}")).size() == 1);
}

// A large grid is held as point positions, its points built when asked for (a 10^6-point grid
// used to take gigabytes): the size, a point far into the grid by its mixed-radix digits (the
// last axis fastest), its id equal to the id of the same keys given as an explicit point, and
// a duplicate explicit point kept once.
TEST_CASE("design space: a large grid without materialising it", "[explore][spec]") {
  const std::string w = R"("workloads": ["matmul:16x16x16"])";
  const SweepSpec s = spec_of(
      R"({"base": "pynq", "axes": {"CLOCK_MHZ": {"from": 1, "to": 100}, )"
      R"("DRAM_READ_LATENCY_CYCLES": {"from": 1, "to": 100}, "DRAM_WRITE_LATENCY_CYCLES": )"
      R"({"from": 1, "to": 20}}, "points": [{"CLOCK_MHZ": 57, "DRAM_READ_LATENCY_CYCLES": 33, )"
      R"("DRAM_WRITE_LATENCY_CYCLES": 9.0}, {"LOG_BLOCK": 5}], )" +
      w + "}");
  const DesignSpace space(s);
  REQUIRE(space.size() == 100 * 100 * 20 + 1);  // the first explicit point is a grid point
  // Index of (57, 33, 9): (57-1)*100*20 + (33-1)*20 + (9-1).
  const DesignPoint p = space.point(56 * 2000 + 32 * 20 + 8);
  CHECK(p.overrides == nlohmann::json({{"CLOCK_MHZ", 57},
                                       {"DRAM_READ_LATENCY_CYCLES", 33},
                                       {"DRAM_WRITE_LATENCY_CYCLES", 9}}));
  CHECK(p.keys["LOG_BLOCK"] == s.base_keys["LOG_BLOCK"]);
  const DesignPoint last = space.point(space.size() - 1);
  CHECK(last.overrides == nlohmann::json({{"LOG_BLOCK", 5}}));
  CHECK(last.keys["CLOCK_MHZ"] == s.base_keys["CLOCK_MHZ"]);  // explicit points start from the base
  CHECK(p.id != last.id);
}

namespace {

// The three width keys of a point as (inp, wgt, acc).
std::vector<int> widths_of(const DesignPoint& p) {
  return {p.keys["LOG_INP_WIDTH"].get<int>(), p.keys["LOG_WGT_WIDTH"].get<int>(),
          p.keys["LOG_ACC_WIDTH"].get<int>()};
}

}  // namespace

// PRECISION sets the three log2 width keys: "intN" is N-bit inputs and weights with an int32
// accumulator, "intI/intW/intA" all three (log2 of 4, 8, 16, 32 = 2, 3, 4, 5, by hand).
TEST_CASE("sweep expansion: the PRECISION axis and point key", "[explore][spec]") {
  const std::string w = R"("workloads": ["matmul:16x16x16"])";
  const auto g = expand(spec_of(
      R"({"base": "pynq", "axes": {"PRECISION": ["int4", "int8", "int16", "int4/int4/int16"],)"
      R"( "LOG_BLOCK": [4, 5]}, )" +
      w + "}"));
  REQUIRE(g.size() == 8);
  const std::vector<std::vector<int>> expected = {{2, 2, 5}, {3, 3, 5}, {4, 4, 5}, {2, 2, 4}};
  for (size_t i = 0; i < g.size(); ++i) {
    CHECK(widths_of(g[i]) == expected[i / 2]);  // PRECISION slowest, as the first axis
    CHECK(g[i].keys["LOG_BLOCK"] == 4 + int(i % 2));
    CHECK(!g[i].keys.contains("PRECISION"));  // not a config key: only its three keys are set
  }
  CHECK(g[7].overrides ==
        nlohmann::json(
            {{"LOG_INP_WIDTH", 2}, {"LOG_WGT_WIDTH", 2}, {"LOG_ACC_WIDTH", 4}, {"LOG_BLOCK", 5}}));
  // The column's spelling: short when inputs and weights agree over an int32 accumulator.
  CHECK(precision_label(g[0].keys) == "int4");
  CHECK(precision_label(g[2].keys) == "int8");
  CHECK(precision_label(g[7].keys) == "int4/int4/int16");
  CHECK(precision_label(
            nlohmann::json{{"LOG_INP_WIDTH", 2}, {"LOG_WGT_WIDTH", 4}, {"LOG_ACC_WIDTH", 5}}) ==
        "int4/int16/int32");
  CHECK(precision_label(nlohmann::json{{"LOG_INP_WIDTH", 3}}).is_null());
  // int8 is pynq's own widths: the same design (id) as the base, kept once beside it.
  const auto same = expand(spec_of(
      R"({"base": "pynq", "axes": {"PRECISION": ["int8"]}, "points": [{}, {"PRECISION": "int16"},)"
      R"( {"LOG_INP_WIDTH": 4, "LOG_WGT_WIDTH": 4}], )" +
      w + "}"));
  REQUIRE(same.size() == 2);
  CHECK(same[0].id == expand(spec_of(R"({"base": "pynq", )" + w + "}")).front().id);
  CHECK(widths_of(same[1]) == std::vector<int>{4, 4, 5});
  // Constraints see the width keys; a sample draws from the grid they set.
  const std::string axes = R"("axes": {"PRECISION": ["int4", "int8", "int16"], )"
                           R"("LOG_INP_BUFF_SIZE": [14, 15, 16]})";
  const auto paired =
      expand(spec_of(R"({"base": "pynq", )" + axes +
                     R"(, "constraints": "LOG_INP_BUFF_SIZE - LOG_INP_WIDTH == 12", )" + w + "}"));
  REQUIRE(paired.size() == 3);  // int4 at 14, int8 at 15, int16 at 16
  for (size_t i = 0; i < 3; ++i) {
    CHECK(paired[i].keys["LOG_INP_BUFF_SIZE"] == 14 + int(i));
    CHECK(paired[i].keys["LOG_INP_WIDTH"] == 2 + int(i));
  }
  const auto sampled = expand(spec_of(R"({"base": "pynq", )" + axes +
                                      R"(, "sample": {"count": 4, "seed": 3}, )" + w + "}"));
  REQUIRE(sampled.size() == 4);
  for (const DesignPoint& p : sampled) {
    CHECK(precision_label(p.keys).get<std::string>().rfind("int", 0) == 0);
  }
}

// multicore_mode (docs/multicore.md) at the top level, as an axis and in a point: the mode is
// not a config key; a split point is another design than the same keys replicated (its own
// id), while a replicated one keeps the id of a spec without the key (older databases resume).
TEST_CASE("sweep expansion: the multicore_mode key, axis and point", "[explore][spec]") {
  const std::string w = R"("workloads": ["matmul:16x16x16"])";
  const auto plain = expand(spec_of(R"({"base": "pynq", "axes": {"CORES": [2]}, )" + w + "}"));
  const auto g = expand(spec_of(
      R"({"base": "pynq", "axes": {"CORES": [2], "multicore_mode": ["replicated", "split"]},)"
      R"( "points": [{"CORES": 2, "multicore_mode": "split"}, {"CORES": 2}], )" +
      w + "}"));
  REQUIRE(g.size() == 2);  // both points repeat a grid point
  CHECK(g[0].multicore_mode == "replicated");
  CHECK(g[1].multicore_mode == "split");
  CHECK(g[0].id == plain.front().id);
  CHECK(g[1].id != g[0].id);
  for (const DesignPoint& p : g) {
    CHECK(!p.keys.contains(kMulticoreModeKey));
    CHECK(!p.overrides.contains(kMulticoreModeKey));
    CHECK(p.keys["CORES"] == 2);
  }
  // The top-level mode is every point's default; a point may set the other one.
  const auto top = expand(spec_of(R"({"base": "pynq", "multicore_mode": "split", )"
                                  R"("points": [{"CORES": 2}, {"CORES": 2, "multicore_mode": )"
                                  R"("replicated"}], )" +
                                  w + "}"));
  REQUIRE(top.size() == 2);
  CHECK(top[0].multicore_mode == "split");
  CHECK(top[0].id == g[1].id);
  CHECK(top[1].multicore_mode == "replicated");
  CHECK(top[1].id == g[0].id);
  CHECK(expand(spec_of(R"({"base": "pynq", )" + w + "}")).front().multicore_mode == "replicated");
  // Anything else is named with the modes.
  CHECK_THAT(spec_error(R"({"base": "pynq", "multicore_mode": "diagonal", )" + w + "}"),
             Catch::Contains("'multicore_mode': \"diagonal\" is not a multicore mode (one of "
                             "replicated, split)"));
  CHECK_THAT(spec_error(R"({"base": "pynq", "axes": {"multicore_mode": ["split", 2]}, )" + w + "}"),
             Catch::Contains("axis 'multicore_mode': 2 is not a multicore mode"));
  CHECK_THAT(spec_error(R"({"base": "pynq", "axes": {"multicore_mode": "split"}, )" + w + "}"),
             Catch::Contains("axis 'multicore_mode': must be a non-empty list"));
  CHECK_THAT(spec_error(R"({"base": "pynq", "points": [{"multicore_mode": "Split"}], )" + w + "}"),
             Catch::Contains("points[0]: 'multicore_mode': \"Split\" is not a multicore mode"));
}

TEST_CASE("sweep specs: PRECISION errors are named", "[explore][spec]") {
  const std::string w = R"("workloads": ["matmul:16x16x16"])";
  for (const char* bad : {R"("int3")", R"("int8/int8")", R"("float16")", "8", R"("INT8")",
                          R"("int08")", R"("int128")", R"("int4/int4/int16/int32")"}) {
    CHECK_THAT(spec_error(R"({"base": "pynq", "axes": {"PRECISION": [)" + std::string(bad) +
                          "]}, " + w + "}"),
               Catch::Contains(std::string("axis 'PRECISION': ") + bad + " is not a precision"));
  }
  CHECK_THAT(
      spec_error(R"({"base": "pynq", "axes": {"PRECISION": {"from": 4, "to": 8}}, )" + w + "}"),
      Catch::Contains("axis 'PRECISION': must be a non-empty list"));
  CHECK_THAT(spec_error(R"({"base": "pynq", "axes": {"PRECISION": ["int4"], "LOG_ACC_WIDTH": )"
                        R"([4, 5]}, )" +
                        w + "}"),
             Catch::Contains("axis 'PRECISION': sets LOG_ACC_WIDTH, which is an axis of its own"));
  CHECK_THAT(spec_error(R"({"base": "pynq", "points": [{"LOG_BLOCK": 5}, {"PRECISION": "int4", )"
                        R"("LOG_WGT_WIDTH": 3}], )" +
                        w + "}"),
             Catch::Contains("points[1]: 'PRECISION': sets LOG_WGT_WIDTH, which the point sets"));
  CHECK_THAT(spec_error(R"({"base": "pynq", "points": [{"PRECISION": "int5"}], )" + w + "}"),
             Catch::Contains("points[0]: 'PRECISION': \"int5\" is not a precision"));
}

// Widths the rule refuses are rows of status invalid with the rule's reason, not failures
// (docs/element_widths.md: int4 at pynq's byte sizes has 4096-deep buffers, which the GEMM
// instruction cannot address in 128 bits; the output lane may not be wider than the
// accumulator; accumulators are int16 or int32).
TEST_CASE("sweep jobs: illegal widths are invalid rows naming the rule", "[explore][spec]") {
  const SweepSpec s = spec_of(
      R"({"base": "pynq", "backend": "fsim", "workloads": ["matmul:16x16x16"], "axes": )"
      R"({"PRECISION": ["int4", "int8", "int16", "int32/int32/int16", "int8/int8/int8"]}})");
  const auto points = expand(s);
  REQUIRE(points.size() == 5);
  const std::vector<std::pair<std::string, std::string>> expected = {
      {"invalid", "the GEMM instruction needs 132 bits"},
      {"ok", ""},
      {"ok", ""},
      {"invalid", "LOG_INP_WIDTH = 5 is wider than LOG_ACC_WIDTH = 4"},
      {"invalid", "key 'LOG_ACC_WIDTH' = 3 is out of range [4, 5]"}};
  const std::vector<std::string> labels = {"int4", "int8", "int16", "int32/int32/int16",
                                           "int8/int8/int8"};
  for (size_t i = 0; i < points.size(); ++i) {
    const auto rows = run_job(s, SweepJob{&points[i], 0});
    CAPTURE(labels[i], rows.front().dump());
    CHECK(rows.front()["status"] == expected[i].first);
    CHECK(rows.front()["precision"] == labels[i]);
    if (!expected[i].second.empty()) {
      CHECK_THAT(rows.front()["error"].get<std::string>(), Catch::Contains(expected[i].second));
    }
  }
}

TEST_CASE("results database: replace, status, export, merge", "[explore][db]") {
  const fs::path d = temp_dir("db");
  const auto row = [](const std::string& id, int layer, const std::string& status, int cycles) {
    nlohmann::ordered_json r;
    r["point"] = std::stoi(id.substr(1));  // p1 -> 1
    r["point_id"] = id;
    r["workload"] = "matmul:16x16x16";
    r["workload_index"] = 0;
    r["backend"] = "cycle";
    r["schedule"] = "auto";
    r["layer_index"] = layer;
    r["row_kind"] = layer < 0 ? "summary" : "layer";
    r["layer"] = layer < 0 ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json("m, \"1\"");
    r["status"] = status;
    r["error"] = nullptr;
    r["cycles"] = cycles;
    r["wall_seconds"] = 0.5;
    return r;
  };
  const std::string a = (d / "a.sqlite").string();
  {
    ResultsDb db(a);
    db.write_job({row("p1", -1, "failed", 0)});
    db.write_job({row("p1", -1, "ok", 100), row("p1", 0, "ok", 100)});  // replaces the job
    db.write_job({row("p2", -1, "timeout", 0)});
    const auto st = db.job_status();
    CHECK(st.size() == 2);
    CHECK(st.at(ResultsDb::job_key("p1", "matmul:16x16x16", "cycle", "auto")).status == "ok");
    CHECK(db.rows().size() == 3);
    db.export_csv((d / "a.csv").string());
    db.export_jsonl((d / "a.jsonl").string());
  }
  std::ifstream csv(d / "a.csv");
  std::string header, line1, line2;
  std::getline(csv, header);
  std::getline(csv, line1);
  std::getline(csv, line2);
  CHECK(header ==
        "point,point_id,workload,workload_index,backend,schedule,layer_index,row_kind,layer,"
        "status,error,cycles,wall_seconds");
  CHECK(line2 == R"(1,p1,matmul:16x16x16,0,cycle,auto,0,layer,"m, ""1""",ok,,100,0.5)");
  std::ifstream jl(d / "a.jsonl");
  std::string j1;
  std::getline(jl, j1);
  CHECK(nlohmann::json::parse(j1)["cycles"] == 100);
  // Merge: an identical duplicate is fine (wall time aside), a differing one is an error that
  // leaves the output unchanged.
  const std::string b = (d / "b.sqlite").string(), c = (d / "c.sqlite").string();
  {
    ResultsDb db(b);
    auto r = row("p1", -1, "ok", 100);
    r["wall_seconds"] = 9.0;
    db.write_job({r, row("p1", 0, "ok", 100)});
    db.write_job({row("p3", -1, "ok", 7)});
  }
  {
    ResultsDb db(c);
    db.write_job({row("p1", -1, "ok", 101)});
  }
  const std::string out = (d / "out.sqlite").string();
  ResultsDb merged(out);
  CHECK(merged.merge_from(a) == 3);
  CHECK(merged.merge_from(b) == 1);
  CHECK(merged.rows().size() == 4);
  CHECK_THROWS_WITH(merged.merge_from(c),
                    Catch::Contains("with different results") && Catch::Contains("c.sqlite"));
  CHECK(merged.rows().size() == 4);
  CHECK_THROWS_WITH(merged.merge_from((d / "none.sqlite").string()),
                    Catch::Contains("no such file"));
  write_file(d / "text.sqlite", "not a database at all, but long enough to be looked at.....");
  CHECK_THROWS_WITH(ResultsDb((d / "text.sqlite").string()),
                    Catch::Contains("is not a sweep results database"));
  // Reading a database without the results table (an empty file is an empty SQLite database)
  // is an error that leaves it untouched; a missing file is not created.
  write_file(d / "empty.sqlite", "");
  CHECK_THROWS_WITH(ResultsDb((d / "empty.sqlite").string(), ResultsDb::Mode::kReadOnly),
                    Catch::Contains("is not a sweep results database"));
  CHECK(fs::file_size(d / "empty.sqlite") == 0);
  CHECK_THROWS_WITH(ResultsDb((d / "absent.sqlite").string(), ResultsDb::Mode::kReadOnly),
                    Catch::Contains("no such file"));
  CHECK_FALSE(fs::exists(d / "absent.sqlite"));
}

TEST_CASE("shards partition the points: disjoint, union = the sweep", "[explore][spec]") {
  const auto pts = expand(spec_of(
      R"({"base": "pynq", "axes": {"LOG_BLOCK": [3, 4, 5], "DRAM_READ_LATENCY_CYCLES": {"from": 1, "to": 7}},
          "workloads": ["matmul:16x16x16"]})"));
  REQUIRE(pts.size() == 21);
  for (size_t n : {1, 2, 5, 30}) {
    std::multiset<std::string> all;
    for (size_t i = 1; i <= n; ++i) {
      for (const DesignPoint& p : pts) {
        if (p.index % n == i - 1) {  // the rule of sweep_runner.cc
          all.insert(p.id);
        }
      }
    }
    CHECK(all.size() == pts.size());
    CHECK(std::set<std::string>(all.begin(), all.end()).size() == pts.size());
  }
}
