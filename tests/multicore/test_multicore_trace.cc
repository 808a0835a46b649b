// The Perfetto trace of a system of two cores (docs/multicore.md, "Traces"): each core's units
// under a process of their own and the shared DRAM's commands under another, both cores running
// the same program, so each core's process holds one span per instruction of it. The cycle
// backend's VCD of a system: every core's signals under a scope of their own, on the system's
// time, checked against the timing contract's worked example by hand; its window and size
// limit.
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "bench_programs.h"
#include "multicore_test_support.h"
#include "vcd_check.h"
#include "vta/sim/backend.h"
#include "vta/sim/config_source.h"
#include "vta/sim/cycle/cycle_backend.h"
#include "vta/sim/error.h"

using namespace vta;

namespace {

// Runs every program on both cores of `system` together.
class BothCores : public Backend {
 public:
  explicit BothCores(Backend& system) : Backend(system.config(), system.dram()), m_sys(system) {}
  const char* name() const override { return "both-cores"; }
  RunStatus run(uint32_t insn_phys, uint32_t insn_count, uint64_t wait_cycles) override {
    return m_sys.run_cores({{insn_phys, insn_count}, {insn_phys, insn_count}}, wait_cycles);
  }

 private:
  Backend& m_sys;
};

std::string read_all(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

TEST_CASE("multicore: the trace has a process per core and one for the shared DRAM",
          "[multicore][trace]") {
  nlohmann::json keys = resolve_config("pynq", {}).keys;  // the DDR3 model: DRAM commands
  keys["CORES"] = 2;
  const HwConfig cfg = HwConfig::from_json(keys, "pynq with CORES 2");
  Dram dram;
  CycleBackend sys(cfg, dram);
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("multicore_trace_" + std::to_string(::getpid()) + ".json"))
                               .string();
  sys.enable_trace(path);
  BothCores both(sys);
  testprog::ProgramBuilder pb(cfg, dram);
  testprog::build_memory_bound_program(pb, 2);
  REQUIRE(pb.run(both) == RunStatus::kOk);
  const size_t insns = pb.insns().size();

  const nlohmann::json j = nlohmann::json::parse(read_all(path));
  std::map<int, std::string> process;            // pid -> name
  std::map<int, int> insn_spans, dram_commands;  // per pid
  std::set<uint64_t> flow_starts;
  for (const auto& e : j["traceEvents"]) {
    const std::string ph = e["ph"];
    const int pid = e["pid"];
    if (ph == "M" && e["name"] == "process_name") {
      process[pid] = e["args"]["name"];
    } else if (ph == "X") {
      const int tid = e["tid"];
      insn_spans[pid] += tid >= 1 && tid <= 3;  // load, compute, store: one span per instruction
      dram_commands[pid] += tid == 6;
    } else if (ph == "s") {
      CHECK(flow_starts.insert(e["id"].get<uint64_t>()).second);  // ids unique over the cores
    }
  }
  std::remove(path.c_str());
  REQUIRE(process.count(1) == 1);
  REQUIRE(process.count(2) == 1);
  CHECK(process[1] == "VTA core 0");
  CHECK(process[2] == "VTA core 1");
  int dram_pid = -1;
  for (const auto& [pid, name] : process) {
    dram_pid = name == "DRAM (shared)" ? pid : dram_pid;
  }
  REQUIRE(dram_pid > 2);
  // One span per instruction on each core (load, compute or store track): both ran the program.
  CHECK(insn_spans[1] == static_cast<int>(insns));
  CHECK(insn_spans[2] == static_cast<int>(insns));
  CHECK(dram_commands[dram_pid] > 0);
  CHECK(dram_commands[1] == 0);  // the DRAM's commands are not a core's
  CHECK(dram_commands[2] == 0);
}

namespace {

// The worked example on both cores of a pynq_fixed system (latency 0) on the cycle backend, its
// VCD written for cycles [start, end) with a size limit of `limit` bytes (0: none).
RunStatus run_worked_example_with_vcd(const std::string& path, uint64_t start, uint64_t end,
                                      uint64_t limit = 0) {
  const HwConfig cfg = multicoretest::system_config(2, 0);
  Dram dram;
  CycleBackend be(cfg, dram);
  be.set_vcd_limit(limit);
  be.enable_vcd(path, start, end);
  testprog::ProgramBuilder pb0(cfg, dram), pb1(cfg, dram);
  return be.run_cores({multicoretest::worked_example(pb0), multicoretest::worked_example(pb1)}, 0);
}

// The times at which signal `name` has a value in the file ($dumpvars included).
std::set<uint64_t> change_times(const VcdContents& vcd, const std::string& name) {
  std::set<uint64_t> times;
  for (const auto& [t, n] : vcd.changes) {
    if (n == name) {
      times.insert(t);
    }
  }
  return times;
}

std::set<uint64_t> shifted(std::set<uint64_t> times, uint64_t by) {
  std::set<uint64_t> out;
  for (uint64_t t : times) {
    out.insert(t == 0 ? 0 : t + by);  // #0 is $dumpvars
  }
  return out;
}

}  // namespace

TEST_CASE("multicore: the cycle backend's VCD shows every core under its own scope",
          "[multicore][trace]") {
  // sim/README.md section 5 by hand: instruction i is dispatched in cycle 19 + 2i, GEMM (index 2)
  // starts in 42, STORE pushes s2g in its last cycle 59 and FINISH (index 4) pops it in 60, the
  // run's last cycle (61 cycles). On two cores (test_multicore_rtl.cc) core 0 runs so and core 1
  // 10 cycles behind it (71 cycles). VCD time is the cycle of the system's run.
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("multicore_cycle_vcd_" + std::to_string(::getpid()) + ".vcd"))
                               .string();
  REQUIRE(run_worked_example_with_vcd(path, 0, 1000) == RunStatus::kOk);
  CHECK(check_vcd_file(path).empty());
  const VcdContents vcd = read_vcd(path);
  std::map<std::string, std::set<std::string>> per_scope;  // scope -> its signals
  for (const auto& [id, scoped] : vcd.names) {
    for (const std::string& n : scoped) {
      per_scope[n.substr(0, n.find('.'))].insert(n.substr(n.find('.') + 1));
    }
  }
  CHECK(per_scope.size() == 2);
  CHECK(per_scope["core0"].size() == 14);
  CHECK(per_scope["core0"] == per_scope["core1"]);
  for (const std::pair<const char*, uint64_t> core : {std::pair{"core0", 0}, {"core1", 10}}) {
    const std::string s = std::string(core.first) + ".";
    const uint64_t late = core.second;
    INFO(s);
    CHECK(change_times(vcd, s + "fetch_dispatched") == shifted({0, 19, 21, 23, 25, 27}, late));
    CHECK(vcd.final_values.at(s + "fetch_dispatched") == 5);
    CHECK(change_times(vcd, s + "insn_compute") == shifted({0, 42, 60}, late));
    CHECK(vcd.final_values.at(s + "insn_compute") == 4);
    CHECK(change_times(vcd, s + "tok_s2g") == shifted({0, 59, 60}, late));
    CHECK(vcd.final_values.at(s + "tok_s2g") == 0);
  }
  CHECK(vcd.times.back() == 70);  // core 1's FINISH
  std::filesystem::remove(path);
}

TEST_CASE("multicore: the cycle backend's VCD window and size limit are the whole file's",
          "[multicore][trace]") {
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("multicore_cycle_vcd_window_" + std::to_string(::getpid()) + ".vcd"))
                               .string();
  // The window is the file's: cycles 30 and 31 only, where core 0 has dispatched all 5
  // instructions and core 1 its first two (instruction i in 19 + 2i on core 0, 10 cycles later
  // on core 1: the case above).
  REQUIRE(run_worked_example_with_vcd(path, 30, 32) == RunStatus::kOk);
  CHECK(check_vcd_file(path).empty());
  const VcdContents window = read_vcd(path);
  CHECK(window.times == std::vector<uint64_t>{30, 31});
  CHECK(window.final_values.at("core0.fetch_dispatched") == 5);
  CHECK(window.final_values.at("core1.fetch_dispatched") == 2);
  std::filesystem::remove(path);

  // The size limit is the file's: past a limit of 1 byte the file stops before the first change
  // of any core, leaving both scopes' $dumpvars, and the run's end says so.
  std::string error;
  try {
    (void)run_worked_example_with_vcd(path, 0, 1000, 1);
  } catch (const Error& e) {
    error = e.what();
  }
  CHECK(error.find("above the limit of") != std::string::npos);
  CHECK(error.find("the file stops at cycle 0") != std::string::npos);
  const VcdContents cut = read_vcd(path);
  CHECK(cut.problems.empty());
  CHECK(cut.names.size() == 28);
  CHECK(cut.times == std::vector<uint64_t>{0});  // $dumpvars only
  std::filesystem::remove(path);
}
