// The shared ISA test-program suite (tests/programs) on the rtl backend, for every config with
// a built RTL model: DRAM outputs and counters must equal the plain C++ references (and so
// fsim), and illegal programs must fail with fsim's pinned messages.
#include <catch2/catch.hpp>

#include <memory>
#include <string>

#include "isa_programs.h"
#include "vta/hw/rtl_backend.h"

using namespace vta;
using namespace vta::testprog;

namespace {

[[maybe_unused]] const bool registered = register_isa_suite(
    "rtl isa", [](const HwConfig& c, Dram& d) { return std::make_unique<RtlBackend>(c, d); },
    "[rtl][isa]", RtlBackend::built_configs());

}  // namespace
