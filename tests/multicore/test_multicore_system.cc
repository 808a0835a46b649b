// Several cores around one DRAM (docs/multicore.md). The interconnect's arbitration against
// cycles derived by hand from its documented rule; two ISA-suite programs run together on two
// cores, each checked against its own plain reference (the check it passes alone), never faster
// than alone, on the cycle model and fsim.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "burst_reader.h"
#include "core_seat.h"
#include "interconnect.h"
#include "isa_programs.h"
#include "multicore_test_support.h"
#include "vta/sim/backend.h"
#include "vta/sim/cycle/cycle_backend.h"
#include "vta/sim/cycle/dram_target.h"
#include "vta/sim/fsim.h"

using namespace vta;
using namespace vta::cycle;

using namespace vta::multicoretest;

TEST_CASE("multicore: two cores reading one burst in the same cycle, by hand", "[multicore]") {
  const HwConfig cfg = system_config(2, 3);
  Dram dram;
  const uint32_t phys = dram.phys_addr(dram.alloc(4096));
  SharedMemory<DramTarget> shared(cfg, dram);
  const Interconnect& ic = shared.ic;
  const uint32_t beats = 4;
  const auto bytes = static_cast<uint32_t>(beats * cfg.bus_bytes);
  BurstReader a("a", {{10, phys, bytes}}, 0);
  BurstReader b("b", {{10, phys + 1024, bytes}}, 0);
  shared.bind(a);
  shared.bind(b);
  shared.run();

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
  std::vector<uint64_t> lasts = {a.timing.at(0).last, b.timing.at(0).last};
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
  r.a_cycles = seat_a.last_cycles();
  r.b_cycles = seat_b.last_cycles();
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
    const AloneAndOneCore cycles = memory_bound_cycles(
        preset, [](const HwConfig& cfg, Dram& dram) -> std::unique_ptr<Backend> {
          return std::make_unique<CycleBackend>(cfg, dram);
        });
    CHECK(cycles.alone > 0);
    CHECK(cycles.one_core == cycles.alone);
  }
}
