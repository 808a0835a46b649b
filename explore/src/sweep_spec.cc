#include "vta/explore/sweep_spec.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <sstream>
#include <unordered_set>

#include <fmt/format.h>

#include "vta/backend_factory.h"
#include "vta/sim/config_source.h"
#include "vta/sim/input_file.h"
#include "vta/sim/system_config.h"
#include "vta/sim/text_hash.h"

namespace vta::explore {

namespace fs = std::filesystem;

namespace {

const char* const kSpecKeys[] = {
    "name",        "base",  "axes", "points", "sample", "workloads", "backend",        "schedule",
    "constraints", "check", "seed", "calib",  "quant",  "input",     kMulticoreModeKey};

// Integers of axes and points are exact in a double (constraints compute in doubles) and convert
// to int64 without overflow: |v| <= 2^53. Checked before any conversion.
constexpr double kAxisIntegerLimit = 9007199254740992.0;

void check_axis_value(const nlohmann::json& v, const std::string& where) {
  const bool too_big_unsigned =
      v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(kAxisIntegerLimit);
  const bool too_big_signed = v.is_number_integer() && !v.is_number_unsigned() &&
                              std::fabs(static_cast<double>(v.get<int64_t>())) > kAxisIntegerLimit;
  if (too_big_unsigned || too_big_signed) {
    throw SpecError(
        fmt::format("{}: value {} is outside the integer range -2^53..2^53", where, v.dump()));
  }
  if (v.is_number_float() && !std::isfinite(v.get<double>())) {
    throw SpecError(fmt::format("{}: value {} is not a finite number", where, v.dump()));
  }
}

// {"from": A, "to": B, "step": S} (inclusive, S > 0, default 1) or {"from", "to", "times": F}
// (geometric, F > 1): the values of a range axis.
std::vector<nlohmann::json> range_values(const nlohmann::ordered_json& r,
                                         const std::string& where) {
  for (auto it = r.begin(); it != r.end(); ++it) {
    if (it.key() != "from" && it.key() != "to" && it.key() != "step" && it.key() != "times") {
      throw SpecError(
          fmt::format("{}: unknown range key '{}' (from, to, step or times)", where, it.key()));
    }
  }
  if (!r.contains("from") || !r.contains("to") || !r["from"].is_number() || !r["to"].is_number() ||
      (r.contains("step") && r.contains("times"))) {
    throw SpecError(where +
                    ": a range needs numbers \"from\" and \"to\" and at most one of "
                    "\"step\" and \"times\"");
  }
  const bool integral = r["from"].is_number_integer() && r["to"].is_number_integer() &&
                        (!r.contains("step") || r["step"].is_number_integer()) &&
                        (!r.contains("times") || r["times"].is_number_integer());
  for (const char* k : {"from", "to", "step", "times"}) {
    if (r.contains(k)) {
      check_axis_value(r[k], fmt::format("{}: \"{}\"", where, k));
    }
  }
  const double from = r["from"].get<double>(), to = r["to"].get<double>();
  if (integral && (std::fabs(from) > kAxisIntegerLimit || std::fabs(to) > kAxisIntegerLimit)) {
    throw SpecError(where + ": an integer range must stay within -2^53..2^53");
  }
  const double step = r.contains("step") ? r["step"].get<double>() : 1;
  const double times = r.contains("times") ? r["times"].get<double>() : 0;
  if (r.contains("times") ? !(times > 1 && from > 0) : !(step > 0)) {
    throw SpecError(where + ": a range needs step > 0, or times > 1 with from > 0");
  }
  std::vector<nlohmann::json> out;
  for (double v = from; v <= to * (1 + 1e-12); v = times > 0 ? v * times : v + step) {
    out.push_back(integral ? nlohmann::json(static_cast<int64_t>(std::llround(v)))
                           : nlohmann::json(v));
    if (out.size() > 100000) {
      throw SpecError(where + ": a range of more than 100000 values");
    }
  }
  if (out.empty()) {
    throw SpecError(where + ": the range is empty (from > to)");
  }
  return out;
}

const char* const kWidthKeys[] = {"LOG_INP_WIDTH", "LOG_WGT_WIDTH", "LOG_ACC_WIDTH"};

// log2 of the N of "intN" (N a power of two, 1..64), or -1.
int lane_log2(const std::string& text) {
  if (text.size() < 4 || text.size() > 5 || text.rfind("int", 0) != 0 ||
      !std::all_of(text.begin() + 3, text.end(), [](char c) { return c >= '0' && c <= '9'; }) ||
      text[3] == '0') {
    return -1;
  }
  const int n = std::stoi(text.substr(3));
  for (int log = 0; log <= 6; ++log) {
    if (n == 1 << log) {
      return log;
    }
  }
  return -1;
}

// A PRECISION axis: each value becomes the object of the three width keys it sets; a width key
// may not be an axis of its own beside it.
SweepAxis precision_axis(const nlohmann::ordered_json& axes, const nlohmann::ordered_json& values,
                         const std::string& where) {
  for (const char* k : kWidthKeys) {
    if (axes.contains(k)) {
      throw SpecError(fmt::format("{}: sets {}, which is an axis of its own too", where, k));
    }
  }
  if (!values.is_array() || values.empty()) {
    throw SpecError(where + ": must be a non-empty list such as [\"int4\", \"int8\", \"int16\"]");
  }
  SweepAxis a{kPrecisionKey, {}};
  for (const auto& v : values) {
    a.values.push_back(precision_keys(v, where));
  }
  return a;
}

// A key of the base config, or a system key (CORES, INTERCONNECT_*: docs/multicore.md) that a
// single-core base does not set; an illegal value of either is the point's config error.
bool is_spec_config_key(const SweepSpec& s, const std::string& key) {
  return s.base_keys.contains(key) || is_system_key(key);
}

// A CORES value that lists the cores' overrides ([{}, {"LOG_BLOCK": 5}]) rather than a count.
bool is_core_list(const std::string& key, const nlohmann::json& v) {
  return key == "CORES" && v.is_array();
}

// A multicore_mode axis: a non-empty list of modes, each checked.
SweepAxis multicore_mode_axis(const nlohmann::ordered_json& values, const std::string& where) {
  if (!values.is_array() || values.empty()) {
    throw SpecError(where + ": must be a non-empty list such as [\"replicated\", \"split\"]");
  }
  SweepAxis a{kMulticoreModeKey, {}};
  for (const auto& v : values) {
    a.values.push_back(multicore_mode_of(v, where));
  }
  return a;
}

void parse_axes(SweepSpec& s, const nlohmann::ordered_json& axes) {
  if (!axes.is_object()) {
    throw SpecError(s.source + ": 'axes' must be an object: config key -> list of values or range");
  }
  for (auto it = axes.begin(); it != axes.end(); ++it) {
    const std::string where = fmt::format("{}: axis '{}'", s.source, it.key());
    if (it.key() == kPrecisionKey && !s.base_keys.contains(it.key())) {
      s.axes.push_back(precision_axis(axes, *it, where));
      continue;
    }
    if (it.key() == kMulticoreModeKey) {
      s.axes.push_back(multicore_mode_axis(*it, where));
      continue;
    }
    if (!is_spec_config_key(s, it.key())) {
      throw SpecError(where + ": not a config key");
    }
    SweepAxis a{it.key(), {}};
    if (it->is_array()) {
      for (const auto& v : *it) {
        if (is_core_list(it.key(), v)) {  // CORES: a list of per-core overrides is one value
          a.values.push_back(v);
          continue;
        }
        if (!v.is_primitive() || v.is_null()) {
          throw SpecError(fmt::format("{}: value {} is not a number or string", where, v.dump()));
        }
        check_axis_value(v, where);
        a.values.push_back(v);
      }
    } else if (it->is_object()) {
      a.values = range_values(*it, where);
    } else {
      throw SpecError(where + ": must be a list of values or a range {\"from\", \"to\", ...}");
    }
    if (a.values.empty()) {
      throw SpecError(where + ": has no values");
    }
    s.axes.push_back(std::move(a));
  }
}

void parse_points(SweepSpec& s, const nlohmann::ordered_json& points) {
  if (!points.is_array()) {
    throw SpecError(s.source + ": 'points' must be a list of objects (config key -> value)");
  }
  for (size_t i = 0; i < points.size(); ++i) {
    const auto& p = points[i];
    if (!p.is_object()) {
      throw SpecError(fmt::format("{}: points[{}] must be an object", s.source, i));
    }
    nlohmann::json point = nlohmann::json::object();
    for (auto it = p.begin(); it != p.end(); ++it) {
      const std::string where = fmt::format("{}: points[{}]: '{}'", s.source, i, it.key());
      if (it.key() == kPrecisionKey && !s.base_keys.contains(it.key())) {
        continue;
      }
      if (it.key() == kMulticoreModeKey) {
        point[it.key()] = multicore_mode_of(*it, where);
        continue;
      }
      if (!is_spec_config_key(s, it.key())) {
        throw SpecError(
            fmt::format("{}: points[{}]: '{}' is not a config key", s.source, i, it.key()));
      }
      check_axis_value(*it, where);
      point[it.key()] = *it;
    }
    if (p.contains(kPrecisionKey) && !s.base_keys.contains(kPrecisionKey)) {
      const std::string where = fmt::format("{}: points[{}]: '{}'", s.source, i, kPrecisionKey);
      for (const char* k : kWidthKeys) {
        if (p.contains(k)) {
          throw SpecError(fmt::format("{}: sets {}, which the point sets too", where, k));
        }
      }
      point.update(precision_keys(p[kPrecisionKey], where));
    }
    s.points.push_back(std::move(point));
  }
}

bool is_count(const nlohmann::ordered_json& v, int64_t min) {
  return v.is_number_integer() && v.get<int64_t>() >= min;
}

void parse_sample(SweepSpec& s, const nlohmann::ordered_json& j) {
  SweepSample smp;
  if (!j.is_object() || !j.contains("count") || !is_count(j["count"], 1) ||
      (j.contains("seed") && !is_count(j["seed"], 0)) ||
      j.size() != 1 + (j.contains("seed") ? 1u : 0u)) {
    throw SpecError(s.source + ": 'sample' must be {\"count\": K >= 1, \"seed\": S >= 0}");
  }
  smp.count = j["count"].get<size_t>();
  smp.seed = j.contains("seed") ? j["seed"].get<uint64_t>() : 1;
  s.sample = smp;
}

void parse_constraints(SweepSpec& s, const nlohmann::ordered_json& j) {
  std::vector<std::string> numeric;
  for (auto it = s.base_keys.begin(); it != s.base_keys.end(); ++it) {
    if (it->is_number()) {
      numeric.push_back(it.key());
    }
  }
  const nlohmann::ordered_json list = j.is_string() ? nlohmann::ordered_json::array({j}) : j;
  if (!list.is_array()) {
    throw SpecError(s.source + ": 'constraints' must be an expression or a list of them");
  }
  for (const auto& c : list) {
    if (!c.is_string()) {
      throw SpecError(s.source + ": constraint " + c.dump() + " is not a string");
    }
    try {
      s.constraints.push_back(ConstraintExpr::parse(c.get<std::string>(), numeric));
    } catch (const Error& e) {
      throw SpecError(s.source + ": " + e.what());
    }
  }
}

void parse_run_keys(SweepSpec& s, const nlohmann::ordered_json& j) {
  if (j.contains("backend")) {
    s.backend = j["backend"].is_string() ? j["backend"].get<std::string>() : "";
    const auto avail = available_backends();
    if (std::find(avail.begin(), avail.end(), s.backend) == avail.end()) {
      throw SpecError(fmt::format("{}: backend {} is not one of the built backends ({})", s.source,
                                  j["backend"].dump(), fmt::join(avail, ", ")));
    }
  }
  if (j.contains("schedule")) {
    const std::string v = j["schedule"].is_string() ? j["schedule"].get<std::string>() : "";
    size_t used = 0;
    long n = 0;
    if (v.rfind("tune:", 0) == 0) {
      try {
        n = std::stol(v.substr(5), &used);
      } catch (const std::exception&) {
        used = 0;
      }
    }
    if (v != "auto" && (used == 0 || used != v.size() - 5 || n < 1 || n > 1000)) {
      throw SpecError(fmt::format("{}: schedule {} must be \"auto\" or \"tune:N\" (N in 1..1000)",
                                  s.source, j["schedule"].dump()));
    }
    s.schedule = v;
    s.tune = v == "auto" ? 0 : static_cast<size_t>(n);
  }
  if (j.contains("check")) {
    if (!j["check"].is_boolean()) {
      throw SpecError(s.source + ": 'check' must be true or false");
    }
    s.check = j["check"].get<bool>();
  }
  if (j.contains("seed")) {
    if (!is_count(j["seed"], 0)) {
      throw SpecError(s.source + ": 'seed' must be an integer >= 0");
    }
    s.seed = j["seed"].get<uint64_t>();
  }
}

// calib, quant and input: how network:MODEL.onnx workloads are quantized (read before them).
void parse_model_keys(SweepSpec& s, const nlohmann::ordered_json& j, const std::string& dir) {
  if (j.contains("calib")) {
    if (!j["calib"].is_number_integer() || !is_count(j["calib"], 1) ||
        j["calib"].get<uint64_t>() > 1000) {
      throw SpecError(fmt::format("{}: 'calib' = {} must be an integer in 1..1000", s.source,
                                  j["calib"].dump()));
    }
    s.quant.calib = j["calib"].get<int>();
  }
  if (j.contains("quant")) {
    if (!j["quant"].is_string()) {
      throw SpecError(
          fmt::format("{}: 'quant' = {} must be a string such as \"max\" or "
                      "\"percentile,per-channel\"",
                      s.source, j["quant"].dump()));
    }
    try {
      s.quant.set_quant(j["quant"].get<std::string>());
    } catch (const Error& e) {
      throw SpecError(fmt::format("{}: 'quant': {}", s.source, e.what()));
    }
  }
  if (j.contains("input")) {
    if (!j["input"].is_string() || j["input"].get<std::string>().empty()) {
      throw SpecError(fmt::format("{}: 'input' = {} must name a raw float32 file", s.source,
                                  j["input"].dump()));
    }
    const fs::path local = fs::path(dir) / j["input"].get<std::string>();
    const bool in_dir =
        !dir.empty() && fs::path(j["input"].get<std::string>()).is_relative() && fs::exists(local);
    s.input = in_dir ? local.string() : j["input"].get<std::string>();
    try {
      s.input_id = short_hash(read_input_file(s.input, "input file", kMaxModelInputBytes));
    } catch (const Error& e) {
      throw SpecError(fmt::format("{}: input: {}", s.source, e.what()));
    }
  }
}

void parse_workloads(SweepSpec& s, const nlohmann::ordered_json& j, const std::string& dir) {
  if (!j.is_array() || j.empty()) {
    throw SpecError(s.source +
                    ": 'workloads' must be a non-empty list such as "
                    "[\"network:resnet18\", \"conv2d:resnet18.C8\", \"matmul:64x256x100\"]");
  }
  std::set<std::string> seen;
  for (const auto& w : j) {
    if (!w.is_string()) {
      throw SpecError(s.source + ": workload " + w.dump() + " is not a string");
    }
    if (!seen.insert(w.get<std::string>()).second) {
      throw SpecError(s.source + ": workload '" + w.get<std::string>() + "' is listed twice");
    }
    try {
      s.workloads.push_back(SweepWorkload::parse(w.get<std::string>(), dir, s.input));
    } catch (const Error& e) {
      throw SpecError(s.source + ": " + e.what());
    }
  }
}

std::string keys_id(const nlohmann::json& keys) {
  nlohmann::json norm = keys;  // 100 and 100.0 are the same design
  for (auto& v : norm) {
    if (v.is_number_float() && std::floor(v.get<double>()) == v.get<double>() &&
        std::fabs(v.get<double>()) < kAxisIntegerLimit) {
      v = static_cast<int64_t>(v.get<double>());
    }
  }
  return short_hash(norm.dump());
}

}  // namespace

std::string multicore_mode_of(const nlohmann::json& value, const std::string& where) {
  std::string text = value.is_string() ? value.get<std::string>() : "";
  if (std::find(std::begin(kMulticoreModes), std::end(kMulticoreModes), text) ==
      std::end(kMulticoreModes)) {
    throw SpecError(fmt::format("{}: {} is not a multicore mode (one of {})", where, value.dump(),
                                fmt::join(kMulticoreModes, ", ")));
  }
  return text;
}

nlohmann::json precision_keys(const nlohmann::json& value, const std::string& where) {
  const std::string text = value.is_string() ? value.get<std::string>() : "";
  std::vector<std::string> parts;
  for (size_t at = 0, slash = 0; slash != std::string::npos; at = slash + 1) {
    slash = text.find('/', at);
    parts.push_back(text.substr(at, slash == std::string::npos ? slash : slash - at));
  }
  std::vector<int> logs;
  logs.reserve(parts.size());
  for (const std::string& part : parts) {
    logs.push_back(lane_log2(part));
  }
  const bool ok = (parts.size() == 1 || parts.size() == 3) &&
                  std::none_of(logs.begin(), logs.end(), [](int l) { return l < 0; });
  if (!ok) {
    throw SpecError(fmt::format(
        "{}: {} is not a precision: \"intN\" (inputs and weights N bits, accumulator 32) or "
        "\"intI/intW/intA\" (input, weight, accumulator), N a power of two in 1..64",
        where, value.dump()));
  }
  if (parts.size() == 1) {
    logs = {logs[0], logs[0], 5};
  }
  return {{kWidthKeys[0], logs[0]}, {kWidthKeys[1], logs[1]}, {kWidthKeys[2], logs[2]}};
}

nlohmann::json precision_label(const nlohmann::json& keys) {
  int logs[3];
  for (int i = 0; i < 3; ++i) {
    const auto it = keys.find(kWidthKeys[i]);
    const double v = it != keys.end() && it->is_number() ? it->get<double>() : -1;
    if (v < 0 || v > 30 || std::floor(v) != v) {
      return nullptr;  // not a width the label can spell
    }
    logs[i] = static_cast<int>(v);
  }
  if (logs[0] == logs[1] && logs[2] == 5) {
    return fmt::format("int{}", 1 << logs[0]);
  }
  return fmt::format("int{}/int{}/int{}", 1 << logs[0], 1 << logs[1], 1 << logs[2]);
}

SweepSpec SweepSpec::from_file(const std::string& path) {
  std::string text;
  try {
    text = read_input_file(path, "sweep spec", kMaxJsonInputBytes);
  } catch (const Error& e) {
    throw SpecError(e.what());
  }
  nlohmann::ordered_json j;
  try {
    j = nlohmann::ordered_json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw SpecError(fmt::format("{}: invalid JSON: {}", path, e.what()));
  }
  return from_json(j, path, fs::path(path).parent_path().string());
}

SweepSpec SweepSpec::from_json(const nlohmann::ordered_json& j, const std::string& source,
                               const std::string& dir) {
  SweepSpec s;
  s.source = source;
  if (!j.is_object()) {
    throw SpecError(source + ": a sweep spec must be a JSON object");
  }
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (std::find(std::begin(kSpecKeys), std::end(kSpecKeys), it.key()) == std::end(kSpecKeys)) {
      throw SpecError(fmt::format("{}: unknown key '{}' (known: {})", source, it.key(),
                                  fmt::join(kSpecKeys, ", ")));
    }
  }
  s.name = j.contains("name") && j["name"].is_string() ? j["name"].get<std::string>()
                                                       : fs::path(source).stem().string();
  if (!j.contains("base") || !j["base"].is_string()) {
    throw SpecError(source + ": 'base' must name the base config (a preset or a config path)");
  }
  s.base = j["base"].get<std::string>();
  const fs::path local = fs::path(dir) / s.base;
  if (!is_preset_name(s.base) && fs::path(s.base).is_relative() && !dir.empty()) {
    s.base = local.string();
  }
  try {
    s.base_keys = load_config_source(s.base).keys;
  } catch (const Error& e) {
    throw SpecError(fmt::format("{}: base: {}", source, e.what()));
  }
  parse_axes(s, j.value("axes", nlohmann::ordered_json::object()));
  parse_points(s, j.value("points", nlohmann::ordered_json::array()));
  if (j.contains("sample")) {
    parse_sample(s, j["sample"]);
  }
  parse_constraints(s, j.value("constraints", nlohmann::ordered_json::array()));
  if (!j.contains("workloads")) {
    throw SpecError(source + ": 'workloads' is missing");
  }
  parse_model_keys(s, j, dir);
  parse_workloads(s, j["workloads"], dir);
  if (!s.input.empty() && std::none_of(s.workloads.begin(), s.workloads.end(),
                                       [](const SweepWorkload& w) { return w.onnx; })) {
    throw SpecError(source +
                    ": 'input' applies to network:MODEL.onnx workloads, and the spec "
                    "has none");
  }
  parse_run_keys(s, j);
  if (j.contains(kMulticoreModeKey)) {
    s.multicore_mode =
        multicore_mode_of(j[kMulticoreModeKey], fmt::format("{}: '{}'", source, kMulticoreModeKey));
  }
  return s;
}

size_t grid_size(const SweepSpec& spec) {
  size_t n = 1;
  for (const SweepAxis& a : spec.axes) {
    n *= a.values.size();
  }
  return n;
}

namespace {

size_t checked_grid_size(const SweepSpec& spec) {
  const size_t grid = spec.axes.empty() && !spec.points.empty() ? 0 : grid_size(spec);
  if (grid > 10'000'000) {
    throw SpecError(
        fmt::format("{}: the grid has {} points (at most 10000000)", spec.source, grid));
  }
  return grid;
}

// `count` of `items` drawn with partial Fisher-Yates over mt19937_64 (whose output the C++
// standard fixes), kept in their order: the same seed gives the same sample on every platform.
std::vector<uint64_t> sample_of(const std::vector<uint64_t>& items, size_t count, uint64_t seed) {
  if (count >= items.size()) {
    return items;
  }
  std::mt19937_64 rng(seed);
  std::vector<size_t> idx(items.size());
  for (size_t i = 0; i < idx.size(); ++i) {
    idx[i] = i;
  }
  for (size_t i = 0; i < count; ++i) {
    std::swap(idx[i], idx[i + rng() % (idx.size() - i)]);
  }
  idx.resize(count);
  std::sort(idx.begin(), idx.end());
  std::vector<uint64_t> out;
  out.reserve(count);
  for (size_t i : idx) {
    out.push_back(items[i]);
  }
  return out;
}

// 100 and 100.0 are the same design: integral floats as integers (ids and duplicates).
void normalize_number(nlohmann::json& v) {
  if (v.is_number_float() && std::floor(v.get<double>()) == v.get<double>() &&
      std::fabs(v.get<double>()) < kAxisIntegerLimit) {
    v = static_cast<int64_t>(v.get<double>());
  }
}

// A point's complete keys, kept in one object whose overridden values are assigned in place
// (no copy of the base keys per point), normalised for ids and duplicate detection.
class PointKeys {
 public:
  explicit PointKeys(const SweepSpec& spec) : m_spec(spec) { restore_base(); }
  // Sets `overrides` (other keys back to the base first when `reset`) and tells whether every
  // constraint holds.
  bool set(const nlohmann::json& overrides, bool reset) {
    if (reset) {
      restore_base();
    }
    for (auto it = overrides.begin(); it != overrides.end(); ++it) {
      nlohmann::json& v = m_keys[it.key()] = it.value();
      normalize_number(v);
    }
    for (const ConstraintExpr& c : m_spec.constraints) {
      try {
        if (!c.holds(m_keys)) {
          return false;
        }
      } catch (const Error& e) {
        nlohmann::json config = m_keys;  // the point's config keys, without its mode
        config.erase(kMulticoreModeKey);
        throw SpecError(fmt::format("{}: {} (point {})", m_spec.source, e.what(),
                                    config_label(m_spec.base, m_spec.base_keys, config)));
      }
    }
    return true;
  }
  // The bits of keys_id: equal ids <=> equal 48-bit prefixes of the hash.
  uint64_t id_bits() const { return fnv1a_64(m_keys.dump()) >> 16; }

 private:
  // The base's keys and the spec's multicore_mode (the same config in two modes is two designs).
  void restore_base() {
    m_keys = m_spec.base_keys;
    for (auto& v : m_keys) {
      normalize_number(v);
    }
    m_keys[kMulticoreModeKey] = m_spec.multicore_mode;
  }

  const SweepSpec& m_spec;
  nlohmann::json m_keys;
};

}  // namespace

DesignSpace::DesignSpace(const SweepSpec& spec) : m_spec(spec), m_grid(checked_grid_size(spec)) {
  PointKeys keys(spec);
  std::vector<uint64_t> kept;
  for (uint64_t g = 0; g < m_grid; ++g) {
    if (keys.set(overrides_of(g), false)) {  // every grid point sets the same keys
      kept.push_back(g);
    }
  }
  if (spec.sample) {
    kept = sample_of(kept, spec.sample->count, spec.sample->seed);
  }
  for (uint64_t i = 0; i < spec.points.size(); ++i) {
    if (keys.set(spec.points[i], true)) {
      kept.push_back(m_grid + i);
    }
  }
  std::unordered_set<uint64_t> seen;
  bool first = true;  // grid points come first: after the first, only explicit ones need a reset
  for (const uint64_t source : kept) {
    keys.set(overrides_of(source), first || source >= m_grid);
    first = false;
    if (seen.insert(keys.id_bits()).second) {
      m_sources.push_back(source);
    }
  }
}

nlohmann::json DesignSpace::overrides_of(uint64_t source) const {
  if (source >= m_grid) {
    return m_spec.points[source - m_grid];
  }
  nlohmann::json o = nlohmann::json::object();
  uint64_t rest = source;  // mixed-radix digits, the last axis fastest
  for (size_t a = m_spec.axes.size(); a-- > 0;) {
    const nlohmann::json& v = m_spec.axes[a].values[rest % m_spec.axes[a].values.size()];
    if (v.is_object()) {  // PRECISION: the three width keys
      o.update(v);
    } else {
      o[m_spec.axes[a].key] = v;
    }
    rest /= m_spec.axes[a].values.size();
  }
  return o;
}

DesignPoint DesignSpace::point(size_t index) const {
  DesignPoint p;
  p.index = index;
  p.overrides = overrides_of(m_sources.at(index));
  p.keys = m_spec.base_keys;
  p.multicore_mode = p.overrides.value(kMulticoreModeKey, m_spec.multicore_mode);
  p.overrides.erase(kMulticoreModeKey);
  for (auto it = p.overrides.begin(); it != p.overrides.end(); ++it) {
    p.keys[it.key()] = it.value();
  }
  if (p.multicore_mode == "replicated") {
    p.id = keys_id(p.keys);
  } else {  // the mode is part of the design (replicated ids stay those of older databases)
    nlohmann::json with_mode = p.keys;
    with_mode[kMulticoreModeKey] = p.multicore_mode;
    p.id = keys_id(with_mode);
  }
  return p;
}

std::vector<DesignPoint> expand(const SweepSpec& spec) {
  const DesignSpace space(spec);
  std::vector<DesignPoint> out;
  out.reserve(space.size());
  for (size_t i = 0; i < space.size(); ++i) {
    out.push_back(space.point(i));
  }
  return out;
}

}  // namespace vta::explore
