// The FPGA resource model against Yosys: single memories synthesized alone (the block-RAM rule)
// and the committed Yosys reports of whole cores (explore/area_data/reports/), of which the
// held-out val_* designs were not used to fit the model.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "vta/explore/area_model.h"
#include "vta/sim/hw_config.h"

#include "model_test_support.h"

using vta::explore::estimate_area;
using vta::explore::map_memory;
using vta::exploretest::pynq_at;

TEST_CASE("area: one memory maps like Yosys maps vta_sram alone", "[explore][area]") {
  // (depth, width) -> what `synth_xilinx -family xc7` made of hw/rtl/vta_sram.v with those
  // parameters: LUT-RAM when its cells cost less than the cheapest block RAM tiling.
  CHECK(map_memory(256, 8).lutram == 12);   // 12 RAM64M cells
  CHECK(map_memory(64, 32).lutram == 11);   // 11 RAM64M cells
  CHECK(map_memory(64, 64).lutram == 22);   // 22 RAM64M cells beat one RAMB36 (512 x 72)
  CHECK(map_memory(32, 64).lutram == 11);   // 11 RAM32M cells
  CHECK(map_memory(512, 8).bram36 == 0.5);  // one RAMB18
  CHECK(map_memory(128, 32).bram36 == 0.5);
  CHECK(map_memory(4096, 8).bram36 == 1);      // one RAMB36
  CHECK(map_memory(8192, 8).bram36 == 2);      // two RAMB36
  CHECK(map_memory(2048, 128).bram36 == 7.5);  // 15 RAMB18 of 2K x 9
  CHECK(map_memory(1024, 32).bram36 == 1);
}

TEST_CASE("area: DSP48 slices of one product at each width", "[explore][area]") {
  using vta::explore::dsp_per_product;
  // By hand from Yosys' mul2dsp rule (25 x 18 signed multiplier; wider operands split into
  // 17-bit chunks plus a rest; products under 9 bits or with a 1-bit operand stay in LUTs).
  CHECK(dsp_per_product(8, 8, 32) == 1);
  CHECK(dsp_per_product(4, 4, 16) == 0);  // 8 product bits
  CHECK(dsp_per_product(4, 4, 32) == 0);
  CHECK(dsp_per_product(2, 4, 32) == 0);  // 6 bits
  CHECK(dsp_per_product(1, 8, 32) == 0);  // a 1-bit operand
  CHECK(dsp_per_product(4, 8, 32) == 1);  // 12 bits
  CHECK(dsp_per_product(16, 16, 32) == 1);
  CHECK(dsp_per_product(25, 18, 43) == 1);  // the multiplier exactly
  CHECK(dsp_per_product(19, 18, 37) == 1);  // 19 <= 25: a is the wider operand
  CHECK(dsp_per_product(20, 20, 40) == 2);  // b = 20 > 18: 17 + 3 bits
  CHECK(dsp_per_product(26, 18, 44) == 2);  // a = 26 > 25: 17 + 9 bits
  CHECK(dsp_per_product(8, 32, 32) == 2);   // 32 = 17 + 15 bits: two 17 x 8 products
  CHECK(dsp_per_product(16, 32, 32) == 2);
  // 32 x 32: (lo, lo) at bit 0, (lo, hi) and (hi, lo) at bit 17, (hi, hi) at bit 34 >= 32.
  CHECK(dsp_per_product(32, 32, 32) == 3);
  CHECK(dsp_per_product(32, 32, 64) == 4);  // the whole product keeps (hi, hi)
  // tensor_alu.v's unsigned W x W MUL becomes a signed (W + 1) x (W + 1) one.
  CHECK(dsp_per_product(17, 17, 16) == 1);
  CHECK(dsp_per_product(33, 33, 32) == 3);
}

TEST_CASE("area: the GEMM array's and the ALU's DSPs follow the widths", "[explore][area]") {
  // Measured: Yosys 0.23 `synth_xilinx -family xc7 -flatten` of hw/rtl/gemm_core.v alone
  // (-DVTA_GEMM_PACKED) at 1x4x4 (16 products) gave 8 DSP48E1 at int8 x int8 -> int32, 16 at
  // int8 -> int16, 0 at int4 (int16 and int32 acc), 16 at int16 x int16, 16 at int4 x int8,
  // 32 at int8 x int32 and at int16 x int32, 48 at int32 x int32; tensor_alu.v alone at 4
  // lanes gave 12 at int32 and 4 at int16.
  const auto g = [](int i, int w, int a) { return vta::explore::gemm_array_dsp(pynq_at(i, w, a)); };
  CHECK(g(3, 3, 5) == 128);  // 256 MACs, two per DSP
  CHECK(g(3, 3, 4) == 256);  // int8 -> int16 is not packed: one DSP per product
  CHECK(g(2, 2, 4) == 0);    // int4: LUT multipliers
  CHECK(g(2, 2, 5) == 0);
  CHECK(g(2, 3, 5) == 256);
  CHECK(g(4, 4, 5) == 256);
  CHECK(g(3, 5, 5) == 512);
  CHECK(g(5, 5, 5) == 768);
  CHECK(vta::explore::lut_mul_bits(pynq_at(2, 2, 4)) == 256 * 16);
  CHECK(vta::explore::lut_mul_bits(pynq_at(3, 3, 5)) == 0);
  CHECK(vta::explore::alu_multiplier_dsp(pynq_at(3, 3, 5)) == 48);  // 16 lanes x 3
  CHECK(vta::explore::alu_multiplier_dsp(pynq_at(2, 2, 4)) == 16);
}

TEST_CASE("area: the buffers' block RAM follows the widths", "[explore][area]") {
  // pynq at int4: the same depths as int8 (half the bytes), tiles half as wide.
  const auto mems = vta::explore::core_memories(pynq_at(2, 2, 4));
  for (const auto& m : mems) {
    if (m.name == "inp") {
      CHECK(m.depth == 2048);
      CHECK(m.width_bits == 64);  // 16 lanes x 4 bits
    } else if (m.name == "wgt") {
      CHECK(m.depth == 1024);
      CHECK(m.width_bits == 1024);  // 16 x 16 lanes x 4 bits
    } else if (m.name == "acc") {
      CHECK(m.depth == 2048);
      CHECK(m.width_bits == 256);  // 16 lanes x 16 bits
    } else if (m.name == "out") {
      CHECK(m.width_bits == 64);
    }
  }
}

TEST_CASE("area: the model against the committed Yosys reports", "[explore][area]") {
  const std::filesystem::path dir = VTA_AREA_DATA_DIR "/reports";
  REQUIRE(std::filesystem::is_directory(dir));
  int held_out = 0;
  for (const auto& f : std::filesystem::directory_iterator(dir)) {
    std::ifstream in(f.path());
    const auto r = nlohmann::json::parse(in);
    const auto cfg = vta::HwConfig::from_json(r.at("config"), f.path().string());
    const auto est = estimate_area(cfg).total;
    const auto& y = r.at("resources");
    INFO(f.path().filename().string());
    CHECK(est.dsp == y.at("dsp").get<double>());
    CHECK(est.bram36 == y.at("bram36").get<double>());
    CHECK(std::fabs(est.lut / y.at("lut").get<double>() - 1) <= 0.10);
    CHECK(std::fabs(est.ff / y.at("ff").get<double>() - 1) <= 0.10);
    held_out += f.path().filename().string().rfind("val_", 0) == 0 ? 1 : 0;
  }
  CHECK(held_out >= 3);
}

TEST_CASE("area: fit verdicts against the device budgets", "[explore][area]") {
  const auto* z7020 = vta::explore::find_device("pynq");
  REQUIRE(z7020 != nullptr);
  CHECK(z7020->part == "xc7z020");
  vta::explore::FpgaResources used{40000, 0, 12000, 188, 116.5};
  auto v = vta::explore::check_fit(used, *z7020);
  CHECK(v.fits);
  CHECK(v.binding == "dsp");  // 188 / 220 = 85%
  used.bram36 = 141;
  v = vta::explore::check_fit(used, *z7020);
  CHECK_FALSE(v.fits);
  CHECK(v.binding == "bram36");
  CHECK(vta::explore::find_device("no-such-board") == nullptr);
}
