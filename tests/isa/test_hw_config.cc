// HwConfig: presets load with the upstream derived constants; every rejection names its key.
#include <catch2/catch.hpp>

#include <iterator>
#include <limits>

#include <nlohmann/json.hpp>

#include "test_paths.h"
#include "vta/sim/dram_spec.h"
#include "vta/sim/error.h"
#include "vta/sim/hw_config.h"
#include "vta/sim/isa.h"
#include "vta/sim/memory_model.h"

using namespace vta;

namespace {

nlohmann::json pynq_json() {
  return HwConfig::from_file(config_path("pynq")).to_json();
}

std::string error_of(const nlohmann::json& j) {
  try {
    HwConfig::from_json(j, "test.json");
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "(accepted)";
}

}  // namespace

TEST_CASE("the default config has the upstream derived constants", "[config]") {
  const HwConfig& c = HwConfig::default_config();
  CHECK(c.batch == 1);
  CHECK(c.block_in == 16);
  CHECK(c.block_out == 16);
  CHECK(c.inp_elem_bytes == 16);
  CHECK(c.wgt_elem_bytes == 256);
  CHECK(c.acc_elem_bytes == 64);
  CHECK(c.out_elem_bytes == 16);
  CHECK(c.uop_buff_depth == 8192);
  CHECK(c.inp_buff_depth == 2048);
  CHECK(c.wgt_buff_depth == 1024);
  CHECK(c.acc_buff_depth == 2048);
  CHECK(c.out_buff_depth == 2048);
  CHECK(c.log_uop_buff_depth == 13);
  CHECK(c.bus_bytes == 8);
  CHECK(c.inp_beats == 2);
  CHECK(c.wgt_beats == 32);
  CHECK(c.acc_beats == 8);
  CHECK(c.out_beats == 2);
  CHECK(c.model_name == "1x16_i8w8a32_15_15_18_17");
}

TEST_CASE("every preset loads", "[config]") {
  for (const char* name : kPresetConfigs) {
    INFO(name);
    CHECK_NOTHROW(HwConfig::from_file(config_path(name)));
  }
  CHECK(HwConfig::from_file(config_path("ultra96")).bus_bytes == 16);
  CHECK(HwConfig::from_file(config_path("block32")).block_in == 32);
  CHECK(HwConfig::from_file(config_path("batch4")).batch == 4);
}

TEST_CASE("config rejects an unknown key", "[config]") {
  auto j = pynq_json();
  j["LOG_BLOK"] = 4;
  CHECK(error_of(j) == "test.json: unknown key 'LOG_BLOK'");
}

TEST_CASE("config rejects a missing key", "[config]") {
  auto j = pynq_json();
  j.erase("LOG_ACC_BUFF_SIZE");
  CHECK(error_of(j) == "test.json: missing key 'LOG_ACC_BUFF_SIZE'");
}

TEST_CASE("config rejects a non-integer value", "[config]") {
  auto j = pynq_json();
  j["LOG_BATCH"] = "0";
  CHECK(error_of(j) == "test.json: key 'LOG_BATCH' must be an integer, got \"0\"");
}

TEST_CASE("config rejects an out-of-range value", "[config]") {
  auto j = pynq_json();
  j["LOG_INP_WIDTH"] = 6;
  CHECK(error_of(j) ==
        "test.json: key 'LOG_INP_WIDTH' = 6 is out of range [0, 5]: input lanes are 1 to 32 bits "
        "(upstream's functional model packs lanes into 32-bit words)");
  j = pynq_json();
  j["LOG_ACC_WIDTH"] = 3;
  CHECK(error_of(j) ==
        "test.json: key 'LOG_ACC_WIDTH' = 3 is out of range [4, 5]: accumulators are int16 or "
        "int32: the ALU immediate is a signed 16-bit field that must fit an accumulator lane, and "
        "upstream's functional model computes in 32-bit ints");
  j = pynq_json();
  j["MAX_BURST_BEATS"] = 512;
  CHECK(error_of(j) ==
        "test.json: key 'MAX_BURST_BEATS' = 512 is out of range [1, 256]: AXI4 bursts are 1..256 "
        "beats");
}

TEST_CASE("config rejects a wrong HW_VER", "[config]") {
  auto j = pynq_json();
  j["HW_VER"] = "0.0.1";
  CHECK(error_of(j) ==
        "test.json: key 'HW_VER' = \"0.0.1\" is not supported: this simulator implements ISA "
        "\"0.0.2\"");
}

TEST_CASE("config rejects an unknown TARGET", "[config]") {
  auto j = pynq_json();
  j["TARGET"] = "vu9p";
  CHECK(error_of(j) ==
        "test.json: key 'TARGET' = \"vu9p\" is not one of sim, tsim, pynq, ultra96, zcu104, "
        "de10nano, intelfocl");
}

TEST_CASE("config rejects a uop buffer whose GEMM fields overflow 128 bits", "[config]") {
  auto j = pynq_json();
  j["LOG_UOP_BUFF_SIZE"] = 16;  // uop_bgn/uop_end of 14/15 bits push GEMM past word 0
  CHECK(error_of(j) ==
        "test.json: the GEMM instruction needs 142 bits with LOG_UOP_BUFF_SIZE=16, "
        "LOG_INP_BUFF_SIZE=15, LOG_WGT_BUFF_SIZE=18, LOG_ACC_BUFF_SIZE=17 (the upstream ISA has "
        "128)");
}

TEST_CASE("config rejects an acc buffer whose ALU fields overflow 128 bits", "[config]") {
  auto j = pynq_json();
  j["LOG_ACC_BUFF_SIZE"] = 18;  // acc depth 2^12: ALU word 1 needs 4*12+20 = 68 bits
  j["LOG_INP_BUFF_SIZE"] = 14;  // keeps GEMM word 1 at 2*(12+10+10) = 64 bits
  CHECK(error_of(j) ==
        "test.json: the ALU instruction needs 132 bits with LOG_UOP_BUFF_SIZE=15, "
        "LOG_INP_BUFF_SIZE=14, LOG_WGT_BUFF_SIZE=18, LOG_ACC_BUFF_SIZE=18 (the upstream ISA has "
        "128)");
}

TEST_CASE("config rejects micro-op fields wider than 32 bits", "[config]") {
  auto j = pynq_json();
  j["LOG_UOP_BUFF_SIZE"] = 10;  // small uop fields keep the GEMM/ALU layouts within 128 bits
  j["LOG_WGT_BUFF_SIZE"] = 20;  // wgt 12 + src 11 + dst 11 = 34 bits
  j["LOG_INP_BUFF_SIZE"] = 14;
  j["LOG_ACC_BUFF_SIZE"] = 17;
  const std::string e = error_of(j);
  CHECK(e.find("the micro-op needs 34 bits (dst 11 + src 11 + wgt 12)") != std::string::npos);
}

TEST_CASE("config rejects a buffer too deep for the 16-bit sram_base", "[config]") {
  auto j = pynq_json();
  j["LOG_INP_BUFF_SIZE"] = 21;  // 2^17 input tiles
  CHECK(error_of(j) ==
        "test.json: LOG_INP_BUFF_SIZE gives a buffer depth of 2^17 elements; VTA needs 2^1..2^16 "
        "(sram_base is 16 bits)");
}

TEST_CASE("config rejects a bad burst boundary", "[config]") {
  auto j = pynq_json();
  j["BURST_BOUNDARY_BYTES"] = 1000;
  CHECK(error_of(j) ==
        "test.json: BURST_BOUNDARY_BYTES = 1000 must be a power of two of at least one bus beat (8 "
        "bytes)");
}

TEST_CASE("config rejects a non-power-of-two burst length", "[config]") {
  auto j = pynq_json();
  j["MAX_BURST_BEATS"] = 100;
  CHECK(error_of(j) == "test.json: key 'MAX_BURST_BEATS' = 100 must be a power of two");
}

TEST_CASE("config rejects a bad clock", "[config]") {
  auto j = pynq_json();
  j["CLOCK_MHZ"] = -5;
  CHECK(error_of(j) == "test.json: key 'CLOCK_MHZ' = -5 must be a number of MHz in [1, 10000]");
  // Inside the old open range but no clock: used to overflow the DRAM timing in cycles.
  j["CLOCK_MHZ"] = 1e-300;
  CHECK(error_of(j) == "test.json: key 'CLOCK_MHZ' = 1e-300 must be a number of MHz in [1, 10000]");
  j["CLOCK_MHZ"] = std::numeric_limits<double>::quiet_NaN();  // Python's float('nan')
  CHECK_THAT(error_of(j), Catch::Matchers::Contains("must be a number of MHz in [1, 10000]"));
  j["CLOCK_MHZ"] = 1;
  CHECK(error_of(j) == "(accepted)");
}

TEST_CASE("config rejects invalid JSON and missing files", "[config]") {
  REQUIRE_THROWS_WITH(HwConfig::from_json_text("{", "x.json"),
                      Catch::Matchers::StartsWith("x.json: invalid JSON:"));
  REQUIRE_THROWS_WITH(HwConfig::from_file("/nonexistent.json"),
                      "cannot open config file '/nonexistent.json'");
}

TEST_CASE("memory model descriptions: the default, keys the config reads, analytic time",
          "[config][dram]") {
  const std::vector<std::string> names = memory_model_names();
  REQUIRE(names.size() >= 2);
  REQUIRE(find_memory_model_description(kDefaultMemoryModel) != nullptr);
  CHECK(find_memory_model_description("no-such-model") == nullptr);
  const nlohmann::json pynq = pynq_json();
  for (const std::string& name : names) {
    const MemoryModelDescription& m = *find_memory_model_description(name);
    INFO(name);
    CHECK(!m.description.empty());
    CHECK(std::string(m.keys_read_by).find(".cc") != std::string::npos);
    // Every key it names is one the config reader takes.
    REQUIRE(m.keys != nullptr);
    for (const std::string& key : m.keys()) {
      INFO(key);
      CHECK((pynq.contains(key) || is_memory_key(key)));
    }
    // A config naming it gets its entry; more bytes take longer, reads have some latency.
    nlohmann::json j = pynq;
    j["MEMORY_MODEL"] = name;
    const HwConfig c = HwConfig::from_json(j, "test.json");
    CHECK(&memory_model_description_of(c) == &m);
    CHECK(m.transfer_rates(c).cycles(4096, 0) > 0);
    CHECK(m.transfer_rates(c).cycles(8192, 4096) > m.transfer_rates(c).cycles(4096, 4096));
    CHECK(m.read_latency(c) > 0);
  }
  // Without MEMORY_MODEL: the default.
  nlohmann::json plain = pynq;
  plain.erase("MEMORY_MODEL");
  CHECK(HwConfig::from_json(plain, "test.json").memory.model == kDefaultMemoryModel);
}

TEST_CASE("memory model keys: default, presets, overrides and rejections", "[config][dram]") {
  // Without the keys (an upstream vta_config.json): the "fixed" model, and to_json writes none
  // of them back.
  nlohmann::json upstream = pynq_json();
  for (auto it = upstream.begin(); it != upstream.end();) {
    it = is_memory_key(it.key()) ? upstream.erase(it) : std::next(it);
  }
  const HwConfig plain = HwConfig::from_json(upstream, "test.json");
  CHECK(plain.memory.model == "fixed");
  CHECK(!plain.to_json().contains("MEMORY_MODEL"));
  // The board's parameter set by TARGET; one key overridden; the result round-trips.
  nlohmann::json j = upstream;
  j["MEMORY_MODEL"] = "dram";
  j["DRAM_TRCD"] = 9;
  const HwConfig c = HwConfig::from_json(j, "test.json");
  CHECK(c.memory.model == "dram");
  CHECK(c.memory.dram.preset == "PYNQ-Z1-DDR3-1066-x16");
  CHECK(c.memory.dram.rcd == 9);
  CHECK(c.memory.dram.rp == 7);
  CHECK(c.memory.dram.tck_ps == 1875);
  const HwConfig again = HwConfig::from_json(c.to_json(), "again.json");
  CHECK(again.to_json() == c.to_json());
  // Every preset uses its board's set; its *_fixed twin the fixed model; *_ddr are aliases.
  const std::pair<const char*, const char*> boards[] = {
      {"pynq", "PYNQ-Z1-DDR3-1066-x16"},   {"ultra96", "Ultra96-LPDDR4-2133-x32"},
      {"zcu104", "ZCU104-DDR4-2400-x64"},  {"de10nano", "DE10-Nano-DDR3-800-x32"},
      {"block32", "ZCU104-DDR4-2400-x64"}, {"batch4", "PYNQ-Z1-DDR3-1066-x16"},
      {"small", "PYNQ-Z1-DDR3-1066-x16"}};
  for (const auto& [file, set] : boards) {
    const HwConfig b = HwConfig::from_file(config_path(file));
    CHECK(b.memory.model == "dram");
    CHECK(b.memory.dram.preset == set);
    const HwConfig f = HwConfig::from_file(config_path(std::string(file) + "_fixed"));
    CHECK(f.memory.model == "fixed");
    nlohmann::json same = f.to_json();
    same["MEMORY_MODEL"] = "dram";
    CHECK(same == b.to_json());  // nothing else differs
  }
  for (const char* board : {"pynq", "ultra96", "zcu104", "de10nano"}) {
    CHECK(HwConfig::from_file(config_path(std::string(board) + "_ddr")).to_json() ==
          HwConfig::from_file(config_path(board)).to_json());
  }
  // Rejections name the key and the choices.
  nlohmann::json bad = pynq_json();
  bad["MEMORY_MODEL"] = "ddr";
  CHECK(error_of(bad) == "test.json: key 'MEMORY_MODEL' = \"ddr\" is not one of fixed, dram");
  bad = pynq_json();
  bad["DRAM_PRESET"] = "DDR5";
  CHECK(error_of(bad) ==
        "test.json: key 'DRAM_PRESET' = \"DDR5\" is not one of PYNQ-Z1-DDR3-1066-x16, "
        "Ultra96-LPDDR4-2133-x32, ZCU104-DDR4-2400-x64, DE10-Nano-DDR3-800-x32");
  bad = pynq_json();
  bad["DRAM_TRCDX"] = 3;
  CHECK(error_of(bad) == "test.json: unknown key 'DRAM_TRCDX'");
  bad = pynq_json();
  bad["DRAM_SCHEDULER"] = "fifo";
  CHECK(error_of(bad) == "test.json: key 'DRAM_SCHEDULER' = \"fifo\" is not one of frfcfs, fcfs");
  bad = pynq_json();
  bad["DRAM_BANKS"] = 6;
  CHECK(error_of(bad) == "test.json: key 'DRAM_BANKS' = 6 must be a power of two");
  bad = pynq_json();
  bad["DRAM_TRC"] = 20;
  CHECK(error_of(bad) ==
        "test.json: key 'DRAM_TRC' = 20 is less than DRAM_TRAS + DRAM_TRP = 27 (JEDEC: tRC >= "
        "tRAS + tRP)");
  bad = pynq_json();
  bad["DRAM_ADDRESS_MAP"] = "RoBaCo";
  CHECK(error_of(bad).find("key 'DRAM_ADDRESS_MAP' = \"RoBaCo\" must name each of") !=
        std::string::npos);
  bad = pynq_json();
  bad["DRAM_TCK_PS"] = "fast";
  CHECK(error_of(bad) == "test.json: key 'DRAM_TCK_PS' must be an integer, got \"fast\"");
}

// DRAM_TWTR_L (DDR4's same-bank-group tWTR) came after the other keys: unset (0 = tWTR) it is
// not written back, so every existing config keeps its canonical JSON and hash.
TEST_CASE("memory model keys: DRAM_TWTR_L is written back only when set", "[config][dram]") {
  nlohmann::json j = pynq_json();
  j["MEMORY_MODEL"] = "dram";
  const HwConfig c = HwConfig::from_json(j, "test.json");
  CHECK(c.memory.dram.wtr_l == 0);
  CHECK(c.memory.dram.wtr_l_ck() == c.memory.dram.wtr);
  CHECK(c.to_json().contains("DRAM_TWTR"));
  CHECK(!c.to_json().contains("DRAM_TWTR_L"));
  j["DRAM_TWTR"] = 3;
  j["DRAM_TWTR_L"] = 9;
  const HwConfig d = HwConfig::from_json(j, "test.json");
  CHECK(d.memory.dram.wtr_l_ck() == 9);
  CHECK(d.to_json().at("DRAM_TWTR_L") == 9);
  CHECK(HwConfig::from_json(d.to_json(), "again.json").to_json() == d.to_json());
  j["DRAM_TWTR_L"] = -1;
  CHECK(error_of(j) == "test.json: key 'DRAM_TWTR_L' = -1 is out of range [0, 1000]");
}

// The element-width rule (docs/element_widths.md), with the derived constants of
// vta-reference.md 1.3 worked out by hand.
TEST_CASE("config accepts every legal element width with its derived constants", "[config]") {
  auto j = pynq_json();
  j["LOG_INP_WIDTH"] = 2;  // int4 inputs, int4 weights, int16 accumulators
  j["LOG_WGT_WIDTH"] = 2;
  j["LOG_ACC_WIDTH"] = 4;
  // pynq's byte sizes give deeper buffers than the GEMM instruction's index fields can address:
  // 2 x (12 + 12 + 11) index bits + the 64 of word 0 (2.7).
  CHECK(error_of(j) ==
        "test.json: the GEMM instruction needs 134 bits with LOG_UOP_BUFF_SIZE=15, "
        "LOG_INP_BUFF_SIZE=15, LOG_WGT_BUFF_SIZE=18, LOG_ACC_BUFF_SIZE=17 (the upstream ISA has "
        "128)");
  j["LOG_INP_BUFF_SIZE"] = 14;  // half the bytes: pynq's depths
  j["LOG_WGT_BUFF_SIZE"] = 17;
  j["LOG_ACC_BUFF_SIZE"] = 16;
  vta::HwConfig c = vta::HwConfig::from_json(j, "test.json");
  CHECK(c.inp_width == 4);
  CHECK(c.out_width == 4);
  CHECK(c.inp_elem_bytes == 8);     // 16 lanes x 4 bits
  CHECK(c.wgt_elem_bytes == 128);   // 256 lanes x 4 bits
  CHECK(c.acc_elem_bytes == 32);    // 16 lanes x 16 bits
  CHECK(c.out_elem_bytes == 8);     // 16 lanes x 4 bits
  CHECK(c.inp_buff_depth == 2048);  // 2^(14 - 0 - 4 - 2 + 3)
  CHECK(c.wgt_buff_depth == 1024);  // 2^(17 - 8 - 2 + 3)
  CHECK(c.acc_buff_depth == 2048);  // 2^(16 - 0 - 4 - 4 + 3)
  CHECK(c.model_name == "1x16_i4w4a16_15_14_17_16");
  j = pynq_json();
  j["LOG_INP_WIDTH"] = 5;  // int32 everywhere
  j["LOG_WGT_WIDTH"] = 5;
  j["LOG_ACC_WIDTH"] = 5;
  c = vta::HwConfig::from_json(j, "test.json");
  CHECK(c.inp_elem_bytes == 64);
  CHECK(c.wgt_elem_bytes == 1024);
  CHECK(c.inp_buff_depth == 512);  // 2^(15 - 4 - 5 + 3)
  CHECK(c.wgt_buff_depth == 256);  // 2^(18 - 8 - 5 + 3)
  CHECK(c.acc_buff_depth == 2048);
  CHECK(c.elem_bytes(vta::kMemAcc8) == 16);  // one int8 byte per acc lane
}

TEST_CASE("config refuses element widths outside the rule, naming why", "[config]") {
  auto j = pynq_json();
  j["LOG_INP_WIDTH"] = 5;  // int32 inputs, int16 accumulators
  j["LOG_ACC_WIDTH"] = 4;
  CHECK(error_of(j) ==
        "test.json: LOG_INP_WIDTH = 5 is wider than LOG_ACC_WIDTH = 4: the output lane has the "
        "input width and STORE truncates an accumulator lane to it");
  j = pynq_json();
  j["LOG_BLOCK"] = 1;  // 2 one-bit input lanes: a quarter byte
  j["LOG_INP_WIDTH"] = 0;
  CHECK(error_of(j) ==
        "test.json: an input tile (BATCH x BLOCK_IN x INP_WIDTH) is 2 bits with LOG_BATCH=0, "
        "LOG_BLOCK=1, LOG_INP_WIDTH=0, LOG_WGT_WIDTH=3; DMA and SRAM addresses count whole bytes");
  j = pynq_json();
  j["LOG_WGT_WIDTH"] = 0;  // 256 one-bit weights: 32-byte tiles
  j["LOG_WGT_BUFF_SIZE"] = 15;
  CHECK(vta::HwConfig::from_json(j, "test.json").wgt_buff_depth == 1024);  // 2^(15 - 8 - 0 + 3)
  j["LOG_WGT_BUFF_SIZE"] = 22;  // 2^(22 - 8 - 0 + 3) = 2^17 weight tiles: beyond sram_base
  CHECK(error_of(j) ==
        "test.json: LOG_WGT_BUFF_SIZE gives a buffer depth of 2^17 elements; VTA needs 2^1..2^16 "
        "(sram_base is 16 bits)");
}
