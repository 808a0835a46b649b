// Several Verilated cores around one DRAM on the rtl backend (docs/multicore.md): the worked
// example of the timing contract on two cores against cycles derived by hand from the
// interconnect's rule; two ISA-suite programs run together, each core's outputs checked against
// its case's plain reference and its cycles and counters equal to the cycle model's two-core
// run; CORES = 1 equal to the single core; the VCD of every core. Label "multicore" (built with
// the rtl backend only).
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <catch2/catch.hpp>

#include "core_seat.h"
#include "isa_programs.h"
#include "multicore_test_support.h"
#include "program_builder.h"
#include "vcd_check.h"
#include "vta/hw/rtl_backend.h"
#include "vta/sim/backend.h"
#include "vta/sim/cycle/cycle_backend.h"
#include "vta/sim/cycle/dram_target.h"
#include "vta/sim/cycle/sim_context.h"

using namespace vta;
using namespace vta::testprog;
using namespace vta::multicoretest;

namespace {

std::unique_ptr<Backend> make_backend(const std::string& name, const HwConfig& cfg, Dram& dram) {
  if (name == "rtl") {
    return std::make_unique<RtlBackend>(cfg, dram);
  }
  return std::make_unique<CycleBackend>(cfg, dram);
}

double counter(const Backend& be, const std::string& name) {
  const NamedCounter* c = be.stats().find(name);
  return c != nullptr ? c->value : -1;
}

}  // namespace

TEST_CASE("multicore rtl: the worked example on two cores, by hand", "[multicore][rtl]") {
  // Alone (sim/README.md section 5) the example takes 61 cycles; the interconnect adds its
  // latency L each way to the three memory round trips on its critical path (fetch, LOAD UOP,
  // STORE response): 61 + 6L. Together both fetch bursts (10 beats) are granted in cycle 1:
  // core 0's first, holding the read channel 10 cycles (width one beat); core 1's is granted in
  // 11 and its beats come 10 cycles later (the memory's read channel is busy as long). From
  // there core 1 runs 10 cycles behind core 0, so every later burst of one core finds the
  // channel and the memory free: core 1 takes 61 + 6L + 10 cycles, its contention is 10.
  for (const char* backend : {"rtl", "cycle"}) {
    for (int latency : {0, 3}) {
      INFO(backend << ", interconnect latency " << latency);
      const HwConfig cfg = system_config(2, latency);
      Dram dram;
      std::unique_ptr<Backend> be = make_backend(backend, cfg, dram);
      ProgramBuilder pb0(cfg, dram), pb1(cfg, dram);
      const std::vector<CoreProgram> programs = {worked_example(pb0), worked_example(pb1)};
      REQUIRE(be->run_cores(programs, 0) == RunStatus::kOk);
      const auto L = static_cast<double>(latency);
      CHECK(counter(*be, "core0.cycles") == 61 + 6 * L);
      CHECK(counter(*be, "core1.cycles") == 61 + 6 * L + 10);
      CHECK(counter(*be, "system.cycles") == 61 + 6 * L + 10);
      CHECK(counter(*be, "core0.dram_contention_cycles") == 0);
      CHECK(counter(*be, "core1.dram_contention_cycles") == 10);
      // fetch, LOAD UOP, LOAD INP, STORE
      CHECK(counter(*be, "core0.interconnect_bursts") == 4);
      CHECK(counter(*be, "core1.interconnect_bursts") == 4);
    }
  }
}

TEST_CASE("multicore rtl: the VCD shows every core under its own scope", "[multicore][rtl]") {
  // The worked example on both cores, latency 0: core 0 is clocked 61 cycles, core 1 71 (the
  // case above, by hand). Cycle c of a run is VCD time 2c (clock low) and 2c + 1 (after the
  // rising edge), so a core clocked n cycles has its clk rise at the n odd times 1 .. 2n - 1 and
  // its done rise at 2n - 1; a core that has finished is no longer clocked.
  const HwConfig cfg = system_config(2, 0);
  const std::string path = (std::filesystem::temp_directory_path() /
                            fmt::format("vta_multicore_rtl_vcd_{}.vcd", ::getpid()))
                               .string();  // unique: several build trees may run ctest at once
  {
    Dram dram;
    RtlBackend be(cfg, dram);
    be.enable_vcd(path, 0, 1000);
    ProgramBuilder pb0(cfg, dram), pb1(cfg, dram);
    REQUIRE(be.run_cores({worked_example(pb0), worked_example(pb1)}, 0) == RunStatus::kOk);
  }
  CHECK(check_vcd_file(path).empty());
  const VcdContents vcd = read_vcd(path);
  std::filesystem::remove(path);
  std::set<std::string> names;
  for (const auto& [id, scoped] : vcd.names) {
    names.insert(scoped.begin(), scoped.end());
  }
  // Each core's top ports and its Verilog hierarchy under "core<k>"; nothing outside them.
  std::map<std::string, size_t> per_scope;
  for (const std::string& n : names) {
    ++per_scope[n.substr(0, n.find('.'))];
  }
  CHECK(per_scope.size() == 2);
  CHECK(per_scope["core0"] > 100);
  CHECK(per_scope["core0"] == per_scope["core1"]);
  for (const std::pair<const char*, uint64_t> core : {std::pair{"core0", 61}, {"core1", 71}}) {
    const std::string scope = core.first;
    const uint64_t n = core.second;
    INFO(scope);
    CHECK(names.count(scope + ".clk") == 1);
    CHECK(names.count(scope + ".vta_core.done") == 1);
    std::vector<uint64_t> rises, done;  // times of the clock's rising edges; of done's changes
    for (const auto& [t, name] : vcd.changes) {
      if (name == scope + ".clk" && t % 2 == 1) {
        rises.push_back(t);
      }
      if (name == scope + ".done") {
        done.push_back(t);
      }
    }
    CHECK(rises.size() == n);
    CHECK_FALSE(rises.empty());
    CHECK(rises.back() == 2 * n - 1);
    CHECK(done == std::vector<uint64_t>{0, 2 * n - 1});  // its value at #0, then the rise
    CHECK(vcd.final_values.at(scope + ".done") == 1);
  }
  CHECK(vcd.times.size() == 2 * 71);  // every half cycle of the system's run
  CHECK(vcd.times.back() == 2 * 71 - 1);
}

namespace {

// A core's seat that also keeps, per run, this core's named counters as the RTL has them.
class CountingSeat : public CoreSeat {
 public:
  using CoreSeat::CoreSeat;
  std::vector<std::map<std::string, double>> counters;

 protected:
  void record() override {
    CoreSeat::record();
    std::map<std::string, double> named;
    for (const NamedCounter& n : m_stats.extra) {
      // the exact-byte traffic counters and ratios the RTL does not have (hw/README.md)
      if (n.unit != "ratio" && n.unit != "bytes/cycle" && n.unit != "bytes") {
        named[n.name] = n.value;
      }
    }
    const std::string contention = fmt::format("core{}.dram_contention_cycles", core());
    named[contention] = system().stats().find(contention)->value;
    counters.push_back(named);
  }
};

struct PairRun {
  std::string a, b;  // "" = outputs and upstream counters match the case's reference
  std::vector<uint64_t> a_cycles, b_cycles;
  std::vector<std::map<std::string, double>> a_counters, b_counters;
};

// Case `a` on core 0 and case `b` on core 1 of a fresh system of `backend`, together.
PairRun run_pair(const std::string& backend, const HwConfig& cfg, const std::string& a,
                 const std::string& b) {
  Dram dram;
  std::unique_ptr<Backend> sys = make_backend(backend, cfg, dram);
  const auto cases = isa_test_cases(cfg);
  CountingSeat seat_a(*sys, 0), seat_b(*sys, 1);
  seat_a.partner = &seat_b;
  seat_b.partner = &seat_a;
  seat_a.partner_case = &find_case(cases, b);
  PairRun r;
  r.a = find_case(cases, a).run_and_check(seat_a);
  r.b = seat_a.partner_result;
  r.a_cycles = seat_a.cycles;
  r.b_cycles = seat_b.cycles;
  r.a_counters = seat_a.counters;
  r.b_counters = seat_b.counters;
  return r;
}

// "" if the rtl core's runs took the cycle model's cycles and counters, else the differences.
std::string differences(const std::vector<uint64_t>& rtl_cycles,
                        const std::vector<std::map<std::string, double>>& rtl_counters,
                        const std::vector<uint64_t>& cycle_cycles,
                        const std::vector<std::map<std::string, double>>& cycle_counters) {
  if (rtl_cycles.size() != cycle_cycles.size() || rtl_counters.size() != cycle_counters.size()) {
    return fmt::format("{} runs on rtl, {} on cycle", rtl_cycles.size(), cycle_cycles.size());
  }
  std::string d;
  for (size_t r = 0; r < rtl_cycles.size(); ++r) {
    if (rtl_cycles[r] != cycle_cycles[r]) {
      d += fmt::format("run {}: cycles rtl {} cycle {}; ", r, rtl_cycles[r], cycle_cycles[r]);
    }
    for (const auto& [name, v] : cycle_counters[r]) {
      const auto it = rtl_counters[r].find(name);
      const double rv = it != rtl_counters[r].end() ? it->second : -1;
      if (rv != v) {
        d += fmt::format("run {}: {} rtl {} cycle {}; ", r, name, rv, v);
      }
    }
  }
  return d;
}

// Case `name` alone on the single-core rtl backend of the system's core config.
std::string run_alone_rtl(const HwConfig& cfg, const std::string& name) {
  const HwConfig& core = cfg.core_config(0);
  Dram dram;
  RtlBackend be(core, dram);
  return find_case(isa_test_cases(core), name).run_and_check(be);
}

}  // namespace

TEST_CASE("multicore rtl: the ISA suite in pairs equals the cycle model, cycle for cycle",
          "[multicore][rtl]") {
  // Every case on core 0 with the next one on core 1, on the contract's fixed memory and on the
  // DRAM model, without and with interconnect latency. Each core's outputs pass its case's
  // plain reference (as the case alone does, checked once per case on the single-core rtl);
  // each core's cycles and counters of every run are the cycle model's two-core run's.
  bool alone_checked = false;
  for (const char* preset : {"pynq_fixed", "pynq"}) {
    for (int latency : {0, 5}) {
      const HwConfig cfg = system_config(preset, 2, {{"INTERCONNECT_LATENCY_CYCLES", latency}});
      const auto cases = isa_test_cases(cfg);
      for (size_t i = 0; i + 1 < cases.size(); ++i) {
        const std::string a = cases[i].name, b = cases[i + 1].name;
        INFO(preset << ": " << a << " on core 0, " << b << " on core 1, interconnect latency "
                    << latency);
        const PairRun rtl = run_pair("rtl", cfg, a, b);
        const PairRun cyc = run_pair("cycle", cfg, a, b);
        CHECK(rtl.a == "");
        CHECK(rtl.b == "");
        if (!alone_checked) {
          CHECK(run_alone_rtl(cfg, a) == "");
        }
        CHECK_FALSE(rtl.a_cycles.empty());
        CHECK(differences(rtl.a_cycles, rtl.a_counters, cyc.a_cycles, cyc.a_counters) == "");
        CHECK(differences(rtl.b_cycles, rtl.b_counters, cyc.b_cycles, cyc.b_counters) == "");
      }
      alone_checked = true;
    }
  }
}

TEST_CASE("multicore rtl: one core behind a wide interconnect of latency 0 is the single core",
          "[multicore][rtl]") {
  // A hold of one cycle per burst and no latency leave every burst's timing to the memory
  // model, so CORES = 1 must give the single core's cycles exactly, on both memory models.
  for (const char* preset : {"pynq_fixed", "pynq"}) {
    INFO(preset);
    std::map<std::string, uint64_t> cycles;
    for (const char* backend : {"rtl", "cycle"}) {
      const AloneAndOneCore c = memory_bound_cycles(preset, [&](const HwConfig& cfg, Dram& dram) {
        return make_backend(backend, cfg, dram);
      });
      cycles[fmt::format("{} single", backend)] = c.alone;
      cycles[fmt::format("{} CORES 1", backend)] = c.one_core;
    }
    CHECK(cycles["rtl single"] > 0);
    CHECK(cycles["rtl CORES 1"] == cycles["rtl single"]);
    CHECK(cycles["rtl single"] == cycles["cycle single"]);
    CHECK(cycles["cycle CORES 1"] == cycles["cycle single"]);
  }
}

TEST_CASE("multicore rtl: a deadlock of one core names the core, the other finishes",
          "[multicore][rtl]") {
  // Core 1's only instruction, FINISH, pops a store-to-compute token no one pushes.
  for (const char* backend : {"rtl", "cycle"}) {
    INFO(backend);
    const HwConfig cfg = system_config(2, 0);
    Dram dram;
    std::unique_ptr<Backend> be = make_backend(backend, cfg, dram);
    ProgramBuilder pb0(cfg, dram), pb1(cfg, dram);
    const CoreProgram ok = worked_example(pb0);
    pb1.push(make_finish(false, true));
    const DeviceBuffer stuck = pb1.emit();
    CHECK_THROWS_WITH(
        be->run_cores({ok, CoreProgram{stuck.phys, 1}}, 0),
        Catch::Matchers::StartsWith("core 1: ") && Catch::Matchers::Contains("FINISH"));
    CHECK(be->core_stats(0).cycles == 61);
  }
}

TEST_CASE("multicore rtl: a write with every byte disabled is timed and moves nothing",
          "[multicore][rtl]") {
  // The rtl glue's writes through the interconnect: the memory model times them as any write
  // (the fixed memory: beats from grant + 1, response Lw after the last) and leaves DRAM as is.
  const HwConfig cfg = system_config(2, 0);
  Dram dram;
  uint8_t* host = static_cast<uint8_t*>(dram.alloc(64));
  const uint32_t phys = dram.phys_addr(host);
  std::memset(host, 0x5a, 64);
  cycle::SimContext ctx;
  const cycle::SimContext::Lock lock = ctx.activate();
  cycle::DramTarget memory("dram", cfg, dram);
  memory.reset(0);
  std::vector<uint8_t> zeros(32, 0);
  unsigned char disabled = TLM_BYTE_DISABLED;
  tlm::tlm_generic_payload p;
  cycle::MemTimingExt ext;
  p.set_command(tlm::TLM_WRITE_COMMAND);
  p.set_address(phys);
  p.set_data_ptr(zeros.data());
  p.set_data_length(32);
  p.set_streaming_width(32);
  p.set_byte_enable_ptr(&disabled);
  p.set_byte_enable_length(1);
  p.set_extension(&ext);
  sc_core::sc_time delay = cycle::cycles(10);
  memory.socket.get_base_interface().b_transport(p, delay);
  p.clear_extension(&ext);
  CHECK(p.get_response_status() == tlm::TLM_OK_RESPONSE);
  const uint64_t beats = 32 / static_cast<uint64_t>(cfg.bus_bytes);
  const auto lw = static_cast<uint64_t>(cfg.dram_write_latency_cycles);
  CHECK(ext.first == 11);
  CHECK(ext.response == 11 + beats - 1 + lw);
  for (int k = 0; k < 64; ++k) {
    CHECK(host[k] == 0x5a);
  }
}
