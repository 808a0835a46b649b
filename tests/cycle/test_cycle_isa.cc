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
