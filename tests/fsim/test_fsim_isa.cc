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

// Every GEMM kernel variant this CPU has, each under the fixed and two shuffled stage orders: a
// correctly synchronised program must give the same result under any interleaving.
TEST_CASE("fsim ISA suite on every GEMM kernel and shuffled stage orders", "[fsim]") {
  for (const char* config : kIsaSuiteConfigs) {
    const HwConfig cfg = HwConfig::from_file(config_path(config));
    const GemmShape shape{cfg.batch, cfg.block_in, cfg.block_out};
    std::vector<GemmKernelKind> kinds{GemmKernelKind::kGeneric};
    if (gemm_avx2_available(shape)) {
      kinds.push_back(GemmKernelKind::kAvx2);
    }
    if (gemm_avx512_available(shape)) {
      kinds.push_back(GemmKernelKind::kAvx512);
    }
    if (gemm_avx512_int8_available(shape)) {
      kinds.push_back(GemmKernelKind::kAvx512Int8);
    }
    for (const IsaTestCase& tc : isa_test_cases(cfg)) {
      for (GemmKernelKind kind : kinds) {
        for (uint32_t seed : {0u, 1u, 77u}) {
          if (seed != 0 && kind != GemmKernelKind::kGeneric) {
            continue;  // the stage order does not interact with the kernel choice
          }
          INFO(config << " " << tc.name << " kernel " << gemm_kernel_kind_name(kind)
                      << " stage order seed " << seed);
          Dram dram;
          FsimBackend fsim(cfg, dram);
          fsim.set_gemm_kernel(kind);
          fsim.set_stage_order_seed(seed);
          CHECK(tc.run_and_check(fsim) == "");
        }
      }
    }
  }
}
