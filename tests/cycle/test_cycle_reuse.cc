// Memory per call in a long-running process (issue 26): a cycle backend's SystemC kernel and
// modules cannot be freed, so a destroyed backend's core is parked and the next backend of the
// same hardware reuses it (sim/src/cycle/cycle_backend.cc). Checked here: a reused core gives
// every program of the ISA suite its hand-computed result, its counters and its errors (each
// case on a new backend with a new DRAM, after the previous case left its SRAMs and state
// behind), its cycles equal a fresh core's, and resident memory stays flat over hundreds of
// backends created, run and destroyed. The bounds are memory, never time.
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "isa_programs.h"
#include "process_memory.h"
#include "program_builder.h"
#include "test_paths.h"
#include "vta/sim/cycle/cycle_backend.h"

using namespace vta;
using namespace vta::testprog;

namespace {

using vta::testmem::rss_kib;

// A small program with every unit busy: LOAD UOP, GEMM-free ALU add on acc 0, STORE to DRAM,
// FINISH after the store (tokens compute -> store -> compute).
uint64_t run_small_program(Backend& be) {
  ProgramBuilder pb(be.config(), be.dram());
  const DeviceBuffer uops = pb.alloc_uops({Uop{0, 0, 0}});
  const DeviceBuffer out = pb.alloc(static_cast<size_t>(be.config().out_elem_bytes));
  pb.push(make_load_1d(kMemUop, 0, uops.elem(be.config(), kMemUop), 1));
  Deps to_store;
  to_store.push_next = true;
  pb.push(make_alu(kAluAdd, UopLoop{0, 1, 1, 1}, true, 7, to_store));
  Deps store_deps;
  store_deps.pop_prev = true;
  store_deps.push_prev = true;
  pb.push(make_store_1d(0, out.elem(be.config(), kMemOut), 1, store_deps));
  pb.push(make_finish(false, true));
  REQUIRE(pb.run(be) == RunStatus::kOk);
  // acc starts at 0 on a fresh core: the stored lanes are 0 + 7 (the out buffer's low 8 bits).
  for (int k = 0; k < be.config().out_elem_bytes; ++k) {
    REQUIRE(static_cast<int8_t>(out.host[k]) == 7);
  }
  return be.stats().cycles;
}

}  // namespace

TEST_CASE("reused cycle cores: every ISA program, one new backend after another",
          "[cycle][memory]") {
  for (const char* name : {"pynq", "small"}) {
    const HwConfig cfg = HwConfig::from_file(config_path(name));
    std::vector<IsaTestCase> cases = isa_test_cases(cfg);
    for (IsaTestCase& c : isa_error_cases(cfg)) {
      cases.push_back(std::move(c));
    }
    for (const IsaTestCase& c : cases) {
      INFO(name << " " << c.name);
      Dram dram;
      CycleBackend be(cfg, dram);
      CHECK(c.run_and_check(be).empty());
    }
  }
}

TEST_CASE("reused cycle cores: the same cycles and a fresh accumulator", "[cycle][memory]") {
  const HwConfig cfg = HwConfig::from_file(config_path("pynq"));
  uint64_t first = 0;
  for (int k = 0; k < 4; ++k) {
    Dram dram;  // a new DRAM each time: the reused core must work on this one
    CycleBackend be(cfg, dram);
    const uint64_t cycles = run_small_program(be);
    if (k == 0) {
      first = cycles;
    }
    CHECK(cycles == first);
    CHECK(be.stats().alu_counter == 1);  // counted into this backend's Stats only
  }
}

TEST_CASE("resident memory stays flat over many cycle backends", "[cycle][memory]") {
#ifdef VTA_TEST_ASAN
  SUCCEED("skipped: AddressSanitizer's quarantine keeps freed memory resident");
#else
  // Before the pool, each cycle backend left 24 KiB resident (tests/bench/bench_memory 1000).
  constexpr int kCalls = 300;
  constexpr long kBoundKib = kCalls;  // 1 KiB per backend: allocator noise, no per-call growth
  const HwConfig cfg = HwConfig::from_file(config_path("pynq"));
  const auto call = [&] {
    Dram dram;
    CycleBackend be(cfg, dram);
    run_small_program(be);
  };
  for (int k = 0; k < 20; ++k) {
    call();
  }
  const long before = rss_kib();
  for (int k = 0; k < kCalls; ++k) {
    call();
  }
  const long grown = rss_kib() - before;
  INFO("cycle backends: " << grown << " KiB over " << kCalls << " backends");
  CHECK(grown < kBoundKib);
#endif
}
