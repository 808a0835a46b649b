// Tiles narrower than a bus beat on rtl (small_int4_bus128: 8-byte int4 input and output tiles,
// two per 128-bit beat; hw/README.md "Tiles narrower than a bus beat"). Rows that start at
// either lane of a beat, of odd and even lengths and strides: LOAD INP must put each tile at its
// SRAM index and STORE must write exactly the row's bytes (the DRAM bytes around each row keep
// their 0x5A fill). Values are checked against a plain lane reference (lane_reference.h), the
// cycles against the cycle model.
#include <catch2/catch.hpp>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "lane_reference.h"
#include "program_builder.h"
#include "rtl_test_support.h"
#include "test_paths.h"
#include "vta/hw/rtl_backend.h"
#include "vta/sim/cycle/cycle_backend.h"

using namespace vta;
using namespace vta::testprog;
using vta::rtltest::rtl_model_built;

namespace {

constexpr const char* kConfig = "small_int4_bus128";

// A rows x cols block of tiles in DRAM at tile offset `lane` of an aligned buffer, rows `stride`
// tiles apart: the layout both programs below read or write.
struct Block {
  uint32_t lane, rows, cols, stride;
  uint32_t span() const { return lane + (rows - 1) * stride + cols + 1; }  // tiles, +1 after
  uint32_t at(uint32_t y, uint32_t x) const { return lane + y * stride + x; }
  uint32_t seed() const { return lane * 100 + cols * 10 + stride; }  // of the random data
};

// Expected DRAM bytes after STOREing `tiles` (out lanes, row-major) to `b` over a 0x5A fill.
std::vector<uint8_t> expected_store(const HwConfig& cfg, const Block& b,
                                    const std::vector<int32_t>& lanes) {
  const size_t e = cfg.out_elem_bytes, n = tile_lanes(cfg, kMemOut);
  std::vector<uint8_t> bytes(b.span() * e, 0x5A);
  for (uint32_t y = 0; y < b.rows; ++y) {
    for (uint32_t x = 0; x < b.cols; ++x) {
      const size_t t = y * b.cols + x;
      const std::vector<int32_t> tile(lanes.begin() + t * n, lanes.begin() + (t + 1) * n);
      write_lanes(cfg, kMemOut, bytes.data() + b.at(y, x) * e, tile);
    }
  }
  return bytes;
}

// ACC tiles -> ALU SHR 0 (a copy into the out buffer) -> STORE of block `b`. Returns "" or what
// differs; `cycles` gets the run's cycle count.
std::string store_block(const HwConfig& cfg, Backend& be, const Block& b, uint64_t& cycles) {
  std::mt19937 rng(b.seed());
  ProgramBuilder pb(cfg, be.dram());
  const uint32_t tiles = b.rows * b.cols;
  const size_t acc_n = tile_lanes(cfg, kMemAcc);
  DeviceBuffer src = pb.alloc(tiles * cfg.acc_elem_bytes);
  DeviceBuffer out = pb.alloc(b.span() * cfg.out_elem_bytes);
  const std::vector<int32_t> acc = random_lanes(tiles * acc_n, cfg.acc_width, -300, 300, rng);
  for (uint32_t t = 0; t < tiles; ++t) {
    write_lanes(cfg, kMemAcc, src.host + t * cfg.acc_elem_bytes,
                std::vector<int32_t>(acc.begin() + t * acc_n, acc.begin() + (t + 1) * acc_n));
  }
  std::memset(out.host, 0x5A, out.bytes);
  std::vector<int32_t> kept;
  for (int32_t v : acc) {
    kept.push_back(ref_store_lane(cfg, ref_alu_lane(cfg, kAluShr, v, 0)));
  }
  DeviceBuffer uops = pb.alloc_uops({Uop{0, 0, 0}});
  pb.push(make_load_1d(kMemUop, 0, uops.phys / 4, 1));
  pb.push(make_load_1d(kMemAcc, 0, src.elem(cfg, kMemAcc), tiles));
  UopLoop l;
  l.iter_in = tiles;
  l.dst_factor_in = 1;
  l.src_factor_in = 1;
  pb.push(make_alu(kAluShr, l, true, 0, Deps{0, 0, 0, 1}));
  pb.push(make_load_store(kOpStore, kMemOut, 0, out.elem(cfg, kMemOut) + b.lane, b.rows, b.cols,
                          b.stride, Deps{1, 0, 1, 0}));
  pb.push(make_finish(false, true));
  const uint64_t before = be.stats().cycles;
  pb.run(be);
  cycles = be.stats().cycles - before;
  const std::vector<uint8_t> want = expected_store(cfg, b, kept);
  return std::memcmp(want.data(), out.host, want.size()) == 0 ? "" : "stored bytes differ";
}

// LOAD INP of block `b` (other tiles of the buffer random too), read back through a GEMM with
// identity weights (acc = inp lane) and a contiguous STORE.
std::string load_block(const HwConfig& cfg, Backend& be, const Block& b, uint64_t& cycles) {
  std::mt19937 rng(b.seed());
  ProgramBuilder pb(cfg, be.dram());
  const uint32_t tiles = b.rows * b.cols;
  const size_t inp_n = tile_lanes(cfg, kMemInp), out_n = tile_lanes(cfg, kMemOut);
  DeviceBuffer inp = pb.alloc(b.span() * cfg.inp_elem_bytes);
  DeviceBuffer wgt = pb.alloc(cfg.wgt_elem_bytes);
  DeviceBuffer out = pb.alloc(tiles * cfg.out_elem_bytes);
  const std::vector<int32_t> lanes = random_lanes(b.span() * inp_n, cfg.inp_width, -8, 8, rng);
  write_lanes(cfg, kMemInp, inp.host, lanes);
  std::vector<int32_t> eye(tile_lanes(cfg, kMemWgt), 0);
  for (int o = 0; o < cfg.block_out; ++o) {
    eye[static_cast<size_t>(o * cfg.block_in + o)] = 1;
  }
  write_lanes(cfg, kMemWgt, wgt.host, eye);
  std::vector<int32_t> want;  // out lane (batch, o) = inp lane (batch, o) of the loaded tile
  for (uint32_t y = 0; y < b.rows; ++y) {
    for (uint32_t x = 0; x < b.cols; ++x) {
      for (size_t k = 0; k < out_n; ++k) {
        const size_t batch = k / cfg.block_out, o = k % cfg.block_out;
        const int32_t v = lanes[b.at(y, x) * inp_n + batch * cfg.block_in + o];
        want.push_back(ref_store_lane(cfg, wrap_lane(v, cfg.acc_width)));
      }
    }
  }
  DeviceBuffer uops = pb.alloc_uops({Uop{0, 0, 0}});
  pb.push(make_load_1d(kMemUop, 0, uops.phys / 4, 1));
  pb.push(make_load_store(kOpLoad, kMemInp, 0, inp.elem(cfg, kMemInp) + b.lane, b.rows, b.cols,
                          b.stride));
  pb.push(make_load_1d(kMemWgt, 0, wgt.elem(cfg, kMemWgt), 1, Deps{0, 0, 0, 1}));
  UopLoop l;
  l.iter_in = tiles;
  l.dst_factor_in = 1;
  l.src_factor_in = 1;
  pb.push(make_gemm(l, true, Deps{1, 0, 0, 0}));
  pb.push(make_gemm(l, false, Deps{0, 0, 0, 1}));
  pb.push(make_store_1d(0, out.elem(cfg, kMemOut), tiles, Deps{1, 0, 1, 0}));
  pb.push(make_finish(false, true));
  const uint64_t before = be.stats().cycles;
  pb.run(be);
  cycles = be.stats().cycles - before;
  std::vector<uint8_t> bytes(out.bytes, 0);
  write_lanes(cfg, kMemOut, bytes.data(), want);
  return std::memcmp(bytes.data(), out.host, bytes.size()) == 0 ? "" : "loaded tiles differ";
}

using BlockProgram = std::string (*)(const HwConfig&, Backend&, const Block&, uint64_t&);

// Runs `program` on rtl and on the cycle model of small_int4_bus128, whose `tile_bytes` tiles
// are half a beat, for 3-row blocks at either lane of a beat, of 1 to 3 tiles a row, dense or
// one tile apart: both must pass and take the same cycles.
void check_half_beat_blocks(BlockProgram program, int HwConfig::*tile_bytes) {
  if (!rtl_model_built(kConfig)) {
    SUCCEED("no small_int4_bus128 RTL model in this build");
    return;
  }
  const HwConfig cfg = HwConfig::from_file(config_path(kConfig));
  REQUIRE(cfg.*tile_bytes * 2 == cfg.bus_bytes);
  for (uint32_t lane : {0U, 1U}) {
    for (uint32_t cols : {1U, 2U, 3U}) {
      for (uint32_t stride : {cols, cols + 1}) {
        const Block b{lane, 3, cols, stride};
        INFO("lane " << lane << " cols " << cols << " stride " << stride << " seed " << b.seed());
        Dram d_rtl, d_cyc;
        RtlBackend rtl(cfg, d_rtl);
        CycleBackend cyc(cfg, d_cyc);
        uint64_t c_rtl = 0, c_cyc = 0;
        CHECK(program(cfg, rtl, b, c_rtl).empty());
        CHECK(program(cfg, cyc, b, c_cyc).empty());
        CHECK(c_rtl == c_cyc);
      }
    }
  }
}

}  // namespace

TEST_CASE("rtl: STORE of half-beat tiles at either lane keeps the bytes around each row",
          "[rtl][narrow]") {
  check_half_beat_blocks(store_block, &HwConfig::out_elem_bytes);
}

TEST_CASE("rtl: LOAD INP of half-beat tiles at either lane puts each tile at its index",
          "[rtl][narrow]") {
  check_half_beat_blocks(load_block, &HwConfig::inp_elem_bytes);
}
