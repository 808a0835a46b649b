#include "trace_recorder.h"

#include <algorithm>
#include <cmath>
#include <fstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "vta/sim/error.h"
#include "vta/sim/vcd_limit.h"

namespace vta::cycle {

namespace {

const char* const kTrackName[TraceRecorder::kNumTracks] = {
    "fetch", "load", "compute", "store", "memory read data", "memory write data", "DRAM commands"};
// Names of the wait causes in an instruction span's args, per dependency queue.
const char* const kQueueArg[4] = {"l2g", "g2l", "s2g", "g2s"};

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

// VCD identifier of signal k: printable characters from '!'.
std::string vcd_id(int k) {
  return std::string(1, static_cast<char>('!' + k));
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

// The span args that say why an instruction waited before it started.
nlohmann::json waits_json(const InsnWaits& w) {
  nlohmann::json waited = nlohmann::json::object();
  if (w.idle != 0) {
    waited["insn_queue_empty_cycles"] = w.idle;
  }
  for (size_t q = 0; q < 4; ++q) {
    if (w.token[q] != 0) {
      waited[fmt::format("token_{}_cycles", kQueueArg[q])] = w.token[q];
    }
    if (w.full[q] != 0) {
      waited[fmt::format("full_{}_cycles", kQueueArg[q])] = w.full[q];
    }
  }
  return {{"waited", waited}, {"mem_stall_cycles", w.mem_stall}};
}

TraceRecorder::TraceRecorder() : m_at_start(kNumVcdSignals, 0), m_written(kNumVcdSignals, 0) {}

void TraceRecorder::enable_trace(const std::string& path, double clock_mhz) {
  m_trace_path = path;
  m_mhz = clock_mhz;
  m_events.clear();
  m_trace_file = std::fstream(path, std::ios::out | std::ios::trunc);
  if (!m_trace_file) {
    throw Error("cannot write trace file '" + path + "'");
  }
  m_trace_file << "{\"displayTimeUnit\": \"ns\", \"traceEvents\": [\n";
  m_trace_file << nlohmann::json{{"ph", "M"},
                                 {"name", "process_name"},
                                 {"pid", 1},
                                 {"args", {{"name", "VTA core"}}}}
                      .dump();
  m_footer_pos = m_trace_file.tellp();
  for (int t = 0; t < kNumTracks; ++t) {
    write_track_name(t, t, kTrackName[t]);
  }
  m_slice_tracks.clear();
  m_open.clear();
  write_trace();
}

// Core K's process is pid K + 1; the DRAM's a fixed pid after every core's (CORES <= 16).
constexpr int kDramPid = 1000;

void TraceRecorder::attach_core(TraceRecorder& other, int core) {
  other.m_sink = this;
  other.m_core = core;
  other.m_mhz = m_mhz;
  if (!tracing()) {
    return;
  }
  if (m_system_cores == 0) {
    write_process_name(1, "VTA core 0");
    write_process_name(kDramPid, "DRAM (shared)");
    write_track_name(kDramTrack, 0, kTrackName[kDramTrack], kDramPid);
  }
  m_system_cores = std::max(m_system_cores, core + 1);
  write_process_name(core + 1, fmt::format("VTA core {}", core));
  for (int t = 0; t < kDramTrack; ++t) {
    write_track_name(t, t, kTrackName[t], core + 1);
  }
  write_trace();
}

int TraceRecorder::pid_of(int track) const {
  if (track == kDramTrack && root().m_system_cores != 0) {
    return kDramPid;
  }
  return m_core + 1;
}

void TraceRecorder::write_process_name(int pid, const std::string& name) {
  m_trace_file.seekp(m_footer_pos);
  m_trace_file << ",\n"
               << nlohmann::json{{"ph", "M"},
                                 {"name", "process_name"},
                                 {"pid", pid},
                                 {"args", {{"name", name}}}}
                      .dump()
               << ",\n"
               << nlohmann::json{{"ph", "M"},
                                 {"name", "process_sort_index"},
                                 {"pid", pid},
                                 {"args", {{"sort_index", pid}}}}
                      .dump();
  m_footer_pos = m_trace_file.tellp();
}

void TraceRecorder::write_track_name(int tid, int sort_index, const std::string& name, int pid) {
  m_trace_file.seekp(m_footer_pos);
  m_trace_file << ",\n"
               << nlohmann::json{{"ph", "M"},
                                 {"name", "thread_name"},
                                 {"pid", pid},
                                 {"tid", tid},
                                 {"args", {{"name", name}}}}
                      .dump();
  // Top-level tracks (slices) sort above the unit tracks.
  m_trace_file << ",\n"
               << nlohmann::json{{"ph", "M"},
                                 {"name", "thread_sort_index"},
                                 {"pid", pid},
                                 {"tid", tid},
                                 {"args", {{"sort_index", sort_index}}}}
                      .dump();
  m_footer_pos = m_trace_file.tellp();
}

void TraceRecorder::begin_slice(const std::string& track, const std::string& name) {
  if (!tracing()) {
    return;
  }
  if (m_open.count(track) != 0) {
    throw Error(
        fmt::format("trace slice '{}' on track '{}' is still open", m_open[track].name, track));
  }
  m_open[track] = OpenSlice{slice_track(track), m_elapsed, name};
}

int TraceRecorder::slice_track(const std::string& track) {
  auto it = m_slice_tracks.find(track);
  if (it == m_slice_tracks.end()) {
    // Slice tracks sort above the unit tracks, in the order they were opened.
    const int n = static_cast<int>(m_slice_tracks.size());
    it = m_slice_tracks.emplace(track, kFirstSliceTrack + n).first;
    write_track_name(it->second, n - kFirstSliceTrack, track);
  }
  return it->second;
}

void TraceRecorder::add_slice(const std::string& track, const std::string& name, uint64_t cycles,
                              nlohmann::json args) {
  if (!tracing()) {
    return;
  }
  const int tid = slice_track(track);
  if (m_elapsed + cycles >= m_window_start && m_elapsed < m_window_end) {
    m_events.push_back(Event{'X', tid, 1, m_elapsed, cycles, 0, name, std::move(args)});
  }
  m_elapsed += cycles;  // the next run starts after it
  write_trace();
}

void TraceRecorder::end_slice(const std::string& track, const Stats& counters) {
  if (!tracing()) {
    return;
  }
  const auto it = m_open.find(track);
  if (it == m_open.end()) {
    throw Error(fmt::format("no trace slice is open on track '{}'", track));
  }
  const OpenSlice& o = it->second;
  m_events.push_back(Event{
      'X', o.track, 1, o.ts, m_elapsed - o.ts, 0, o.name, {{"counters", counters.to_json()}}});
  m_open.erase(it);
  write_trace();
}

void TraceRecorder::enable_vcd(const std::string& path, uint64_t start, uint64_t end,
                               double clock_mhz, uint64_t limit_bytes) {
  if (end <= start) {
    throw Error(fmt::format("VCD window [{}, {}) is empty", start, end));
  }
  m_vcd_path = path;
  m_vcd_start = start;
  m_vcd_end = end;
  m_vcd_header = false;
  m_changes.clear();
  m_vcd_limit = limit_bytes;
  m_vcd_bytes = 0;
  m_vcd_count_t = UINT64_MAX;
  m_counted.assign(kNumVcdSignals, UINT64_MAX);
  m_vcd_cut = UINT64_MAX;
  // One time unit is one clock period when $timescale can say it (1, 10 or 100 of a unit),
  // otherwise picoseconds (the period rounded to a whole picosecond).
  const double period_ps = 1e6 / clock_mhz;
  m_vcd_timescale = "1 ps";
  m_vcd_units_per_cycle = std::max<uint64_t>(1, static_cast<uint64_t>(std::llround(period_ps)));
  const std::pair<const char*, double> kScales[] = {{"1 ps", 1},   {"10 ps", 10},  {"100 ps", 100},
                                                    {"1 ns", 1e3}, {"10 ns", 1e4}, {"100 ns", 1e5},
                                                    {"1 us", 1e6}, {"10 us", 1e7}, {"100 us", 1e8}};
  for (const auto& [scale, ps] : kScales) {
    if (std::fabs(ps - period_ps) < 1e-9 * period_ps) {
      m_vcd_timescale = scale;
      m_vcd_units_per_cycle = 1;
      break;
    }
  }
  m_vcd_file = std::ofstream(path, std::ios::out | std::ios::trunc);
  if (!m_vcd_file) {
    throw Error("cannot write VCD file '" + path + "'");
  }
}

void TraceRecorder::span(int track, uint32_t index, uint64_t s_abs, uint64_t e_abs,
                         const Insn& insn, const InsnWaits& waits) {
  if (!tracing() || !in_window(s_abs, e_abs)) {
    return;
  }
  push(Event{'X', track, pid_of(track), trace_cycle(s_abs), e_abs - s_abs + 1, index,
             fmt::format("{}: {}", index, disassemble(insn)), waits_json(waits)});
}

void TraceRecorder::span_named(int track, uint64_t s_abs, uint64_t e_abs, std::string name) {
  if (tracing() && in_window(s_abs, e_abs)) {
    push(Event{
        'X', track, pid_of(track), trace_cycle(s_abs), e_abs - s_abs + 1, 0, std::move(name), {}});
  }
}

void TraceRecorder::flow_start(uint64_t id, int track, uint64_t abs, const char* queue) {
  if (tracing() && in_window(abs, abs)) {
    push(Event{'s', track, pid_of(track), trace_cycle(abs), 0, id, queue, {}});
  }
}

void TraceRecorder::flow_end(uint64_t id, int track, uint64_t abs, const char* queue) {
  if (tracing() && in_window(abs, abs)) {
    push(Event{'f', track, pid_of(track), trace_cycle(abs), 0, id, queue, {}});
  }
}

// Units report changes in the order their threads run, not in time order: they are kept and
// sorted when written.
void TraceRecorder::change(int sig, uint64_t abs, uint64_t value) {
  if (!vcd_on()) {
    return;
  }
  const uint64_t t = trace_cycle(abs);
  if (t >= m_vcd_end) {
    return;
  }
  if (t >= m_vcd_start && value != m_counted[static_cast<size_t>(sig)]) {
    // "b<bits> <id>\n"; past the limit the change is only counted, for the estimate
    m_counted[static_cast<size_t>(sig)] = value;
    const uint64_t bits = value == 0 ? 1 : 64 - static_cast<uint64_t>(__builtin_clzll(value));
    m_vcd_bytes += bits + 4;   // leading zeros are not written
    if (t != m_vcd_count_t) {  // a "#<time>\n" line (changes arrive almost in time order)
      m_vcd_bytes += 10;
      m_vcd_count_t = t;
    }
    if (m_vcd_limit != 0 && m_vcd_bytes > m_vcd_limit) {
      m_vcd_cut = std::min(m_vcd_cut, t);
    }
  }
  if (t < m_vcd_cut) {
    m_changes.push_back(Change{t, sig, value});
  }
}

void TraceRecorder::flush(uint64_t now_abs) {
  if (tracing()) {
    write_trace();
  }
  if (vcd_on()) {
    write_vcd(trace_cycle(now_abs));
    if (m_vcd_cut != UINT64_MAX) {
      throw_vcd_over_limit(VcdOverLimit{m_vcd_path, m_vcd_limit, m_vcd_bytes, m_vcd_cut,
                                        m_vcd_start, m_vcd_end, "counted"});
    }
  }
}

void TraceRecorder::write_trace() {
  // A run's events arrive per unit as they happen (a span when it ends): sorted by start time,
  // every track's time stamps are non-decreasing, since runs are laid end to end.
  std::stable_sort(m_events.begin(), m_events.end(),
                   [](const Event& a, const Event& b) { return a.ts < b.ts; });
  m_trace_file.seekp(m_footer_pos);
  for (const Event& e : m_events) {
    nlohmann::json j = {{"ph", std::string(1, e.ph)},
                        {"pid", e.pid},
                        {"tid", e.track},
                        {"ts", static_cast<double>(e.ts) / m_mhz},
                        {"name", e.name}};
    if (e.ph == 'X') {
      j["dur"] = static_cast<double>(e.dur) / m_mhz;
      j["args"] = {{"start_cycle", e.ts}, {"cycles", e.dur}};
      if (e.track >= 1 && e.track <= 3) {
        j["args"]["index"] = e.id;
      }
      if (e.args.is_object()) {
        j["args"].update(e.args);
      }
    } else {
      j["id"] = e.id;
      j["cat"] = "token";
      if (e.ph == 'f') {
        j["bp"] = "e";
      }
    }
    m_trace_file << ",\n" << j.dump();
  }
  m_events.clear();
  m_footer_pos = m_trace_file.tellp();
  m_trace_file << "\n]}\n";
  m_trace_file.flush();
  if (!m_trace_file) {
    throw Error("cannot write trace file '" + m_trace_path + "'");
  }
}

void TraceRecorder::write_vcd_header() {
  std::ofstream& f = m_vcd_file;
  f << "$comment VTA cycle model; time stamps are clock cycles"
    << (m_vcd_units_per_cycle == 1 ? "" : fmt::format(" times {} ps", m_vcd_units_per_cycle))
    << " $end\n";
  f << "$timescale " << m_vcd_timescale << " $end\n$scope module vta $end\n";
  for (int k = 0; k < kNumVcdSignals; ++k) {
    f << fmt::format("$var wire {} {} {} $end\n", kSignals[k].width, vcd_id(k), kSignals[k].name);
  }
  f << "$upscope $end\n$enddefinitions $end\n";
  f << "#" << m_vcd_start * m_vcd_units_per_cycle << "\n$dumpvars\n";
  for (int k = 0; k < kNumVcdSignals; ++k) {
    f << vcd_value(m_at_start[k], kSignals[k].width) << " " << vcd_id(k) << "\n";
  }
  f << "$end\n";
  m_written = m_at_start;
  m_vcd_header = true;
  m_vcd_last_t = m_vcd_start;
}

// Writes the new changes in time order: per signal and time stamp only the last value, and
// only if it differs from the value written before.
void TraceRecorder::write_vcd(uint64_t now) {
  std::stable_sort(m_changes.begin(), m_changes.end(),
                   [](const Change& a, const Change& b) { return a.t < b.t; });
  size_t k = 0;
  if (!m_vcd_header) {
    // Changes up to the window start set the values $dumpvars shows.
    for (; k < m_changes.size() && m_changes[k].t <= m_vcd_start; ++k) {
      m_at_start[m_changes[k].sig] = m_changes[k].value;
    }
    if (now < m_vcd_start && k == m_changes.size()) {
      m_changes.clear();
      return;
    }
    write_vcd_header();
  }
  for (; k < m_changes.size();) {
    const uint64_t t = std::max(m_changes[k].t, m_vcd_last_t);
    std::vector<uint64_t> at_t = m_written;
    for (; k < m_changes.size() && std::max(m_changes[k].t, m_vcd_last_t) == t; ++k) {
      at_t[m_changes[k].sig] = m_changes[k].value;
    }
    bool stamped = false;
    for (int sig = 0; sig < kNumVcdSignals; ++sig) {
      if (at_t[sig] == m_written[sig]) {
        continue;
      }
      if (!stamped && t != m_vcd_last_t) {
        m_vcd_file << "#" << t * m_vcd_units_per_cycle << "\n";
      }
      stamped = true;
      m_vcd_file << vcd_value(at_t[sig], kSignals[sig].width) << " " << vcd_id(sig) << "\n";
      m_written[sig] = at_t[sig];
    }
    if (stamped) {
      m_vcd_last_t = t;
    }
  }
  m_changes.clear();
  m_vcd_file.flush();
  if (!m_vcd_file) {
    throw Error("cannot write VCD file '" + m_vcd_path + "'");
  }
}

}  // namespace vta::cycle
