// The GEMM kernel variants against a scalar int8 reference at every BLOCK (2..64) and BATCH
// (1..16), with random loop nests, and the whole ISA suite on extreme configs.
#include <catch2/catch.hpp>

#include <cstring>
#include <random>

#include <fmt/format.h>

#include "isa_programs.h"
#include "vta/sim/fsim.h"
#include "vta/sim/fsim_gemm_kernel.h"

using namespace vta;
using namespace vta::testprog;

namespace {

// Runs one random GEMM loop nest through `kind` and through a scalar reference on int8 data.
std::string check_kernel(GemmKernelKind kind, const GemmShape& s, uint32_t seed) {
  std::mt19937 rng(seed);
  const uint32_t n_inp = 8, n_wgt = 6, n_acc = 12;
  const size_t il = s.batch * s.block_in, wl = s.block_in * s.block_out, al = s.batch * s.block_out;
  std::vector<int8_t> inp8(n_inp * il), wgt8(n_wgt * wl);
  std::uniform_int_distribution<int> d8(-128, 127);
  for (auto& v : inp8) {
    v = static_cast<int8_t>(d8(rng));
  }
  for (auto& v : wgt8) {
    v = static_cast<int8_t>(d8(rng));
  }
  // Extreme values too: -128 * -128 pairs are the one pmaddwd corner that could overflow int16,
  // and 127 weights are the largest biased bytes (255) of the byte kernel.
  inp8[0] = inp8[1] = -128;
  wgt8[0] = wgt8[1] = -128;
  for (size_t k = 0; k < il; ++k) {
    inp8[il + k] = k % 2 == 0 ? int8_t{127} : int8_t{-128};
    inp8[2 * il + k] = 127;
  }
  for (size_t k = 0; k < wl; ++k) {
    wgt8[wl + k] = -128;
    wgt8[2 * wl + k] = k % 3 == 0 ? int8_t{127} : int8_t{-128};
  }
  // The SRAM images in the kernel's layout, packed by the loader's functions.
  const GemmLayout layout = gemm_kernel_layout(kind);
  const size_t inp_bytes = gemm_inp_tile_bytes(layout, s),
               wgt_bytes = gemm_wgt_tile_bytes(layout, s);
  std::vector<uint8_t> inp(n_inp * inp_bytes), wgt(n_wgt * wgt_bytes);
  pack_gemm_inp_tiles(layout, s, inp8.data(), n_inp, inp.data());
  for (uint32_t t = 0; t < n_wgt; ++t) {
    pack_gemm_wgt_tile(layout, s, &wgt8[t * wl], &wgt[t * wgt_bytes]);
  }
  std::vector<int32_t> acc(n_acc * al), ref;
  std::uniform_int_distribution<int32_t> d32(INT32_MIN, INT32_MAX);
  for (auto& v : acc) {
    v = d32(rng);
  }
  ref = acc;
  std::vector<Uop> uops{{1, 2, 3}, {0, 0, 0}, {3, 1, 1}};
  GemmLoop l;
  l.uops = uops.data();
  l.n_uops = 3;
  l.iter_out = 2;
  l.iter_in = 3;
  l.dst_factor_out = 4;
  l.dst_factor_in = 1;
  l.src_factor_out = 1;
  l.src_factor_in = 2;
  l.wgt_factor_out = 2;
  l.wgt_factor_in = 0;
  std::vector<uint8_t> stale(n_acc, 0);
  select_gemm_kernel(kind, s)(s, l, GemmBuffers{inp.data(), wgt.data(), acc.data(), stale.data()});
  for (uint32_t io = 0; io < l.iter_out; ++io) {
    for (uint32_t ii = 0; ii < l.iter_in; ++ii) {
      for (const Uop& u : uops) {
        const uint32_t d = u.dst_idx + io * l.dst_factor_out + ii * l.dst_factor_in;
        const uint32_t x = u.src_idx + io * l.src_factor_out + ii * l.src_factor_in;
        const uint32_t w = u.wgt_idx + io * l.wgt_factor_out + ii * l.wgt_factor_in;
        for (int b = 0; b < s.batch; ++b) {
          for (int oc = 0; oc < s.block_out; ++oc) {
            int64_t dot = 0;
            for (int k = 0; k < s.block_in; ++k) {
              dot += inp8[x * il + b * s.block_in + k] * wgt8[w * wl + oc * s.block_in + k];
            }
            int32_t& a = ref[d * al + b * s.block_out + oc];
            a = static_cast<int32_t>(static_cast<uint32_t>(a) + static_cast<uint32_t>(dot));
          }
        }
        if (!stale[d]) {
          return fmt::format("out buffer of acc {} not marked stale", d);
        }
      }
    }
  }
  for (size_t k = 0; k < acc.size(); ++k) {
    if (acc[k] != ref[k]) {
      return fmt::format("acc {} lane {}: expected {} got {}", k / al, k % al, ref[k], acc[k]);
    }
  }
  return "";
}

HwConfig custom_config(int log_batch, int log_block) {
  // Buffers of 2^9 (inp, wgt) / 2^11 (acc) entries and 4096 uops whatever the tile size.
  const std::string json = fmt::format(
      R"({{"TARGET": "sim", "HW_VER": "0.0.2", "LOG_INP_WIDTH": 3, "LOG_WGT_WIDTH": 3,
          "LOG_ACC_WIDTH": 5, "LOG_BATCH": {0}, "LOG_BLOCK": {1}, "LOG_UOP_BUFF_SIZE": 14,
          "LOG_INP_BUFF_SIZE": {2}, "LOG_WGT_BUFF_SIZE": {3}, "LOG_ACC_BUFF_SIZE": {4},
          "LOG_BUS_WIDTH": 6, "CLOCK_MHZ": 100, "DRAM_READ_LATENCY_CYCLES": 16,
          "DRAM_WRITE_LATENCY_CYCLES": 8, "DRAM_CYCLES_PER_BEAT": 1, "MAX_BURST_BEATS": 256,
          "BURST_BOUNDARY_BYTES": 2048, "INSN_QUEUE_DEPTH": 512, "DEP_QUEUE_DEPTH": 255}})",
      log_batch, log_block, 9 + log_batch + log_block, 10 + 2 * log_block,
      11 + log_batch + log_block + 2);
  return HwConfig::from_json_text(json, fmt::format("batch 2^{} block 2^{}", log_batch, log_block));
}

}  // namespace

TEST_CASE("GEMM kernels match a scalar int8 reference at every block and batch", "[fsim]") {
  for (int lb = 1; lb <= 6; ++lb) {
    for (int lbatch : {0, 1, 2, 4}) {
      const GemmShape s{1 << lbatch, 1 << lb, 1 << lb};
      for (GemmKernelKind kind : {GemmKernelKind::kGeneric, GemmKernelKind::kAvx2,
                                  GemmKernelKind::kAvx512, GemmKernelKind::kAvx512Int8}) {
        if (!gemm_kernel_available(kind, s)) {
          continue;
        }
        const uint32_t seed = 500 + lb * 10 + lbatch;
        INFO("block " << s.block_in << " batch " << s.batch << " kernel "
                      << gemm_kernel_kind_name(kind) << " seed " << seed);
        CHECK(check_kernel(kind, s, seed) == "");
      }
    }
  }
}

TEST_CASE("unavailable GEMM kernels are refused by name", "[fsim]") {
  CHECK_THROWS_WITH(
      select_gemm_kernel(GemmKernelKind::kAvx2, GemmShape{1, 4, 4}),
      Catch::Contains("AVX2 GEMM kernel is not available") && Catch::Contains("BLOCK_OUT 4"));
  CHECK_THROWS_WITH(select_gemm_kernel(GemmKernelKind::kAvx512, GemmShape{1, 8, 8}),
                    Catch::Contains("AVX-512 VNNI GEMM kernel is not available"));
  CHECK_THROWS_WITH(select_gemm_kernel(GemmKernelKind::kAvx512Int8, GemmShape{1, 2, 16}),
                    Catch::Contains("AVX-512 VNNI GEMM kernel is not available"));
}

// The loader's packing is undone exactly in both layouts (fsim re-packs its SRAMs when the
// kernel changes), and the byte layout's bias sums are 128 * sum_k x by a plain loop.
TEST_CASE("GEMM SRAM layouts pack and unpack int8 tiles exactly", "[fsim]") {
  const uint32_t seed = 4242;
  INFO("seed " << seed);
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> d8(-128, 127);
  for (int block : {4, 16, 64}) {
    const GemmShape s{2, block, block};
    const size_t il = static_cast<size_t>(s.batch * block), wl = static_cast<size_t>(block * block);
    std::vector<int8_t> inp8(il), wgt8(wl), back_inp(il), back_wgt(wl);
    for (auto& v : inp8) {
      v = static_cast<int8_t>(d8(rng));
    }
    for (auto& v : wgt8) {
      v = static_cast<int8_t>(d8(rng));
    }
    inp8[0] = -128;
    inp8[1] = 127;
    wgt8[0] = -128;
    wgt8[1] = 127;
    for (GemmLayout layout : {GemmLayout::kInt16Pairs, GemmLayout::kUint8Quads}) {
      INFO("block " << block << " layout " << static_cast<int>(layout));
      std::vector<uint8_t> inp(gemm_inp_tile_bytes(layout, s)), wgt(gemm_wgt_tile_bytes(layout, s));
      pack_gemm_inp_tiles(layout, s, inp8.data(), 1, inp.data());
      pack_gemm_wgt_tile(layout, s, wgt8.data(), wgt.data());
      unpack_gemm_inp_tile(layout, s, inp.data(), back_inp.data());
      unpack_gemm_wgt_tile(layout, s, wgt.data(), back_wgt.data());
      CHECK(back_inp == inp8);
      CHECK(back_wgt == wgt8);
      if (layout == GemmLayout::kUint8Quads) {
        for (int r = 0; r < s.batch; ++r) {
          int32_t sum = 0;
          for (int k = 0; k < block; ++k) {
            sum += inp8[static_cast<size_t>(r * block + k)];
          }
          int32_t stored;
          std::memcpy(&stored, &inp[il + static_cast<size_t>(r) * 4], sizeof(stored));
          CHECK(stored == 128 * sum);
        }
      }
    }
  }
}

TEST_CASE("the ISA suite passes on extreme configs (block 2 batch 16, block 64, block 4 batch 2)",
          "[fsim]") {
  for (auto [lbatch, lb] : {std::pair{4, 1}, std::pair{0, 6}, std::pair{1, 2}}) {
    const HwConfig cfg = custom_config(lbatch, lb);
    for (const IsaTestCase& tc : isa_test_cases(cfg)) {
      INFO("batch " << cfg.batch << " block " << cfg.block_in << ": " << tc.name);
      Dram dram;
      FsimBackend fsim(cfg, dram);
      CHECK(tc.run_and_check(fsim) == "");
    }
  }
}
