// Cycle equivalence of the rtl and cycle backends: every program of the shared ISA suite runs
// on both (each with its own DRAM) and every run must take the same number of cycles, with the
// same named counters (per-unit busy/idle/stall/memory-stall cycles, fetch, GEMM/ALU activity,
// bursts and beats per memory client, and the DRAM counters with the "dram" memory model). Any
// difference is a bug in one of the two; the message lists the per-run cycles of both.
#include <catch2/catch.hpp>

#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "isa_programs.h"
#include "rtl_test_support.h"
#include "test_paths.h"
#include "vta/hw/rtl_backend.h"
#include "vta/sim/cycle/cycle_backend.h"

using namespace vta;
using namespace vta::testprog;

namespace {

// Forwards runs to `inner` and records what each run cost, so multi-run programs compare run
// by run even though the suite clears the statistics between runs.
class RecordingBackend : public Backend {
 public:
  RecordingBackend(const HwConfig& cfg, Dram& dram, std::unique_ptr<Backend> inner)
      : Backend(cfg, dram), m_inner(std::move(inner)) {}
  const char* name() const override { return m_inner->name(); }
  RunStatus run(uint32_t insn_phys, uint32_t insn_count, uint64_t wait_cycles) override {
    const Stats before = m_inner->stats();
    const RunStatus r = m_inner->run(insn_phys, insn_count, wait_cycles);
    const Stats& after = m_inner->stats();
    RunCost c;
    c.cycles = after.cycles - before.cycles;
    // every named counter both backends report, except the ratios and the exact-byte traffic
    // counters the RTL does not have (sim/README.md, RTL notes)
    for (const auto& n : after.extra) {
      if (n.unit == "ratio" || n.unit == "bytes/cycle" || n.unit == "bytes") {
        continue;
      }
      const NamedCounter* b = before.find(n.name);
      c.counters[n.name] = n.value - (b ? b->value : 0);
    }
    costs.push_back(c);
    // mirror the upstream counters for the suite's checks
    m_stats.inp_load_nbytes += after.inp_load_nbytes - before.inp_load_nbytes;
    m_stats.wgt_load_nbytes += after.wgt_load_nbytes - before.wgt_load_nbytes;
    m_stats.acc_load_nbytes += after.acc_load_nbytes - before.acc_load_nbytes;
    m_stats.uop_load_nbytes += after.uop_load_nbytes - before.uop_load_nbytes;
    m_stats.out_store_nbytes += after.out_store_nbytes - before.out_store_nbytes;
    m_stats.gemm_counter += after.gemm_counter - before.gemm_counter;
    m_stats.alu_counter += after.alu_counter - before.alu_counter;
    for (size_t k = 0; k < m_stats.insn_count.size(); ++k) {
      m_stats.insn_count[k] += after.insn_count[k] - before.insn_count[k];
    }
    m_stats.cycles += c.cycles;
    m_stats.runs += 1;
    m_stats.timed = true;
    return r;
  }

  struct RunCost {
    uint64_t cycles = 0;
    std::map<std::string, double> counters;  // named counters of this run
  };
  std::vector<RunCost> costs;

 private:
  std::unique_ptr<Backend> m_inner;
};

std::string describe(const std::vector<RecordingBackend::RunCost>& costs) {
  std::ostringstream o;
  for (const auto& c : costs) {
    o << " [cycles " << c.cycles;
    for (const auto& [name, v] : c.counters) {
      o << " " << name << "=" << v;
    }
    o << "]";
  }
  return o.str();
}

class EquivInvoker : public Catch::ITestInvoker {
 public:
  EquivInvoker(std::string config, size_t index) : m_config(std::move(config)), m_index(index) {}
  void invoke() const override {
    const HwConfig cfg = HwConfig::from_file(config_path(m_config));
    const auto cases = isa_test_cases(cfg);
    const IsaTestCase& tc = cases.at(m_index);
    Dram dram_rtl, dram_cycle;
    RecordingBackend rtl(cfg, dram_rtl, std::make_unique<RtlBackend>(cfg, dram_rtl));
    RecordingBackend cyc(cfg, dram_cycle, std::make_unique<CycleBackend>(cfg, dram_cycle));
    const std::string r1 = tc.run_and_check(rtl);
    const std::string r2 = tc.run_and_check(cyc);
    INFO(m_config << " " << tc.name << "\n  rtl:  " << describe(rtl.costs)
                  << "\n  cycle:" << describe(cyc.costs));
    CHECK(r1 == "");
    CHECK(r2 == "");
    REQUIRE(rtl.costs.size() == cyc.costs.size());
    for (size_t k = 0; k < rtl.costs.size(); ++k) {
      CHECK(rtl.costs[k].cycles == cyc.costs[k].cycles);
      for (const auto& [name, v] : cyc.costs[k].counters) {
        const auto it = rtl.costs[k].counters.find(name);
        INFO("run " << k << " counter " << name);
        REQUIRE(it != rtl.costs[k].counters.end());
        CHECK(it->second == v);
      }
    }
  }

 private:
  std::string m_config;
  size_t m_index;
};

// Every built config (with its DRAM model), and its variant with upstream's fixed-latency memory
// (configs/<name>_fixed.json) where there is one: both backends reach the same memory model.
std::vector<std::string> equivalence_configs() {
  std::vector<std::string> out;
  for (const std::string& config : RtlBackend::built_configs()) {
    out.push_back(config);
    if (std::ifstream(config_path(config + "_fixed")).good()) {
      out.push_back(config + "_fixed");
    }
  }
  return out;
}

bool register_equivalence() {
  for (const std::string& config : equivalence_configs()) {
    const HwConfig cfg = HwConfig::from_file(config_path(config));
    const auto cases = isa_test_cases(cfg);
    for (size_t k = 0; k < cases.size(); ++k) {
      rtltest::register_test_case("rtl==cycle " + config + " " + cases[k].name,
                                  new EquivInvoker(config, k), "[rtl][cycle-equivalence]");
    }
  }
  return true;
}

[[maybe_unused]] const bool registered = register_equivalence();

}  // namespace
