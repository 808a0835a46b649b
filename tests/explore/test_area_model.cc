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

using vta::explore::estimate_area;
using vta::explore::map_memory;

TEST_CASE("area: one memory maps like Yosys maps vta_sram alone", "[explore][area]") {
  // (depth, width) -> what `synth_xilinx -family xc7` made of hw/rtl/vta_sram.v with those
  // parameters: LUT-RAM when its cells cost less than the cheapest block RAM tiling.
  CHECK(map_memory(256, 8).lutram == 12);   // 12 RAM64M cells
  CHECK(map_memory(64, 32).lutram == 11);   // 11 RAM64M cells
  CHECK(map_memory(64, 64).lutram == 22);   // 22 RAM64M cells beat one RAMB36 (512 x 72)
  CHECK(map_memory(32, 64).lutram == 11);   // 11 RAM32M cells
  CHECK(map_memory(512, 8).bram36 == 0.5);  // one RAMB18
  CHECK(map_memory(128, 32).bram36 == 0.5);
  CHECK(map_memory(4096, 8).bram36 == 1);     // one RAMB36
  CHECK(map_memory(8192, 8).bram36 == 2);     // two RAMB36
  CHECK(map_memory(2048, 128).bram36 == 7.5);  // 15 RAMB18 of 2K x 9
  CHECK(map_memory(1024, 32).bram36 == 1);
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
