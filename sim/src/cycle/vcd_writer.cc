#include "vcd_writer.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include <fmt/format.h>

#include "vta/sim/error.h"
#include "vta/sim/vcd_limit.h"

namespace vta::cycle {

namespace {

struct SignalDef {
  const char* name;
  int width;
};
const SignalDef kSignals[kNumVcdSignals] = {
    {"fetch_dispatched", 32}, {"queue_load", 16},   {"queue_compute", 16}, {"queue_store", 16},
    {"tok_l2g", 16},          {"tok_g2l", 16},      {"tok_s2g", 16},       {"tok_g2s", 16},
    {"state_load", 2},        {"state_compute", 2}, {"state_store", 2},    {"insn_load", 32},
    {"insn_compute", 32},     {"insn_store", 32},
};

int width_of(int sig) {
  return kSignals[sig % kNumVcdSignals].width;
}

// VCD identifier of signal k: printable characters from '!', one for the first 94 signals (a
// lone core's), then as many as the number needs in base 94.
std::string vcd_id(int k) {
  std::string id;
  do {
    id += static_cast<char>('!' + k % 94);
    k /= 94;
  } while (k != 0);
  return id;
}

size_t vcd_id_length(int k) {
  size_t n = 1;
  for (; k >= 94; k /= 94) {
    ++n;
  }
  return n;
}

std::string vcd_value(uint64_t v, int width) {
  std::string s = "b";
  bool started = false;
  for (int b = width - 1; b >= 0; --b) {
    const bool bit = (v >> b) & 1;
    if (bit || started || b == 0) {
      s += bit ? '1' : '0';
      started = true;
    }
  }
  return s;
}

}  // namespace

void VcdWriter::open(const std::string& path, uint64_t start, uint64_t end, double clock_mhz,
                     uint64_t limit_bytes, std::vector<std::string> scopes) {
  if (end <= start) {
    throw Error(fmt::format("VCD window [{}, {}) is empty", start, end));
  }
  m_path = path;
  m_scopes = std::move(scopes);
  m_start = start;
  m_end = end;
  m_header = false;
  m_changes.clear();
  m_limit = limit_bytes;
  m_bytes = 0;
  m_count_t = UINT64_MAX;
  m_counted.assign(static_cast<size_t>(num_signals()), UINT64_MAX);
  m_cut = UINT64_MAX;
  m_at_start.assign(static_cast<size_t>(num_signals()), 0);
  m_written = m_at_start;
  // One time unit is one clock period when $timescale can say it (1, 10 or 100 of a unit),
  // otherwise picoseconds (the period rounded to a whole picosecond).
  const double period_ps = 1e6 / clock_mhz;
  m_timescale = "1 ps";
  m_units_per_cycle = std::max<uint64_t>(1, static_cast<uint64_t>(std::llround(period_ps)));
  const std::pair<const char*, double> kScales[] = {{"1 ps", 1},   {"10 ps", 10},  {"100 ps", 100},
                                                    {"1 ns", 1e3}, {"10 ns", 1e4}, {"100 ns", 1e5},
                                                    {"1 us", 1e6}, {"10 us", 1e7}, {"100 us", 1e8}};
  for (const auto& [scale, ps] : kScales) {
    if (std::fabs(ps - period_ps) < 1e-9 * period_ps) {
      m_timescale = scale;
      m_units_per_cycle = 1;
      break;
    }
  }
  m_file = std::ofstream(path, std::ios::out | std::ios::trunc);
  if (!m_file) {
    throw Error("cannot write VCD file '" + path + "'");
  }
}

void VcdWriter::change(int scope, int sig, uint64_t t, uint64_t value) {
  if (t >= m_end) {
    return;
  }
  const int g = scope * kNumVcdSignals + sig;
  uint64_t& counted = m_counted[static_cast<size_t>(g)];
  if (t >= m_start && value != counted) {
    // "b<bits> <id>\n"; past the limit the change is only counted, for the estimate
    counted = value;
    const uint64_t bits = value == 0 ? 1 : 64 - static_cast<uint64_t>(__builtin_clzll(value));
    m_bytes += bits + 3 + vcd_id_length(g);  // leading zeros are not written
    if (t != m_count_t) {  // a "#<time>\n" line (changes arrive almost in time order)
      m_bytes += 10;
      m_count_t = t;
    }
    if (m_limit != 0 && m_bytes > m_limit) {
      m_cut = std::min(m_cut, t);
    }
  }
  if (t < m_cut) {
    m_changes.push_back(Change{t, g, value});
  }
}

void VcdWriter::flush(uint64_t now) {
  std::stable_sort(m_changes.begin(), m_changes.end(),
                   [](const Change& a, const Change& b) { return a.t < b.t; });
  if (!m_header) {
    // Changes up to the window start set the values $dumpvars shows.
    size_t k = 0;
    for (; k < m_changes.size() && m_changes[k].t <= m_start; ++k) {
      m_at_start[static_cast<size_t>(m_changes[k].sig)] = m_changes[k].value;
    }
    m_changes.erase(m_changes.begin(), m_changes.begin() + static_cast<std::ptrdiff_t>(k));
    if (now >= m_start || !m_changes.empty()) {
      write_header();
    }
  }
  if (m_header) {
    write_changes();
  }
  m_changes.clear();
  m_file.flush();
  if (!m_file) {
    throw Error("cannot write VCD file '" + m_path + "'");
  }
  if (m_cut != UINT64_MAX) {
    throw_vcd_over_limit(VcdOverLimit{m_path, m_limit, m_bytes, m_cut, m_start, m_end, "counted"});
  }
}

void VcdWriter::write_header() {
  std::ofstream& f = m_file;
  f << "$comment VTA cycle model; time stamps are clock cycles"
    << (m_units_per_cycle == 1 ? "" : fmt::format(" times {} ps", m_units_per_cycle)) << " $end\n";
  f << "$timescale " << m_timescale << " $end\n";
  for (size_t s = 0; s < m_scopes.size(); ++s) {
    f << "$scope module " << m_scopes[s] << " $end\n";
    for (int k = 0; k < kNumVcdSignals; ++k) {
      const int g = static_cast<int>(s) * kNumVcdSignals + k;
      f << fmt::format("$var wire {} {} {} $end\n", kSignals[k].width, vcd_id(g), kSignals[k].name);
    }
    f << "$upscope $end\n";
  }
  f << "$enddefinitions $end\n";
  f << "#" << m_start * m_units_per_cycle << "\n$dumpvars\n";
  for (int g = 0; g < num_signals(); ++g) {
    f << vcd_value(m_at_start[static_cast<size_t>(g)], width_of(g)) << " " << vcd_id(g) << "\n";
  }
  f << "$end\n";
  m_written = m_at_start;
  m_header = true;
  m_last_t = m_start;
}

// Writes the sorted changes in time order: per signal and time stamp only the last value, and
// only if it differs from the value written before.
void VcdWriter::write_changes() {
  for (size_t k = 0; k < m_changes.size();) {
    const uint64_t t = std::max(m_changes[k].t, m_last_t);
    std::vector<uint64_t> at_t = m_written;
    for (; k < m_changes.size() && std::max(m_changes[k].t, m_last_t) == t; ++k) {
      at_t[static_cast<size_t>(m_changes[k].sig)] = m_changes[k].value;
    }
    bool stamped = false;
    for (int g = 0; g < num_signals(); ++g) {
      const auto i = static_cast<size_t>(g);
      if (at_t[i] == m_written[i]) {
        continue;
      }
      if (!stamped && t != m_last_t) {
        m_file << "#" << t * m_units_per_cycle << "\n";
      }
      stamped = true;
      m_file << vcd_value(at_t[i], width_of(g)) << " " << vcd_id(g) << "\n";
      m_written[i] = at_t[i];
    }
    if (stamped) {
      m_last_t = t;
    }
  }
}

}  // namespace vta::cycle
