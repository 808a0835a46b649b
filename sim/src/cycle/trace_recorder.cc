#include "trace_recorder.h"

#include <fstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "vta/sim/error.h"

namespace vta::cycle {

namespace {

const char* const kTrackName[TraceRecorder::kNumTracks] = {
    "fetch", "load", "compute", "store", "memory read data", "memory write data"};

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

TraceRecorder::TraceRecorder() : m_value(kNumVcdSignals, 0), m_at_start(kNumVcdSignals, 0) {}

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
  for (int t = 0; t < kNumTracks; ++t) {
    m_trace_file << ",\n"
                 << nlohmann::json{{"ph", "M"},
                                   {"name", "thread_name"},
                                   {"pid", 1},
                                   {"tid", t},
                                   {"args", {{"name", kTrackName[t]}}}}
                        .dump();
  }
  m_footer_pos = m_trace_file.tellp();
  write_trace();
}

void TraceRecorder::enable_vcd(const std::string& path, uint64_t start, uint64_t end) {
  if (end <= start) {
    throw Error(fmt::format("VCD window [{}, {}) is empty", start, end));
  }
  m_vcd_path = path;
  m_vcd_start = start;
  m_vcd_end = end;
  m_vcd_header = false;
  m_changes.clear();
  m_vcd_file = std::ofstream(path, std::ios::out | std::ios::trunc);
  if (!m_vcd_file) {
    throw Error("cannot write VCD file '" + path + "'");
  }
}

void TraceRecorder::span(int track, uint32_t index, uint64_t s_abs, uint64_t e_abs,
                         const Insn& insn) {
  if (!tracing()) {
    return;
  }
  m_events.push_back(Event{'X', track, trace_cycle(s_abs), e_abs - s_abs + 1, index,
                           fmt::format("{}: {}", index, disassemble(insn))});
}

void TraceRecorder::span_named(int track, uint64_t s_abs, uint64_t e_abs, std::string name) {
  if (tracing()) {
    m_events.push_back(
        Event{'X', track, trace_cycle(s_abs), e_abs - s_abs + 1, 0, std::move(name)});
  }
}

void TraceRecorder::flow_start(uint64_t id, int track, uint64_t abs, const char* queue) {
  if (tracing()) {
    m_events.push_back(Event{'s', track, trace_cycle(abs), 0, id, queue});
  }
}

void TraceRecorder::flow_end(uint64_t id, int track, uint64_t abs, const char* queue) {
  if (tracing()) {
    m_events.push_back(Event{'f', track, trace_cycle(abs), 0, id, queue});
  }
}

void TraceRecorder::change(int sig, uint64_t abs, uint64_t value) {
  if (!vcd_on() || m_value[sig] == value) {
    return;
  }
  m_value[sig] = value;
  const uint64_t t = trace_cycle(abs);
  if (t < m_vcd_start) {
    m_at_start[sig] = value;
  } else if (t < m_vcd_end) {
    m_changes.push_back(Change{t, sig, value});
  }
}

void TraceRecorder::flush(uint64_t now_abs) {
  if (tracing()) {
    write_trace();
  }
  if (vcd_on()) {
    write_vcd(trace_cycle(now_abs));
  }
}

void TraceRecorder::write_trace() {
  m_trace_file.seekp(m_footer_pos);
  for (const Event& e : m_events) {
    nlohmann::json j = {{"ph", std::string(1, e.ph)},
                        {"pid", 1},
                        {"tid", e.track},
                        {"ts", static_cast<double>(e.ts) / m_mhz},
                        {"name", e.name}};
    if (e.ph == 'X') {
      j["dur"] = static_cast<double>(e.dur) / m_mhz;
      j["args"] = {{"start_cycle", e.ts}, {"cycles", e.dur}};
      if (e.track >= 1 && e.track <= 3) {
        j["args"]["index"] = e.id;
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

void TraceRecorder::write_vcd(uint64_t now) {
  // The header holds the values at the window start, known once time has passed it.
  if (!m_vcd_header && (now >= m_vcd_start || !m_changes.empty())) {
    std::ofstream& f = m_vcd_file;
    f << "$comment VTA cycle model; one time unit = one clock cycle $end\n";
    f << "$timescale 1 ns $end\n$scope module vta $end\n";
    for (int k = 0; k < kNumVcdSignals; ++k) {
      f << fmt::format("$var wire {} {} {} $end\n", kSignals[k].width, vcd_id(k), kSignals[k].name);
    }
    f << "$upscope $end\n$enddefinitions $end\n";
    f << "#" << m_vcd_start << "\n$dumpvars\n";
    for (int k = 0; k < kNumVcdSignals; ++k) {
      f << vcd_value(m_at_start[k], kSignals[k].width) << " " << vcd_id(k) << "\n";
    }
    f << "$end\n";
    m_vcd_header = true;
    m_vcd_last_t = m_vcd_start;
  }
  for (const Change& c : m_changes) {
    if (c.t != m_vcd_last_t) {
      m_vcd_file << "#" << c.t << "\n";
      m_vcd_last_t = c.t;
    }
    m_vcd_file << vcd_value(c.value, kSignals[c.sig].width) << " " << vcd_id(c.sig) << "\n";
  }
  m_changes.clear();
  m_vcd_file.flush();
  if (!m_vcd_file) {
    throw Error("cannot write VCD file '" + m_vcd_path + "'");
  }
}

}  // namespace vta::cycle
