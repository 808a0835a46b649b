// The shared ISA test-program suite (tests/programs) on the rtl backend, for every config with
// a built RTL model: DRAM outputs and counters must equal the plain C++ references (and so
// fsim), and illegal programs must fail with fsim's pinned messages. Models of the default
// widths (int8 x int8 -> int32) get one test per program, the others (pynq_int32, small_int4,
// small_int8_acc16) one test per config running every program, as on fsim and cycle.
#include <catch2/catch.hpp>

#include <memory>
#include <string>

#include "isa_programs.h"
#include "vta/hw/rtl_backend.h"

using namespace vta;
using namespace vta::testprog;

namespace {

bool register_rtl_suites() {
  std::vector<std::string> int8, widths;
  for (const std::string& config : RtlBackend::built_configs()) {
    const HwConfig cfg = isa_suite_config(config);
    const bool default_widths = cfg.inp_width == 8 && cfg.wgt_width == 8 && cfg.acc_width == 32;
    (default_widths ? int8 : widths).push_back(config);
  }
  const BackendMaker maker = [](const HwConfig& c, Dram& d) {
    return std::make_unique<RtlBackend>(c, d);
  };
  return register_isa_suite("rtl isa", maker, "[rtl][isa]", int8) &&
         register_isa_width_suite("rtl isa", maker, "[rtl][isa]", widths);
}

[[maybe_unused]] const bool registered = register_rtl_suites();

}  // namespace
