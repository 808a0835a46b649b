// Program images: save a program built in one Dram, replay it in a fresh Dram at the same
// physical addresses, and get the same outputs as a plain C++ conv reference; malformed files
// are rejected with a message naming the part.
#include <catch2/catch.hpp>

#include <cstring>
#include <random>

#include <nlohmann/json.hpp>

#include "bench_programs.h"
#include "test_paths.h"
#include "vta/sim/error.h"
#include "vta/sim/fsim.h"
#include "vta/sim/program_image.h"

using namespace vta;
using namespace vta::testprog;

TEST_CASE("Dram::alloc_at places pages at the requested address", "[fsim][image]") {
  Dram dram;
  void* a = dram.alloc(100);  // page 1
  CHECK(dram.phys_addr(a) == 0x1000);
  void* b = dram.alloc_at(0x5000, 0x1800);  // pages 5 and 6
  CHECK(dram.phys_addr(b) == 0x5000);
  CHECK(dram.is_allocated(0x5000, 0x2000));
  CHECK_FALSE(dram.is_allocated(0x2000, 1));
  CHECK_THROWS_WITH(dram.alloc_at(0x6000, 4), Catch::Contains("page 0x6000 is already allocated"));
  CHECK_THROWS_WITH(dram.alloc_at(0x0, 4), Catch::Contains("outside the simulated DRAM"));
  // The gap below the placed pages is still handed out by alloc().
  void* c = dram.alloc(3 * 4096);
  CHECK(dram.phys_addr(c) == 0x2000);
  const auto allocs = dram.allocations();
  REQUIRE(allocs.size() == 3);
  CHECK(allocs[0] == std::make_pair(0x1000u, uint64_t{0x1000}));
  CHECK(allocs[1] == std::make_pair(0x2000u, uint64_t{0x3000}));
  CHECK(allocs[2] == std::make_pair(0x5000u, uint64_t{0x2000}));
  dram.free(b);
  CHECK_FALSE(dram.is_allocated(0x5000, 1));
}

TEST_CASE("a program image replays a conv in a fresh DRAM", "[fsim][image]") {
  const uint32_t seed = 99;
  INFO("seed " << seed);
  const HwConfig cfg = HwConfig::from_file(config_path("pynq"));
  std::vector<uint8_t> file;
  std::vector<int8_t> expect;
  uint32_t out_phys = 0, out_bytes = 0;
  {
    Dram dram;
    ProgramBuilder pb(cfg, dram);
    std::mt19937 rng(seed);
    const ConvProgram conv = build_conv3x3_program(pb, ConvSpec{5, 6, 32, 48}, rng);
    const DeviceBuffer insns = pb.emit();
    expect = reference_conv3x3(cfg, conv);
    out_phys = conv.out.phys;
    out_bytes = static_cast<uint32_t>(conv.out.bytes);
    ProgramImage img = ProgramImage::capture(
        dram, insns.phys, static_cast<uint32_t>(pb.insns().size()), cfg.to_json().dump());
    img.outputs.push_back(ImageOutput{"out", out_phys, out_bytes,
                                      std::vector<uint8_t>(expect.begin(), expect.end())});
    file = img.serialize();
  }
  const ProgramImage img = ProgramImage::parse(file, "memory");
  CHECK(img.outputs.size() == 1);
  const HwConfig cfg2 = HwConfig::from_json_text(img.config_json, "image");
  CHECK(cfg2.model_name == cfg.model_name);
  Dram dram;
  img.load_into(dram);
  CHECK(img.check_outputs(dram) != "");  // not run yet: the output region is still zero
  FsimBackend fsim(cfg2, dram);
  fsim.run(img.insn_phys, img.insn_count, 0);
  CHECK(img.check_outputs(dram) == "");
  CHECK(std::memcmp(dram.host_ptr(out_phys), expect.data(), out_bytes) == 0);
  CHECK(ProgramImage::parse(img.serialize(), "again").serialize() == file);
}

TEST_CASE("malformed program images are rejected", "[fsim][image]") {
  ProgramImage img;
  img.insn_phys = 0x1000;
  img.insn_count = 1;
  img.segments.push_back(ImageSegment{0x1000, std::vector<uint8_t>(16, 0)});
  std::vector<uint8_t> data = img.serialize();
  std::vector<uint8_t> bad = data;
  bad[0] = 'X';
  CHECK_THROWS_WITH(ProgramImage::parse(bad, "f.img"),
                    "f.img: not a VTA program image (bad magic; expected \"VTAIMG01\")");
  bad = data;
  bad.resize(bad.size() - 6);
  CHECK_THROWS_WITH(ProgramImage::parse(bad, "f.img"),
                    Catch::StartsWith("f.img: truncated program image while reading segment data"));
  bad = data;
  bad.push_back(0);
  CHECK_THROWS_WITH(ProgramImage::parse(bad, "f.img"),
                    "f.img: 1 unexpected bytes after the program image");
  bad = data;
  bad[8] = 2;
  CHECK_THROWS_WITH(ProgramImage::parse(bad, "f.img"),
                    "f.img: program image version 2 is not supported (expected 1)");
  CHECK_THROWS_WITH(ProgramImage::load("/nonexistent/x.img"),
                    "cannot open program image '/nonexistent/x.img'");
}

// An image keeps the config it was built for; its element widths must be the device's.
TEST_CASE("an image built for other element widths is refused", "[fsim][image]") {
  const HwConfig pynq = HwConfig::from_file(config_path("pynq"));
  const HwConfig wide = HwConfig::from_file(config_path("pynq_int32"));
  ProgramImage img;
  CHECK_NOTHROW(img.check_widths(wide, "f.img"));  // no config recorded: nothing to compare
  img.config_json = pynq.to_json().dump();
  CHECK_NOTHROW(img.check_widths(pynq, "f.img"));
  nlohmann::json other_bus = pynq.to_json();  // other keys do not matter here
  other_bus["LOG_BUS_WIDTH"] = 7;
  CHECK_NOTHROW(img.check_widths(HwConfig::from_json(other_bus, "bus"), "f.img"));
  CHECK_THROWS_WITH(
      img.check_widths(wide, "f.img"),
      "f.img was built for int8 inputs, int8 weights and int32 accumulators "
      "(1x16_i8w8a32_15_15_18_17), but the config 1x16_i32w32a32_15_17_20_17 has int32 inputs, "
      "int32 weights and int32 accumulators: a program runs only at the element widths it was "
      "built for");
}
