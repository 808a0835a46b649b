// The shared ISA program suite on fsim: one Catch test per (config, program), plus all programs
// again in one test with the portable GEMM kernel and with randomised stage orders.
#include <catch2/catch.hpp>

#include "isa_programs.h"
#include "test_paths.h"
#include "vta/sim/fsim.h"

using namespace vta;
using namespace vta::testprog;

VTA_REGISTER_ISA_SUITE(
    "fsim",
    [](const HwConfig& c, Dram& d) -> std::unique_ptr<Backend> {
      return std::make_unique<FsimBackend>(c, d);
    },
    "[fsim]");

TEST_CASE("fsim ISA suite with the generic GEMM kernel and shuffled stage orders", "[fsim]") {
  for (const char* config : kIsaSuiteConfigs) {
    const HwConfig cfg = HwConfig::from_file(config_path(config));
    for (const IsaTestCase& tc : isa_test_cases(cfg)) {
      for (uint32_t seed : {0u, 1u, 77u}) {
        INFO(config << " " << tc.name << " stage order seed " << seed);
        Dram dram;
        FsimBackend fsim(cfg, dram);
        fsim.set_gemm_kernel(GemmKernelKind::kGeneric);
        fsim.set_stage_order_seed(seed);
        CHECK(tc.run_and_check(fsim) == "");
      }
    }
  }
}
