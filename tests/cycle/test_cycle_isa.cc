// The whole ISA test-program suite of tests/programs (values, counters, errors) on the cycle
// backend, one Catch test case per program and config.
#include <catch2/catch.hpp>

#include "isa_programs.h"
#include "vta/sim/cycle/cycle_backend.h"

VTA_REGISTER_ISA_SUITE(
    "cycle",
    [](const vta::HwConfig& c, vta::Dram& d) -> std::unique_ptr<vta::Backend> {
      return std::make_unique<vta::CycleBackend>(c, d);
    },
    "[cycle][isa]");

// The same suite on every board preset with upstream's fixed-latency memory (MEMORY_MODEL
// "fixed"; the presets themselves use their board's DRAM): the values, upstream counters and
// errors do not depend on the memory timing.
static const bool vta_isa_suite_dram [[maybe_unused]] = ::vta::testprog::register_isa_suite(
    "cycle",
    [](const vta::HwConfig& c, vta::Dram& d) -> std::unique_ptr<vta::Backend> {
      return std::make_unique<vta::CycleBackend>(c, d);
    },
    "[cycle][isa][fixed]", {"pynq_fixed", "ultra96_fixed", "zcu104_fixed", "de10nano_fixed"});
