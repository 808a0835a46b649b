// The ISA test-program suite shared by every backend: VTA programs built directly as instruction
// streams (upstream hardware-test style), each checked against a plain C++ reference of its
// outputs and against the upstream counter rules. The cycle and rtl backends run the same list.
#pragma once

#include <functional>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "vta/sim/backend.h"
#include "vta/sim/hw_config.h"

namespace vta::testprog {

struct IsaTestCase {
  std::string name;
  // Builds the program(s) in backend.dram(), runs them on `backend` and checks DRAM outputs,
  // counters (stats are cleared before each run) or the expected ProgramError. Returns "" on
  // success, else a description of the first difference (including the random seed).
  std::function<std::string(Backend& backend)> run_and_check;
};

// Legal programs: padded loads (INP, WGT, ACC, ACC_8BIT, every padding combination), store
// narrowing and strides, the output-buffer rule, GEMM loop nests and reset, every ALU op with
// immediate and vector operands (incl. shifts beyond 31), the upstream alu_test, gemm_test and
// blocked_gemm_test scenarios (1 and 2 virtual threads, compressed and uncompressed uops),
// runtime-style NOP synchronisation, SRAM persistence across runs, and whole accumulator lanes
// (after GEMM and overflowing ALU steps) read through the out lane in ACC_WIDTH / OUT_WIDTH
// slices. Data, packing and references follow the config's element widths (lane_reference.h):
// lanes packed LSB first and sign-extended on load, GEMM and ALU results wrapped at ACC_WIDTH,
// STORE keeping OUT_WIDTH bits.
std::vector<IsaTestCase> isa_test_cases(const HwConfig& cfg);
// Illegal programs, each expecting a ProgramError whose message contains a pinned text naming
// instruction index, unit and field.
std::vector<IsaTestCase> isa_error_cases(const HwConfig& cfg);

// Configs every backend runs the suite on, one test per program.
inline const char* const kIsaSuiteConfigs[] = {"pynq", "block32", "batch4", "small"};
// Element widths other than int8 x int8 -> int32 (docs/element_widths.md), one test per config
// running every program: presets, and "<preset>+KEY=VALUE,..." for a combination without one.
inline const char* const kIsaWidthConfigs[] = {
    "pynq_int4",         // int4 / int4 / int16
    "pynq_int4_acc32",   // int4 / int4 / int32
    "small_int4",        // int4 / int4 / int16, BATCH 2, BLOCK 8 (Verilated)
    "small_int8_acc16",  // int8 / int8 / int16, BLOCK 8 (Verilated)
    "pynq_int16",        // int16 / int16 / int32
    "pynq_int32",        // int32 / int32 / int32 (Verilated)
    "pynq_int16+LOG_ACC_WIDTH=4,LOG_ACC_BUFF_SIZE=16",  // int16 / int16 / int16
    "pynq+LOG_INP_WIDTH=1,LOG_INP_BUFF_SIZE=13",        // int2 / int8 / int32
    // int4 / int16 / int32
    "pynq+LOG_INP_WIDTH=2,LOG_WGT_WIDTH=4,LOG_INP_BUFF_SIZE=14,LOG_WGT_BUFF_SIZE=19",
    // int4 / int4 / int16, small_int4 on a 128-bit bus: 8-byte inp/out tiles (Verilated)
    "small_int4_bus128"};

// A suite config: a preset name, or "<preset>+KEY=VALUE,..." (the preset with the keys changed).
HwConfig isa_suite_config(const std::string& spec);

using BackendMaker = std::function<std::unique_ptr<Backend>(const HwConfig&, Dram&)>;

// Registers one Catch TEST_CASE per (config, program) named "<prefix> <config> <program>" with
// `tags`; each builds a fresh Dram and backend with `maker`. Call at static-initialisation time
// (e.g. through VTA_REGISTER_ISA_SUITE) in a test file linked with Catch2WithMain.
bool register_isa_suite(const std::string& prefix, BackendMaker maker, const std::string& tags,
                        const std::vector<std::string>& configs = {std::begin(kIsaSuiteConfigs),
                                                                   std::end(kIsaSuiteConfigs)});
// Registers one Catch TEST_CASE per config named "<prefix> <config> every program" that runs
// every legal and illegal program and reports each one that fails.
bool register_isa_width_suite(const std::string& prefix, BackendMaker maker,
                              const std::string& tags,
                              const std::vector<std::string>& configs = {
                                  std::begin(kIsaWidthConfigs), std::end(kIsaWidthConfigs)});

}  // namespace vta::testprog

#define VTA_ISA_SUITE_CAT2(a, b) a##b
#define VTA_ISA_SUITE_CAT(a, b) VTA_ISA_SUITE_CAT2(a, b)
// One line per backend, e.g. in tests/cycle/test_cycle_isa.cc:
//   VTA_REGISTER_ISA_SUITE("cycle", [](const HwConfig& c, Dram& d) {
//     return vta::make_backend("cycle", c, d); }, "[cycle]");
#define VTA_REGISTER_ISA_SUITE(prefix, maker, tags)                                           \
  static const bool VTA_ISA_SUITE_CAT(vta_isa_suite_registered_, __LINE__) [[maybe_unused]] = \
      ::vta::testprog::register_isa_suite(prefix, maker, tags) &&                             \
      ::vta::testprog::register_isa_width_suite(prefix, maker, tags)
