#include "vta/sim/dram_spec.h"

#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "vta/sim/board_facts.h"
#include "vta/sim/error.h"
#include "vta/sim/memory_model.h"

namespace vta {

namespace {

// The board table's section holding each board's DRAM parameter set (its name and DRAM_* keys;
// configs/README.md, "DRAM parameter sets", gives the part and speed bin of each).
const char* const kParameterSet = "dram_parameter_set";

struct IntField {
  const char* key;
  int DramSpec::*field;
  int min, max;
};

const IntField kIntFields[] = {
    {"DRAM_CHANNELS", &DramSpec::channels, 1, 16},
    {"DRAM_RANKS", &DramSpec::ranks, 1, 8},
    {"DRAM_BANK_GROUPS", &DramSpec::bank_groups, 1, 8},
    {"DRAM_BANKS", &DramSpec::banks, 1, 64},
    {"DRAM_ROWS", &DramSpec::rows, 2, 1 << 20},
    {"DRAM_COLUMNS", &DramSpec::columns, 8, 1 << 16},
    {"DRAM_BUS_BITS", &DramSpec::bus_bits, 8, 1024},
    {"DRAM_BURST_LENGTH", &DramSpec::burst_length, 2, 32},
    {"DRAM_TCK_PS", &DramSpec::tck_ps, 100, 100000},
    {"DRAM_CL", &DramSpec::cl, 1, 1000},
    {"DRAM_CWL", &DramSpec::cwl, 1, 1000},
    {"DRAM_TRCD", &DramSpec::rcd, 1, 1000},
    {"DRAM_TRP", &DramSpec::rp, 1, 1000},
    {"DRAM_TRAS", &DramSpec::ras, 1, 1000},
    {"DRAM_TRC", &DramSpec::rc, 1, 2000},
    {"DRAM_TWR", &DramSpec::wr, 1, 1000},
    {"DRAM_TRTP", &DramSpec::rtp, 1, 1000},
    {"DRAM_TWTR", &DramSpec::wtr, 1, 1000},
    {"DRAM_TWTR_L", &DramSpec::wtr_l, 0, 1000},
    {"DRAM_TRTW", &DramSpec::rtw, 0, 1000},
    {"DRAM_TRRD", &DramSpec::rrd, 1, 1000},
    {"DRAM_TRRD_L", &DramSpec::rrd_l, 0, 1000},
    {"DRAM_TFAW", &DramSpec::faw, 1, 4000},
    {"DRAM_TCCD", &DramSpec::ccd, 1, 1000},
    {"DRAM_TCCD_L", &DramSpec::ccd_l, 0, 1000},
    {"DRAM_TREFI", &DramSpec::refi, 100, 1 << 20},
    {"DRAM_TRFC", &DramSpec::rfc, 1, 10000},
    {"DRAM_QUEUE_DEPTH", &DramSpec::queue_depth, 1, 1024},
};

bool is_pow2(int v) {
  return v > 0 && (v & (v - 1)) == 0;
}

std::string string_value(const nlohmann::json& v, const char* key, const std::string& src) {
  if (!v.is_string()) {
    throw ConfigError(fmt::format("{}: key '{}' must be a string, got {}", src, key, v.dump()));
  }
  return v.get<std::string>();
}

// One of `choices` for key `key`; throws naming the choices.
std::string choice(const nlohmann::json& v, const char* key, const std::vector<std::string>& ch,
                   const std::string& src) {
  const std::string s = string_value(v, key, src);
  for (const std::string& c : ch) {
    if (s == c) {
      return s;
    }
  }
  throw ConfigError(
      fmt::format("{}: key '{}' = \"{}\" is not one of {}", src, key, s, fmt::join(ch, ", ")));
}

// The string fields: the address map, page policy and scheduler.
void parse_string_fields(const nlohmann::json& j, DramSpec& d, const std::string& src) {
  if (j.contains("DRAM_PAGE_POLICY")) {
    d.open_page =
        choice(j["DRAM_PAGE_POLICY"], "DRAM_PAGE_POLICY", {"open", "closed"}, src) == "open";
  }
  if (j.contains("DRAM_SCHEDULER")) {
    d.frfcfs = choice(j["DRAM_SCHEDULER"], "DRAM_SCHEDULER", {"frfcfs", "fcfs"}, src) == "frfcfs";
  }
  if (j.contains("DRAM_REQUEST_ORDER")) {
    d.out_of_order = choice(j["DRAM_REQUEST_ORDER"], "DRAM_REQUEST_ORDER",
                            {"in_order", "out_of_order"}, src) == "out_of_order";
  }
  if (j.contains("DRAM_ADDRESS_MAP")) {
    d.address_map = string_value(j["DRAM_ADDRESS_MAP"], "DRAM_ADDRESS_MAP", src);
  }
  if (j.contains("DRAM_INTERCONNECT_NS")) {
    const auto& v = j["DRAM_INTERCONNECT_NS"];
    if (!v.is_number() || !(v.get<double>() >= 0 && v.get<double>() <= 100000)) {  // NaN too
      throw ConfigError(fmt::format(
          "{}: key 'DRAM_INTERCONNECT_NS' = {} must be a number in [0, 100000]", src, v.dump()));
    }
    d.interconnect_ns = v.get<double>();
  }
}

// The fields of an address map ("RoRaBaBgCoCh"): each of Ro, Ra, Ba, Bg, Co, Ch exactly once.
void check_address_map(const std::string& map, const std::string& src) {
  const char* const fields[] = {"Ro", "Ra", "Ba", "Bg", "Co", "Ch"};
  bool ok = map.size() == 12;
  for (const char* f : fields) {
    int n = 0;
    for (size_t p = 0; p + 1 < map.size(); p += 2) {
      n += map.compare(p, 2, f) == 0 ? 1 : 0;
    }
    ok = ok && n == 1;
  }
  if (!ok) {
    throw ConfigError(fmt::format(
        "{}: key 'DRAM_ADDRESS_MAP' = \"{}\" must name each of Ro, Ra, Ba, Bg, Co, Ch once "
        "(most significant first), e.g. \"RoRaBaBgCoCh\"",
        src, map));
  }
}

// Sets the fields of the DRAM_* keys `j` holds (a config, or a parameter set of the board
// table); throws naming `src` and the key for a wrong type or an out-of-range value.
void apply_dram_keys(const nlohmann::json& j, DramSpec& d, const std::string& src) {
  for (const IntField& f : kIntFields) {
    if (!j.contains(f.key)) {
      continue;
    }
    const auto& v = j[f.key];
    if (!v.is_number_integer()) {
      throw ConfigError(
          fmt::format("{}: key '{}' must be an integer, got {}", src, f.key, v.dump()));
    }
    const int64_t x = v.get<int64_t>();
    if (x < f.min || x > f.max) {
      throw ConfigError(
          fmt::format("{}: key '{}' = {} is out of range [{}, {}]", src, f.key, x, f.min, f.max));
    }
    d.*(f.field) = static_cast<int>(x);
  }
  parse_string_fields(j, d, src);
}

}  // namespace

std::vector<std::string> dram_preset_names() {
  std::vector<std::string> out;
  for (const nlohmann::json& b : board_entries()) {
    if (b.contains(kParameterSet)) {
      out.push_back(b[kParameterSet].at("name").get<std::string>());
    }
  }
  return out;
}

DramSpec dram_preset(const std::string& name, const std::string& src) {
  for (const nlohmann::json& b : board_entries()) {
    if (b.contains(kParameterSet) && b[kParameterSet].at("name") == name) {
      DramSpec d;
      d.preset = name;
      d.standard = b.at("dram").at("standard").get<std::string>();
      apply_dram_keys(b[kParameterSet].at("keys"), d, "board table (sim/board_data/boards.json)");
      return d;
    }
  }
  throw ConfigError(fmt::format("{}: key 'DRAM_PRESET' = \"{}\" is not one of {}", src, name,
                                fmt::join(dram_preset_names(), ", ")));
}

std::string default_dram_preset(const std::string& target) {
  return board_section(target, kParameterSet).at("name").get<std::string>();
}

std::vector<std::string> dram_spec_keys() {
  std::vector<std::string> keys = {"DRAM_PRESET",      "DRAM_PAGE_POLICY",
                                   "DRAM_SCHEDULER",   "DRAM_REQUEST_ORDER",
                                   "DRAM_ADDRESS_MAP", "DRAM_INTERCONNECT_NS"};
  for (const IntField& f : kIntFields) {
    keys.emplace_back(f.key);
  }
  return keys;
}

bool is_memory_key(const std::string& key) {
  const std::vector<std::string> keys = dram_spec_keys();
  return key == "MEMORY_MODEL" || std::find(keys.begin(), keys.end(), key) != keys.end();
}

double dram_stream_efficiency(const DramSpec& d, bool write) {
  const int stop = write ? d.wr + d.rp + d.rfc + d.rcd + d.cwl : d.rp + d.rfc + d.rcd + d.cl;
  return std::max(0.0, 1.0 - double(stop) / double(std::max(1, d.refi)));
}

void check_dram_spec(const DramSpec& d, const std::string& src) {
  const std::pair<const char*, int> pow2[] = {{"DRAM_CHANNELS", d.channels},
                                              {"DRAM_RANKS", d.ranks},
                                              {"DRAM_BANK_GROUPS", d.bank_groups},
                                              {"DRAM_BANKS", d.banks},
                                              {"DRAM_ROWS", d.rows},
                                              {"DRAM_COLUMNS", d.columns},
                                              {"DRAM_BUS_BITS", d.bus_bits},
                                              {"DRAM_BURST_LENGTH", d.burst_length}};
  for (const auto& [key, v] : pow2) {
    if (!is_pow2(v)) {
      throw ConfigError(fmt::format("{}: key '{}' = {} must be a power of two", src, key, v));
    }
  }
  if (d.columns < d.burst_length) {
    throw ConfigError(fmt::format("{}: key 'DRAM_COLUMNS' = {} is less than DRAM_BURST_LENGTH {}",
                                  src, d.columns, d.burst_length));
  }
  if (d.rc < d.ras + d.rp) {
    throw ConfigError(fmt::format(
        "{}: key 'DRAM_TRC' = {} is less than DRAM_TRAS + DRAM_TRP = {} (JEDEC: tRC >= tRAS + tRP)",
        src, d.rc, d.ras + d.rp));
  }
  if (d.refi <= d.rfc) {
    throw ConfigError(
        fmt::format("{}: key 'DRAM_TREFI' = {} must exceed DRAM_TRFC = {}", src, d.refi, d.rfc));
  }
  if (d.rtw_ck() < 1) {
    throw ConfigError(
        fmt::format("{}: DRAM_CL + DRAM_BURST_LENGTH/2 + 2 - DRAM_CWL < 1: set "
                    "key 'DRAM_TRTW'",
                    src));
  }
  check_address_map(d.address_map, src);
}

MemorySpec parse_memory_spec(const nlohmann::json& j, const std::string& target,
                             const std::string& src) {
  MemorySpec m;
  for (auto it = j.begin(); it != j.end(); ++it) {
    m.explicit_keys = m.explicit_keys || is_memory_key(it.key());
  }
  if (j.contains("MEMORY_MODEL")) {
    m.model = choice(j["MEMORY_MODEL"], "MEMORY_MODEL", memory_model_names(), src);
  }
  m.description = find_memory_model_description(m.model);
  const std::string preset = j.contains("DRAM_PRESET")
                                 ? string_value(j["DRAM_PRESET"], "DRAM_PRESET", src)
                                 : default_dram_preset(target);
  m.dram = dram_preset(preset, src);
  apply_dram_keys(j, m.dram, src);
  check_dram_spec(m.dram, src);
  return m;
}

void memory_spec_to_json(const MemorySpec& m, nlohmann::json& j) {
  if (!m.explicit_keys) {
    return;
  }
  j["MEMORY_MODEL"] = m.model;
  j["DRAM_PRESET"] = m.dram.preset;
  for (const IntField& f : kIntFields) {
    // DRAM_TWTR_L came later: unset (0 = tWTR) it stays out, so configs keep their hash.
    if (std::string(f.key) != "DRAM_TWTR_L" || m.dram.wtr_l != 0) {
      j[f.key] = m.dram.*(f.field);
    }
  }
  j["DRAM_PAGE_POLICY"] = m.dram.open_page ? "open" : "closed";
  j["DRAM_SCHEDULER"] = m.dram.frfcfs ? "frfcfs" : "fcfs";
  if (m.dram.out_of_order) {  // came later: in order it stays out, so configs keep their hash
    j["DRAM_REQUEST_ORDER"] = "out_of_order";
  }
  j["DRAM_ADDRESS_MAP"] = m.dram.address_map;
  j["DRAM_INTERCONNECT_NS"] = m.dram.interconnect_ns;
}

}  // namespace vta
