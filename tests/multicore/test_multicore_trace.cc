// The Perfetto trace of a system of two cores (docs/multicore.md, "Traces"): each core's units
// under a process of their own and the shared DRAM's commands under another, both cores running
// the same program, so each core's process holds one span per instruction of it.
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
#include "vta/sim/backend.h"
#include "vta/sim/config_source.h"
#include "vta/sim/cycle/cycle_backend.h"

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
