#include "vta/sim/config_source.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "vta/sim/error.h"
#include "vta/sim/input_file.h"
#include "vta/sim/system_config.h"
#include "vta/sim/text_hash.h"

namespace vta {

extern const char* const kDefaultConfigJson;  // configs/pynq.json, compiled in

namespace fs = std::filesystem;

namespace {

nlohmann::json parse_config_text(const std::string& text, const std::string& src) {
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw ConfigError(fmt::format("{}: invalid JSON: {}", src, e.what()));
  }
}

nlohmann::json read_config_file(const std::string& path) {
  std::string text;
  try {
    text = read_input_file(path, "config file", kMaxJsonInputBytes);
  } catch (const ConfigError&) {
    throw;
  } catch (const Error& e) {
    throw ConfigError(e.what());
  }
  nlohmann::json j = parse_config_text(text, path);
  if (!j.is_object()) {
    throw ConfigError(path + ": a config must be a JSON object");
  }
  return j;
}

// True when `v`, read from a file in `dir` ("" = the working directory), names a file rather
// than a preset.
bool names_file(const std::string& v, const fs::path& dir) {
  return v.find('/') != std::string::npos || v.find(".json") != std::string::npos ||
         fs::exists(dir.empty() ? fs::path(v) : dir / v);
}

// The file of a preset; "" for the built-in pynq when no preset file exists.
std::string preset_file(const std::string& v) {
  std::string preset = preset_config_dir() + "/" + v + ".json";
  if (fs::exists(preset)) {
    return preset;
  }
  if (v == "pynq" || v == "default") {
    return "";
  }
  std::string known;
  for (const std::string& n : preset_config_names()) {
    known += (known.empty() ? "" : ", ") + n;
  }
  throw ConfigError(fmt::format("unknown config '{}': not a file and not a preset ({})", v,
                                known.empty() ? "pynq" : known));
}

// Loads `v` (a relative path against `dir`, the including file's folder) and its bases;
// `chain` holds the files being loaded, to report a cycle. Returns the merged keys and sets
// out.root / out.root_keys from the chain's last config.
nlohmann::json load_chain(const std::string& v, const fs::path& dir,
                          std::vector<std::string>& chain, ConfigSource& out) {
  const bool is_file = names_file(v, dir);
  std::string file = is_file ? (dir.empty() ? v : (dir / v).string()) : preset_file(v);
  if (file.empty()) {
    out.root = "pynq";
    out.root_keys = parse_config_text(kDefaultConfigJson, "built-in configs/pynq.json");
    return out.root_keys;
  }
  std::error_code ec;
  const std::string canon = fs::weakly_canonical(file, ec).string();
  const bool cycle = std::find(chain.begin(), chain.end(), canon) != chain.end();
  chain.push_back(canon);
  if (cycle) {
    throw ConfigError(fmt::format("config bases form a cycle: {}", fmt::join(chain, " -> ")));
  }
  nlohmann::json j = read_config_file(file);
  if (!j.contains("base")) {
    out.root = is_file ? file : v;
    out.root_keys = j;
    return j;
  }
  const nlohmann::json base = j["base"];
  if (!base.is_string() || base.get<std::string>().empty()) {
    throw ConfigError(fmt::format("{}: key 'base' must be a preset name or a config path, got {}",
                                  file, base.dump()));
  }
  j.erase("base");
  nlohmann::json merged =
      load_chain(base.get<std::string>(), fs::path(file).parent_path(), chain, out);
  for (auto it = j.begin(); it != j.end(); ++it) {
    merged[it.key()] = it.value();
  }
  return merged;
}

// Applies the overrides to `keys` (each key must exist) and validates the result.
ResolvedConfig resolve(const std::string& source, const std::string& root,
                       const nlohmann::json& root_keys, const nlohmann::json& keys,
                       const std::vector<ConfigOverride>& overrides) {
  nlohmann::json j = keys;
  std::string set_keys;
  for (const ConfigOverride& o : overrides) {
    // The optional memory-model keys (dram_spec.h) and system keys (CORES, INTERCONNECT_*:
    // system_config.h) may be set on a config that lacks them.
    if (!j.contains(o.key) && !is_memory_key(o.key) && !is_system_key(o.key)) {
      throw ConfigError(fmt::format("{}: --set {}: unknown key '{}'", source, o.key, o.key));
    }
    j[o.key] = o.value;
    set_keys += (set_keys.empty() ? "" : ", ") + fmt::format("--set {}", o.key);
  }
  const std::string shown = set_keys.empty() ? source : source + " with " + set_keys;
  ResolvedConfig r{HwConfig::from_json(j, shown), {}, {}, {}};
  r.keys = r.config.to_json();
  r.hash = config_hash(r.config);
  r.label = config_label(root, root_keys, j);
  return r;
}

bool same_value(const nlohmann::json& a, const nlohmann::json& b) {
  if (a.is_number() && b.is_number()) {
    return a.get<double>() == b.get<double>();
  }
  return a == b;
}

std::string label_value(const nlohmann::json& v) {
  if (v.is_string()) {
    return v.get<std::string>();
  }
  if (v.is_number_float() && std::floor(v.get<double>()) == v.get<double>() &&
      std::fabs(v.get<double>()) < 9.0e18) {  // within int64: the conversion is defined
    return fmt::format("{}", static_cast<int64_t>(v.get<double>()));
  }
  return v.dump();
}

}  // namespace

ConfigOverride parse_config_override(const std::string& text) {
  const size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0) {
    throw ConfigError(fmt::format("--set '{}' must be KEY=VALUE", text));
  }
  ConfigOverride o;
  o.key = text.substr(0, eq);
  const std::string value = text.substr(eq + 1);
  o.value = nlohmann::json::parse(value, nullptr, false);
  if (o.value.is_discarded()) {
    o.value = value;
  }
  return o;
}

std::string preset_config_dir() {
  const char* env = std::getenv("VTA_CONFIG_DIR");
  if (env != nullptr && *env != '\0') {
    return env;
  }
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  const fs::path installed = exe.parent_path().parent_path() / "share/vta/configs";
  if (!ec && fs::is_directory(installed, ec)) {
    return installed.string();
  }
  return VTA_PRESET_CONFIG_DIR;
}

std::vector<std::string> preset_config_names() {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(preset_config_dir(), ec)) {
    if (e.path().extension() == ".json") {
      names.push_back(e.path().stem().string());
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

bool is_preset_name(const std::string& v) {
  return !names_file(v, {});
}

ConfigSource load_config_source(const std::string& name_or_path) {
  ConfigSource out;
  std::vector<std::string> chain;
  out.keys = load_chain(name_or_path, {}, chain, out);
  return out;
}

ResolvedConfig resolve_config_keys(const std::string& root, const nlohmann::json& keys,
                                   const std::vector<ConfigOverride>& overrides) {
  return resolve(root, root, keys, keys, overrides);
}

ResolvedConfig resolve_config(const std::string& name_or_path,
                              const std::vector<ConfigOverride>& overrides) {
  std::string v = name_or_path;
  if (v.empty()) {
    const char* env = std::getenv("VTA_CONFIG");
    v = env != nullptr && *env != '\0' ? env : "pynq";
  }
  const ConfigSource src = load_config_source(v);
  return resolve(v, src.root, src.root_keys, src.keys, overrides);
}

std::string config_hash(const HwConfig& cfg) {
  return short_hash(cfg.to_json().dump());
}

std::string config_label(const std::string& root, const nlohmann::json& root_keys,
                         const nlohmann::json& keys) {
  const std::string name = is_preset_name(root) ? root : fs::path(root).stem().string();
  std::vector<std::string> diffs;
  for (auto it = keys.begin(); it != keys.end(); ++it) {
    if (!root_keys.contains(it.key()) || !same_value(root_keys.at(it.key()), it.value())) {
      diffs.push_back(it.key() + "=" + label_value(it.value()));
    }
  }
  std::sort(diffs.begin(), diffs.end());
  return diffs.empty() ? name : name + "+" + fmt::format("{}", fmt::join(diffs, ","));
}

}  // namespace vta
