#include "vta/sim/dram_spec.h"

#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "vta/sim/error.h"
#include "vta/sim/memory_model.h"

namespace vta {

namespace {

// The parameter sets. Values: configs/README.md ("DRAM parameter sets") gives the part and the
// speed bin of each, and how the nCK values follow from the datasheet's nanoseconds.
DramSpec ddr3_1066_pynq() {
  DramSpec d;
  d.preset = "PYNQ-Z1-DDR3-1066-x16";
  d.standard = "DDR3";
  d.channels = 1, d.ranks = 1, d.bank_groups = 1, d.banks = 8, d.rows = 32768, d.columns = 1024;
  d.bus_bits = 16, d.burst_length = 8, d.tck_ps = 1875;
  d.cl = 7, d.cwl = 6, d.rcd = 7, d.rp = 7, d.ras = 20, d.rc = 27, d.wr = 8, d.rtp = 4;
  d.wtr = 4, d.rrd = 6, d.faw = 27, d.ccd = 4, d.refi = 4160, d.rfc = 139;
  d.address_map = "RoRaBaBgCoCh";
  d.interconnect_ns = 40;
  return d;
}

DramSpec ddr3_800_de10nano() {
  DramSpec d;
  d.preset = "DE10-Nano-DDR3-800-x32";
  d.standard = "DDR3";
  d.channels = 1, d.ranks = 1, d.bank_groups = 1, d.banks = 8, d.rows = 32768, d.columns = 1024;
  d.bus_bits = 32, d.burst_length = 8, d.tck_ps = 2500;
  d.cl = 6, d.cwl = 5, d.rcd = 6, d.rp = 6, d.ras = 15, d.rc = 21, d.wr = 6, d.rtp = 4;
  d.wtr = 4, d.rrd = 4, d.faw = 20, d.ccd = 4, d.refi = 3120, d.rfc = 104;
  d.address_map = "RoRaBaBgCoCh";
  d.interconnect_ns = 40;
  return d;
}

DramSpec ddr4_2400_zcu104() {
  DramSpec d;
  d.preset = "ZCU104-DDR4-2400-x64";
  d.standard = "DDR4";
  d.channels = 1, d.ranks = 1, d.bank_groups = 2, d.banks = 4, d.rows = 32768, d.columns = 1024;
  d.bus_bits = 64, d.burst_length = 8, d.tck_ps = 833;
  d.cl = 16, d.cwl = 12, d.rcd = 16, d.rp = 16, d.ras = 39, d.rc = 55, d.wr = 18, d.rtp = 9;
  d.wtr = 9, d.rrd = 7, d.rrd_l = 8, d.faw = 36, d.ccd = 4, d.ccd_l = 6;
  d.refi = 9363, d.rfc = 313;
  d.address_map = "RoRaBaBgCoCh";
  d.interconnect_ns = 30;
  return d;
}

DramSpec lpddr4_2133_ultra96() {
  DramSpec d;
  d.preset = "Ultra96-LPDDR4-2133-x32";
  d.standard = "LPDDR4";
  d.channels = 2, d.ranks = 2, d.bank_groups = 1, d.banks = 8, d.rows = 32768, d.columns = 1024;
  d.bus_bits = 16, d.burst_length = 16, d.tck_ps = 938;
  d.cl = 20, d.cwl = 10, d.rcd = 20, d.rp = 20, d.ras = 45, d.rc = 65, d.wr = 20, d.rtp = 8;
  d.wtr = 11, d.rrd = 11, d.faw = 43, d.ccd = 8, d.refi = 4162, d.rfc = 192;
  d.address_map = "RoRaBaBgChCo";
  d.interconnect_ns = 30;
  return d;
}

struct PresetEntry {
  const char* name;
  const char* target;  // the board config that uses it
  DramSpec (*make)();
};

const PresetEntry kPresets[] = {
    {"PYNQ-Z1-DDR3-1066-x16", "pynq", &ddr3_1066_pynq},
    {"Ultra96-LPDDR4-2133-x32", "ultra96", &lpddr4_2133_ultra96},
    {"ZCU104-DDR4-2400-x64", "zcu104", &ddr4_2400_zcu104},
    {"DE10-Nano-DDR3-800-x32", "de10nano", &ddr3_800_de10nano},
};

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

}  // namespace

std::vector<std::string> dram_preset_names() {
  std::vector<std::string> out;
  for (const PresetEntry& p : kPresets) {
    out.emplace_back(p.name);
  }
  return out;
}

DramSpec dram_preset(const std::string& name, const std::string& src) {
  for (const PresetEntry& p : kPresets) {
    if (name == p.name) {
      return p.make();
    }
  }
  throw ConfigError(fmt::format("{}: key 'DRAM_PRESET' = \"{}\" is not one of {}", src, name,
                                fmt::join(dram_preset_names(), ", ")));
}

std::string default_dram_preset(const std::string& target) {
  for (const PresetEntry& p : kPresets) {
    if (target == p.target) {
      return p.name;
    }
  }
  return kPresets[0].name;
}

std::vector<std::string> dram_spec_keys() {
  std::vector<std::string> keys = {"DRAM_PRESET", "DRAM_PAGE_POLICY", "DRAM_SCHEDULER",
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
  const std::string preset = j.contains("DRAM_PRESET")
                                 ? string_value(j["DRAM_PRESET"], "DRAM_PRESET", src)
                                 : default_dram_preset(target);
  m.dram = dram_preset(preset, src);
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
    m.dram.*(f.field) = static_cast<int>(x);
  }
  parse_string_fields(j, m.dram, src);
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
    j[f.key] = m.dram.*(f.field);
  }
  j["DRAM_PAGE_POLICY"] = m.dram.open_page ? "open" : "closed";
  j["DRAM_SCHEDULER"] = m.dram.frfcfs ? "frfcfs" : "fcfs";
  j["DRAM_ADDRESS_MAP"] = m.dram.address_map;
  j["DRAM_INTERCONNECT_NS"] = m.dram.interconnect_ns;
}

}  // namespace vta
