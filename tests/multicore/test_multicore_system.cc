// Several cores around one DRAM (docs/multicore.md). The interconnect's arbitration against
// cycles derived by hand from its documented rule; two ISA-suite programs run together on two
// cores, each checked against its own plain reference (the check it passes alone), never faster
// than alone, on the cycle model and fsim.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "bench_programs.h"
#include "interconnect.h"
#include "isa_programs.h"
#include "vta/sim/backend.h"
#include "vta/sim/config_source.h"
#include "vta/sim/cycle/cycle_backend.h"
#include "vta/sim/cycle/dram_target.h"
#include "vta/sim/cycle/sim_context.h"
#include "vta/sim/fsim.h"

using namespace vta;
using namespace vta::cycle;

namespace {

HwConfig system_config(int cores, int latency) {
  nlohmann::json j = resolve_config("pynq_fixed", {}).keys;
  j["CORES"] = cores;
  j["INTERCONNECT_LATENCY_CYCLES"] = latency;
  return HwConfig::from_json(j, "pynq_fixed with CORES");
}

// A core's side of the interconnect: reads one burst at a given cycle, keeps its timing.
class BurstReader : public sc_core::sc_module {
 public:
  tlm_utils::simple_initiator_socket<BurstReader> socket;
  MemTimingExt timing;

  BurstReader(sc_core::sc_module_name name, uint64_t at, uint64_t addr, uint32_t bytes)
      : sc_core::sc_module(name), socket("socket"), m_at(at), m_addr(addr), m_data(bytes) {
    SC_HAS_PROCESS(BurstReader);
    SC_THREAD(main);
  }

 private:
  void main() {
    sc_core::wait(cycles(m_at));
    tlm::tlm_generic_payload p;
    MemTimingExt ext;
    p.set_extension(&ext);
    p.set_command(tlm::TLM_READ_COMMAND);
    p.set_address(m_addr);
    p.set_data_ptr(m_data.data());
    p.set_data_length(static_cast<uint32_t>(m_data.size()));
    p.set_streaming_width(static_cast<uint32_t>(m_data.size()));
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    socket->b_transport(p, delay);
    timing = ext;
    p.clear_extension(&ext);
  }

  uint64_t m_at, m_addr;
  std::vector<uint8_t> m_data;
};

}  // namespace

TEST_CASE("multicore: two cores reading one burst in the same cycle, by hand", "[multicore]") {
  const HwConfig cfg = system_config(2, 3);
  Dram dram;
  const uint32_t phys = dram.phys_addr(dram.alloc(4096));
  SimContext ctx;
  const SimContext::Lock lock = ctx.activate();
  Interconnect ic("interconnect", cfg);
  DramTarget memory("dram", cfg, dram);
  const uint32_t beats = 4;
  const auto bytes = static_cast<uint32_t>(beats * cfg.bus_bytes);
  BurstReader a("a", 10, phys, bytes);
  BurstReader b("b", 10, phys + 1024, bytes);
  a.socket.bind(ic.cores);
  b.socket.bind(ic.cores);
  ic.memory.bind(memory.socket);
  ic.reset(0);
  memory.reset(0);
  SimContext::start();

  // The rule (interconnect.h): latency L each way; a burst holds the read channel for
  // ceil(beats * bus bytes / width) cycles; the fixed memory (sim/README.md section 2) gives
  // the first beat R cycles after its grant, then one beat every DRAM_CYCLES_PER_BEAT (cpb),
  // its read channel busy until the last beat has gone.
  const uint64_t L = 3, R = static_cast<uint64_t>(cfg.dram_read_latency_cycles);
  const uint64_t cpb = static_cast<uint64_t>(cfg.dram_cycles_per_beat);
  const uint64_t hold = beats * static_cast<uint64_t>(cfg.bus_bytes) /
                        static_cast<uint64_t>(cfg.interconnect_bytes_per_cycle);
  REQUIRE(hold == 4);  // width = one bus beat by default
  // The first served: granted in 10, at the memory in 13, first beat 13 + R, back L later.
  const uint64_t first_last = 10 + L + R + (beats - 1) * cpb + L;
  // The second: granted when the first lets go (14), at the memory in 17; its first beat waits
  // for the memory's read channel too: max(17 + R, 13 + R + beats * cpb).
  const uint64_t second_first = std::max(10 + hold + L + R, 10 + L + R + beats * cpb);
  const uint64_t second_last = second_first + (beats - 1) * cpb + L;
  std::vector<uint64_t> lasts = {a.timing.last, b.timing.last};
  std::sort(lasts.begin(), lasts.end());
  CHECK(lasts[0] == first_last);
  CHECK(lasts[1] == second_last);
  const uint64_t c0 = ic.core_stats(0).contention_cycles;
  const uint64_t c1 = ic.core_stats(1).contention_cycles;
  CHECK(std::min(c0, c1) == 0);
  CHECK(std::max(c0, c1) == hold);  // waited for the other core's burst, nothing else
  CHECK(ic.core_stats(0).requests == 1);
  CHECK(ic.core_stats(1).requests == 1);
}

namespace {

// Stands for one core of a system backend inside an ISA-suite case: the case builds its program
// in the system's DRAM and calls run(), which here starts the partner case (whose run() starts
// both programs together, or each alone), and checks its outputs afterwards as it does alone.
class CoreSeat : public Backend {
 public:
  CoreSeat(Backend& system, int core)
      : Backend(system.config(), system.dram()), m_sys(system), m_core(core) {}
  const char* name() const override { return "core-seat"; }

  CoreSeat* partner = nullptr;
  const testprog::IsaTestCase* partner_case = nullptr;
  bool together = true;
  std::string partner_result;
  uint64_t cycles = 0;  // this core's cycles in the (last) run

  RunStatus run(uint32_t insn_phys, uint32_t insn_count, uint64_t wait_cycles) override {
    m_program = CoreProgram{insn_phys, insn_count};
    if (partner_case != nullptr) {  // the outer case: let the partner build its program
      const testprog::IsaTestCase* pc = partner_case;
      partner_case = nullptr;
      partner_result = pc->run_and_check(*partner);
      return RunStatus::kOk;
    }
    std::vector<CoreProgram> progs(2);
    progs[static_cast<size_t>(m_core)] = m_program;
    if (together && partner != nullptr) {
      progs[static_cast<size_t>(partner->m_core)] = partner->m_program;
    }
    m_sys.clear_stats();
    const RunStatus st = m_sys.run_cores(progs, wait_cycles);
    for (CoreSeat* s : {this, partner}) {
      if (s != nullptr) {
        s->m_stats = m_sys.core_stats(s->m_core);
        const NamedCounter* c = m_sys.stats().find(fmt::format("core{}.cycles", s->m_core));
        s->cycles = c != nullptr ? static_cast<uint64_t>(c->value) : s->m_stats.cycles;
        s->m_stats.runs = 1;
      }
    }
    return st;
  }

 private:
  Backend& m_sys;
  int m_core;
  CoreProgram m_program;
};

const testprog::IsaTestCase& find_case(const std::vector<testprog::IsaTestCase>& v,
                                       const std::string& name) {
  for (const auto& c : v) {
    if (c.name == name) {
      return c;
    }
  }
  FAIL("no ISA case " << name);
  return v.front();
}

struct PairResult {
  std::string a, b;  // "" = outputs and counters match the case's reference
  uint64_t a_cycles = 0, b_cycles = 0;
};

// Case `a` on core 0 and case `b` on core 1 of a fresh system backend `backend`.
PairResult run_pair(const std::string& backend, const HwConfig& cfg, const std::string& a,
                    const std::string& b, bool together) {
  Dram dram;
  std::unique_ptr<Backend> sys;
  if (backend == "cycle") {
    sys = std::make_unique<CycleBackend>(cfg, dram);
  } else {
    sys = std::make_unique<FsimBackend>(cfg, dram);
  }
  const auto cases = testprog::isa_test_cases(cfg);
  CoreSeat seat_a(*sys, 0), seat_b(*sys, 1);
  seat_a.partner = &seat_b;
  seat_b.partner = &seat_a;
  seat_a.partner_case = &find_case(cases, b);
  seat_a.together = seat_b.together = together;
  PairResult r;
  if (!together) {
    seat_a.partner = seat_b.partner = nullptr;
    seat_a.partner_case = nullptr;
    r.a = find_case(cases, a).run_and_check(seat_a);
    r.b = find_case(cases, b).run_and_check(seat_b);
  } else {
    r.a = find_case(cases, a).run_and_check(seat_a);
    r.b = seat_a.partner_result;
  }
  r.a_cycles = seat_a.cycles;
  r.b_cycles = seat_b.cycles;
  return r;
}

}  // namespace

TEST_CASE("multicore: two ISA programs together, bit-exact and never faster than alone",
          "[multicore]") {
  const std::pair<const char*, const char*> pairs[] = {
      {"blocked_gemm_vt2_comp", "alu_loops_random_1"}, {"gemm_loops_random_1", "load_pad_inp"}};
  for (int latency : {0, 5}) {
    const HwConfig cfg = system_config(2, latency);
    for (const auto& [a, b] : pairs) {
      INFO(a << " on core 0, " << b << " on core 1, interconnect latency " << latency);
      const PairResult alone = run_pair("cycle", cfg, a, b, false);
      const PairResult both = run_pair("cycle", cfg, a, b, true);
      const PairResult fsim = run_pair("fsim", cfg, a, b, true);
      CHECK(alone.a.empty());
      CHECK(alone.b.empty());
      CHECK(both.a == "");
      CHECK(both.b == "");
      CHECK(fsim.a == "");
      CHECK(fsim.b == "");
      WARN("alone " << alone.a_cycles << " / " << alone.b_cycles << ", together " << both.a_cycles
                    << " / " << both.b_cycles);
      CHECK(alone.a_cycles > 0);
      CHECK(both.a_cycles >= alone.a_cycles);
      CHECK(both.b_cycles >= alone.b_cycles);
    }
  }
}

TEST_CASE("multicore: one core behind a wide interconnect of latency 0 is the single core",
          "[multicore]") {
  // A hold of one cycle per burst and no latency leave every burst's timing to the memory
  // model, so CORES = 1 must give the single core's cycles exactly, on both memory models.
  for (const char* preset : {"pynq_fixed", "pynq"}) {
    INFO(preset);
    nlohmann::json keys = resolve_config(preset, {}).keys;
    const HwConfig single = HwConfig::from_json(keys, preset);
    keys["CORES"] = 1;
    keys["INTERCONNECT_BYTES_PER_CYCLE"] = 4096;
    const HwConfig system = HwConfig::from_json(keys, preset);
    uint64_t cycles[2] = {0, 0};
    for (int k = 0; k < 2; ++k) {
      const HwConfig& cfg = k == 0 ? single : system;
      Dram dram;
      CycleBackend be(cfg, dram);
      testprog::ProgramBuilder pb(cfg, dram);
      testprog::build_memory_bound_program(pb, 2);
      REQUIRE(pb.run(be) == RunStatus::kOk);
      cycles[k] = be.stats().cycles;
    }
    CHECK(cycles[0] > 0);
    CHECK(cycles[1] == cycles[0]);
  }
}
