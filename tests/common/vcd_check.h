// An independent check of a VCD file the tests wrote: a small reader of IEEE 1364 section 18
// VCD (header, time stamps, scalar and vector changes) that finds time going backwards and a
// signal changing twice within one time stamp, and a round trip through gtkwave's vcd2fst /
// fst2vcd (a viewer's reader) whose result must read back with the same changes.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#ifndef VTA_VCD2FST
#error "VTA_VCD2FST (gtkwave's vcd2fst) must be defined by the test's CMakeLists.txt"
#endif
#ifndef VTA_FST2VCD
#error "VTA_FST2VCD (gtkwave's fst2vcd) must be defined by the test's CMakeLists.txt"
#endif

struct VcdContents {
  std::string timescale;                                  // "10 ns"
  std::map<std::string, std::vector<std::string>> names;  // id -> scoped signal names
  std::vector<uint64_t> times;                            // every time stamp, in file order
  std::map<std::string, uint64_t> final_values;           // signal name -> last value (x/z as 0)
  std::set<std::pair<uint64_t, std::string>> changes;     // (time, signal name) of every value
  std::vector<std::string> problems;                      // empty for a well-formed file
};

inline uint64_t vcd_bits_value(const std::string& bits) {
  uint64_t v = 0;
  for (char c : bits) {
    v = (v << 1) | (c == '1' ? 1u : 0u);
  }
  return v;
}

// Reads the header keywords up to $enddefinitions.
inline void read_vcd_header(std::istream& in, VcdContents& out) {
  std::string tok, scope;
  while (in >> tok && tok != "$enddefinitions") {
    if (tok == "$scope") {
      std::string kind, name;
      in >> kind >> name;
      scope += name + ".";
    } else if (tok == "$upscope") {
      const size_t dot = scope.find_last_of('.', scope.size() >= 2 ? scope.size() - 2 : 0);
      scope = dot == std::string::npos ? "" : scope.substr(0, dot + 1);
    } else if (tok == "$timescale") {
      std::string part;
      while (in >> part && part != "$end") {
        out.timescale += (out.timescale.empty() ? "" : " ") + part;
      }
    } else if (tok == "$var") {
      std::string type, width, id, name, rest;
      in >> type >> width >> id >> name;
      while (in >> rest && rest != "$end") {
      }
      out.names[id].push_back(scope + name.substr(0, name.find('[')));  // "data[7:0]" -> "data"
    }
  }
  in >> tok;  // the $end of $enddefinitions
}

inline void record_vcd_value(VcdContents& out, std::set<std::string>& seen_now, uint64_t now,
                             const std::string& id, const std::string& bits) {
  const auto it = out.names.find(id);
  if (it == out.names.end()) {
    out.problems.push_back("value for undeclared id '" + id + "'");
    return;
  }
  if (!seen_now.insert(id).second) {
    out.problems.push_back("signal " + it->second.front() + " changes twice at #" +
                           std::to_string(now));
  }
  for (const std::string& name : it->second) {
    out.final_values[name] = vcd_bits_value(bits);
    out.changes.insert({now, name});
  }
}

inline VcdContents read_vcd(const std::string& path) {
  VcdContents out;
  std::ifstream in(path);
  if (!in) {
    out.problems.push_back("cannot open " + path);
    return out;
  }
  read_vcd_header(in, out);
  std::string tok;
  std::set<std::string> seen_now;
  uint64_t now = 0;
  while (in >> tok) {
    if (tok[0] == '#') {
      const uint64_t t = std::stoull(tok.substr(1));
      if (!out.times.empty() && t <= out.times.back()) {
        out.problems.push_back("time goes from #" + std::to_string(out.times.back()) + " to #" +
                               std::to_string(t));
      }
      out.times.push_back(t);
      now = t;
      seen_now.clear();
    } else if (tok[0] == 'b' || tok[0] == 'B' || tok[0] == 'r' || tok[0] == 'R') {
      std::string id;
      in >> id;
      record_vcd_value(out, seen_now, now, id, tok.substr(1));
    } else if (tok[0] == '0' || tok[0] == '1' || tok[0] == 'x' || tok[0] == 'z') {
      record_vcd_value(out, seen_now, now, tok.substr(1), tok.substr(0, 1));
    }  // $dumpvars, $end, $comment text: no values
  }
  if (out.timescale.empty()) {
    out.problems.push_back("no $timescale");
  }
  return out;
}

// The problems of `path` (empty when it is fine), including its vcd2fst / fst2vcd round trip.
inline std::vector<std::string> check_vcd_file(const std::string& path) {
  VcdContents ours = read_vcd(path);
  std::vector<std::string> problems = ours.problems;
  const std::string fst = path + ".fst", back = path + ".back.vcd";
  const std::string cmd = std::string(VTA_VCD2FST) + " '" + path + "' '" + fst +
                          "' >/dev/null && " + VTA_FST2VCD + " '" + fst + "' > '" + back +
                          "' 2>/dev/null";
  if (std::system(cmd.c_str()) != 0) {
    problems.push_back("vcd2fst / fst2vcd failed on " + path);
    return problems;
  }
  const VcdContents theirs = read_vcd(back);
  for (const std::string& p : theirs.problems) {
    problems.push_back("after vcd2fst: " + p);
  }
  if (theirs.final_values != ours.final_values) {
    problems.push_back("the final values differ after the vcd2fst round trip");
  }
  if (theirs.changes != ours.changes) {
    problems.push_back("the changes differ after the vcd2fst round trip");
  }
  std::filesystem::remove(fst);
  std::filesystem::remove(back);
  return problems;
}
