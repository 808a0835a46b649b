#include "trace_recorder.h"

#include <algorithm>
#include <fstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "vta/sim/error.h"

namespace vta::cycle {

namespace {

const char* const kTrackName[TraceRecorder::kNumTracks] = {
    "fetch", "load", "compute", "store", "memory read data", "memory write data", "DRAM commands"};
// Names of the wait causes in an instruction span's args, per dependency queue.
const char* const kQueueArg[4] = {"l2g", "g2l", "s2g", "g2s"};

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
  name_core_processes();
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
  m_system_cores = std::max(m_system_cores, core + 1);
}

// A system's processes: core 0's (pid 1, renamed), the shared DRAM's and every other core's.
void TraceRecorder::name_core_processes() {
  if (m_system_cores == 0) {
    return;
  }
  write_process_name(1, "VTA core 0");
  write_process_name(kDramPid, "DRAM (shared)");
  write_track_name(kDramTrack, 0, kTrackName[kDramTrack], kDramPid);
  for (int core = 1; core < m_system_cores; ++core) {
    write_process_name(core + 1, fmt::format("VTA core {}", core));
    for (int t = 0; t < kDramTrack; ++t) {
      write_track_name(t, t, kTrackName[t], core + 1);
    }
  }
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
                               double clock_mhz, uint64_t limit_bytes, int system_cores) {
  std::vector<std::string> scopes;
  scopes.reserve(static_cast<size_t>(std::max(system_cores, 1)));
  for (int k = 0; k < system_cores; ++k) {
    scopes.push_back(fmt::format("core{}", k));
  }
  if (scopes.empty()) {
    scopes.emplace_back("vta");
  }
  m_vcd.open(path, start, end, clock_mhz, limit_bytes, std::move(scopes));
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

void TraceRecorder::change(int sig, uint64_t abs, uint64_t value) {
  if (vcd_on()) {
    sink().m_vcd.change(m_core, sig, trace_cycle(abs), value);
  }
}

void TraceRecorder::flush(uint64_t now_abs) {
  if (tracing()) {
    write_trace();
  }
  if (m_vcd.on()) {
    m_vcd.flush(trace_cycle(now_abs));  // throws when the VCD passed its size limit
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

}  // namespace vta::cycle
