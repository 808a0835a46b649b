// A destroyed rtl backend parks its SystemC kernel and top module and the next backend of the
// same hardware reuses them with a Verilated model of its own (hw/src/rtl_backend.cc, issue 26:
// no memory growth per call). Checked: the ISA suite's hand-computed results, counters and
// errors on one new backend after another (each with a new DRAM, after the previous case's run
// or error), and resident memory flat over many backends. The bounds are memory, never time.
#include <catch2/catch.hpp>

#include <fstream>
#include <string>
#include <vector>

#include "isa_programs.h"
#include "process_memory.h"
#include "rtl_test_support.h"
#include "test_paths.h"
#include "vta/hw/rtl_backend.h"

using namespace vta;
using namespace vta::testprog;

namespace {

using vta::testmem::rss_kib;

using vta::rtltest::rtl_model_built;

}  // namespace

TEST_CASE("rtl: reused cores run every ISA program, one new backend after another",
          "[rtl][memory]") {
  if (!rtl_model_built("pynq")) {
    SUCCEED("no pynq RTL model in this build");
    return;
  }
  const HwConfig cfg = HwConfig::from_file(config_path("pynq"));
  std::vector<IsaTestCase> cases = isa_test_cases(cfg);
  for (IsaTestCase& c : isa_error_cases(cfg)) {
    cases.push_back(std::move(c));
  }
  for (const IsaTestCase& c : cases) {
    INFO(c.name);
    Dram dram;
    RtlBackend be(cfg, dram);
    CHECK(c.run_and_check(be).empty());
  }
}

TEST_CASE("rtl: resident memory stays flat over many backends", "[rtl][memory]") {
#ifdef VTA_TEST_ASAN
  SUCCEED("skipped: AddressSanitizer's quarantine keeps freed memory resident");
#else
  if (!rtl_model_built("pynq")) {
    SUCCEED("no pynq RTL model in this build");
    return;
  }
  // Before the pool, each rtl backend left 81-300 KiB resident (tests/bench/bench_memory).
  constexpr int kCalls = 200;
  constexpr long kBoundKib = kCalls;  // 1 KiB per backend: allocator noise, no per-call growth
  const HwConfig cfg = HwConfig::from_file(config_path("pynq"));
  const IsaTestCase program = isa_test_cases(cfg).front();
  const auto call = [&] {
    Dram dram;
    RtlBackend be(cfg, dram);
    REQUIRE(program.run_and_check(be).empty());
  };
  for (int k = 0; k < 20; ++k) {
    call();
  }
  const long before = rss_kib();
  for (int k = 0; k < kCalls; ++k) {
    call();
  }
  const long grown = rss_kib() - before;
  INFO(program.name << ": " << grown << " KiB over " << kCalls << " backends");
  CHECK(grown < kBoundKib);
#endif
}
