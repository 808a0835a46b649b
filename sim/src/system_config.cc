#include "vta/sim/system_config.h"

#include <algorithm>
#include <iterator>
#include <vector>

#include <fmt/format.h>

#include "vta/sim/error.h"
#include "vta/sim/json_read.h"

namespace vta {

namespace {

// One core's datapath, SRAMs, queues and DMA burst rules: what may differ between cores.
const char* const kPerCoreKeys[] = {
    "LOG_INP_WIDTH",     "LOG_WGT_WIDTH",     "LOG_ACC_WIDTH",        "LOG_BATCH",
    "LOG_BLOCK",         "LOG_UOP_BUFF_SIZE", "LOG_INP_BUFF_SIZE",    "LOG_WGT_BUFF_SIZE",
    "LOG_ACC_BUFF_SIZE", "MAX_BURST_BEATS",   "BURST_BOUNDARY_BYTES", "INSN_QUEUE_DEPTH",
    "DEP_QUEUE_DEPTH"};
const char* const kSystemKeys[] = {"CORES", "INTERCONNECT_LATENCY_CYCLES",
                                   "INTERCONNECT_BYTES_PER_CYCLE", "INTERCONNECT_ARBITRATION"};
constexpr int kMaxCores = 16;
constexpr int kMaxInterconnectLatency = 100000;
constexpr int kMaxInterconnectBytes = 4096;

// json_int32 as a ConfigError (the message names the key).
int config_int(const nlohmann::json& v, const std::string& what, int lo, int hi) {
  try {
    return json_int32(v, what, lo, hi);
  } catch (const ConfigError&) {
    throw;
  } catch (const Error& e) {
    throw ConfigError(e.what());
  }
}

// Core k of a CORES list: the shared keys with the entry's overrides.
HwConfig core_from_entry(const nlohmann::json& shared, const nlohmann::json& entry,
                         const std::string& where) {
  if (!entry.is_object()) {
    throw ConfigError(
        fmt::format("{} must be an object of per-core keys, got {}", where, entry.dump()));
  }
  nlohmann::json merged = shared;
  for (auto it = entry.begin(); it != entry.end(); ++it) {
    if (!is_per_core_key(it.key())) {
      throw ConfigError(fmt::format(
          "{}: key '{}' cannot differ between cores (they share one DRAM, bus and clock); a "
          "CORES entry may set {}",
          where, it.key(), fmt::join(std::begin(kPerCoreKeys), std::end(kPerCoreKeys), ", ")));
    }
    merged[it.key()] = it.value();
  }
  return HwConfig::from_json(merged, where);
}

// The per-core configs CORES describes; `shared_core` is the config of the shared keys.
std::vector<HwConfig> read_cores(const nlohmann::json& j, const std::string& src,
                                 const HwConfig& shared_core) {
  const nlohmann::json& cores = j.at("CORES");
  if (!cores.is_array()) {
    const int n = config_int(cores, fmt::format("{}: key 'CORES'", src), 1, kMaxCores);
    return std::vector<HwConfig>(static_cast<size_t>(n), shared_core);
  }
  if (cores.empty() || cores.size() > static_cast<size_t>(kMaxCores)) {
    throw ConfigError(fmt::format("{}: key 'CORES' lists {} cores; a system has 1 to {}", src,
                                  cores.size(), kMaxCores));
  }
  const nlohmann::json shared = without_system_keys(j);
  std::vector<HwConfig> out;
  for (size_t k = 0; k < cores.size(); ++k) {
    out.push_back(core_from_entry(shared, cores[k], fmt::format("{}: CORES[{}]", src, k)));
  }
  return out;
}

// INTERCONNECT_ARBITRATION: "fixed" (core order), the one arbitration the cycle model and the
// rtl backend both give exactly. A rotating priority would need every request of a cycle before
// granting any; holding a core's requests back within a cycle changed the data networks computed
// on the cycle model, so it is not offered (docs/multicore.md).
void check_arbitration(const nlohmann::json& j, const std::string& src) {
  if (!j.contains("INTERCONNECT_ARBITRATION") || j.at("INTERCONNECT_ARBITRATION") == "fixed") {
    return;
  }
  throw ConfigError(fmt::format(
      "{}: key 'INTERCONNECT_ARBITRATION' = {} is not available; the interconnect grants the "
      "requests of one cycle in core order (\"fixed\")",
      src, j.at("INTERCONNECT_ARBITRATION").dump()));
}

}  // namespace

bool is_system_key(const std::string& key) {
  return std::find(std::begin(kSystemKeys), std::end(kSystemKeys), key) != std::end(kSystemKeys);
}

bool is_per_core_key(const std::string& key) {
  return std::find(std::begin(kPerCoreKeys), std::end(kPerCoreKeys), key) != std::end(kPerCoreKeys);
}

nlohmann::json without_system_keys(const nlohmann::json& j) {
  nlohmann::json out = j;
  for (const char* k : kSystemKeys) {
    out.erase(k);
  }
  return out;
}

void parse_system_keys(const nlohmann::json& j, const std::string& src, HwConfig& c) {
  if (!j.contains("CORES")) {
    for (const char* k : kSystemKeys) {
      if (j.contains(k)) {
        throw ConfigError(fmt::format(
            "{}: key '{}' needs CORES (without it the config is one core with no interconnect)",
            src, k));
      }
    }
    return;
  }
  std::vector<HwConfig> cores = read_cores(j, src, c);
  const auto opt = [&](const char* key, int lo, int hi, int dflt) {
    return j.contains(key) ? config_int(j.at(key), fmt::format("{}: key '{}'", src, key), lo, hi)
                           : dflt;
  };
  HwConfig sys = cores.front();  // this object's own core keys: core 0's
  sys.interconnect_latency_cycles =
      opt("INTERCONNECT_LATENCY_CYCLES", 0, kMaxInterconnectLatency, 0);
  sys.interconnect_bytes_per_cycle =
      opt("INTERCONNECT_BYTES_PER_CYCLE", 1, kMaxInterconnectBytes, c.bus_bytes);
  check_arbitration(j, src);
  sys.cores = static_cast<int>(cores.size());
  sys.core_configs = std::move(cores);
  c = std::move(sys);
}

void system_keys_to_json(const HwConfig& c, nlohmann::json& j) {
  if (c.cores == 0) {
    return;
  }
  const nlohmann::json first = c.core_configs.front().to_json();
  bool same = true;
  nlohmann::json list = nlohmann::json::array();
  for (const HwConfig& core : c.core_configs) {
    const nlohmann::json keys = core.to_json();
    same = same && keys == first;
    nlohmann::json entry = nlohmann::json::object();
    for (const char* k : kPerCoreKeys) {
      entry[k] = keys.at(k);
    }
    list.push_back(entry);
  }
  j["CORES"] = same ? nlohmann::json(c.cores) : list;
  j["INTERCONNECT_LATENCY_CYCLES"] = c.interconnect_latency_cycles;
  j["INTERCONNECT_BYTES_PER_CYCLE"] = c.interconnect_bytes_per_cycle;
}

}  // namespace vta
