// Where a hardware config comes from, before HwConfig sees it: a preset name or a JSON file,
// whose "base" key may start it from another preset or file (relative paths resolved against
// the including file), plus KEY=VALUE overrides (--set). Everything is merged as JSON and then
// validated once by HwConfig::from_json, so HwConfig stays immutable and every error names the
// key. Also the config's identity in reports: the complete keys, a short stable hash and a
// label that names what differs from the base (configs/README.md documents all three).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "vta/sim/hw_config.h"

namespace vta {

// One KEY=VALUE override. VALUE is read as JSON (5, 2.5, true, "text") and, when it is not
// JSON, as a plain string (TARGET=ultra96).
struct ConfigOverride {
  std::string key;
  nlohmann::json value;
};
// Throws ConfigError naming the text when it is not KEY=VALUE with a non-empty KEY.
ConfigOverride parse_config_override(const std::string& text);

// Where preset names are found: $VTA_CONFIG_DIR, else <executable>/../share/vta/configs of an
// installed program, else the source tree's configs/.
std::string preset_config_dir();
std::vector<std::string> preset_config_names();
// True when `v` is used as a preset name: no '/', no ".json" and no file of that name.
bool is_preset_name(const std::string& v);

// The JSON keys of a preset or file with its "base" chain merged (the file's own keys override
// its base's). `root` is the chain's first config: its name for a preset, its path otherwise.
struct ConfigSource {
  std::string root;
  nlohmann::json root_keys;  // the root's own keys
  nlohmann::json keys;       // merged, without "base"
};
// Throws ConfigError for an unknown preset, a missing or invalid file, a "base" that is not a
// string, or a cycle of bases (naming the chain).
ConfigSource load_config_source(const std::string& name_or_path);

// A validated config with its identity.
struct ResolvedConfig {
  HwConfig config;
  nlohmann::json keys;  // every key of the config (HwConfig::to_json)
  std::string hash;     // config_hash(config)
  std::string label;    // config_label(...)
};
// Loads `name_or_path` ("" = $VTA_CONFIG, itself a preset name or a path, else the built-in
// default), applies the overrides in order and validates the result. Errors name the source,
// and for an override "--set KEY".
ResolvedConfig resolve_config(const std::string& name_or_path,
                              const std::vector<ConfigOverride>& overrides);
// Same over given keys (for example a program image's embedded config).
ResolvedConfig resolve_config_keys(const std::string& root, const nlohmann::json& keys,
                                   const std::vector<ConfigOverride>& overrides);

// First 12 hex digits of the 64-bit FNV-1a hash of the config's canonical JSON (every key,
// sorted by name, no spaces: nlohmann::json::dump() of HwConfig::to_json()).
std::string config_hash(const HwConfig& cfg);
// "<root>" when `keys` equal the root's keys, else "<root>+KEY=VALUE,..." listing every key
// that differs, sorted by name (e.g. "pynq+LOG_BLOCK=5,LOG_BUS_WIDTH=7"). A root given as a
// path is shown by its file name without ".json".
std::string config_label(const std::string& root, const nlohmann::json& root_keys,
                         const nlohmann::json& keys);

}  // namespace vta
