// ISA encoder/decoder: exact bit positions of the default config (vta-reference.md section 2),
// the move-to-bit-64 rule on other configs, and round trips at field extremes on every preset.
#include <catch2/catch.hpp>

#include <random>

#include "test_paths.h"
#include "vta/sim/error.h"
#include "vta/sim/hw_config.h"
#include "vta/sim/isa.h"

using namespace vta;

namespace {

// Bit [lo, lo+width) of a 128-bit instruction.
uint64_t bits(const InsnWords& w, int lo, int width) {
  uint64_t v = 0;
  for (int b = 0; b < width; ++b) {
    const int pos = lo + b;
    v |= ((w[pos / 64] >> (pos % 64)) & 1) << b;
  }
  return v;
}

uint32_t max_of(int bits) {
  return bits >= 32 ? ~0u : (1u << bits) - 1;
}

}  // namespace

TEST_CASE("memory instruction bit positions match upstream (default config)", "[isa]") {
  IsaCodec codec(HwConfig::default_config());
  Insn i;
  i.opcode = kOpLoad;
  i.pop_next_dep = true;
  i.push_next_dep = true;
  i.memory_type = kMemInp;
  i.sram_base = 0xBEEF;
  i.dram_base = 0xDEADBEEF;
  i.y_size = 0x1234;
  i.x_size = 0x5678;
  i.x_stride = 0x9ABC;
  i.y_pad_0 = 1;
  i.y_pad_1 = 2;
  i.x_pad_0 = 3;
  i.x_pad_1 = 15;
  const InsnWords w = codec.encode(i);
  CHECK(bits(w, 0, 3) == 0);
  CHECK(bits(w, 3, 1) == 0);
  CHECK(bits(w, 4, 1) == 1);
  CHECK(bits(w, 5, 1) == 0);
  CHECK(bits(w, 6, 1) == 1);
  CHECK(bits(w, 7, 3) == kMemInp);
  CHECK(bits(w, 10, 16) == 0xBEEF);
  CHECK(bits(w, 26, 32) == 0xDEADBEEF);
  CHECK(bits(w, 58, 6) == 0);
  CHECK(bits(w, 64, 16) == 0x1234);
  CHECK(bits(w, 80, 16) == 0x5678);
  CHECK(bits(w, 96, 16) == 0x9ABC);
  CHECK(bits(w, 112, 4) == 1);
  CHECK(bits(w, 116, 4) == 2);
  CHECK(bits(w, 120, 4) == 3);
  CHECK(bits(w, 124, 4) == 15);
  CHECK(codec.decode(w) == i);
}

TEST_CASE("GEMM instruction bit positions match upstream (default config)", "[isa]") {
  IsaCodec codec(HwConfig::default_config());
  Insn i;
  i.opcode = kOpGemm;
  i.pop_prev_dep = true;
  i.push_prev_dep = true;
  i.reset_reg = true;
  i.uop_bgn = 0x1ABC;        // 13 bits
  i.uop_end = 0x2DEF;        // 14 bits
  i.iter_out = 0x3001;       // 14
  i.iter_in = 0x2002;        // 14
  i.dst_factor_out = 0x7F1;  // 11
  i.dst_factor_in = 0x402;   // 11
  i.src_factor_out = 0x5A5;  // 11
  i.src_factor_in = 0x3C3;   // 11
  i.wgt_factor_out = 0x3FF;  // 10
  i.wgt_factor_in = 0x201;   // 10
  const InsnWords w = codec.encode(i);
  CHECK(bits(w, 0, 3) == kOpGemm);
  CHECK(bits(w, 3, 1) == 1);
  CHECK(bits(w, 5, 1) == 1);
  CHECK(bits(w, 7, 1) == 1);
  CHECK(bits(w, 8, 13) == 0x1ABC);
  CHECK(bits(w, 21, 14) == 0x2DEF);
  CHECK(bits(w, 35, 14) == 0x3001);
  CHECK(bits(w, 49, 14) == 0x2002);
  CHECK(bits(w, 63, 1) == 0);
  CHECK(bits(w, 64, 11) == 0x7F1);
  CHECK(bits(w, 75, 11) == 0x402);
  CHECK(bits(w, 86, 11) == 0x5A5);
  CHECK(bits(w, 97, 11) == 0x3C3);
  CHECK(bits(w, 108, 10) == 0x3FF);
  CHECK(bits(w, 118, 10) == 0x201);
  CHECK(codec.decode(w) == i);
}

TEST_CASE("ALU instruction bit positions match upstream (default config)", "[isa]") {
  IsaCodec codec(HwConfig::default_config());
  Insn i;
  i.opcode = kOpAlu;
  i.push_next_dep = true;
  i.uop_bgn = 5;
  i.uop_end = 9;
  i.iter_out = 3;
  i.iter_in = 7;
  i.dst_factor_out = 0x401;
  i.dst_factor_in = 0x7FF;
  i.src_factor_out = 0x123;
  i.src_factor_in = 0x456;
  i.alu_opcode = kAluShr;
  i.use_imm = true;
  i.imm = -3;
  const InsnWords w = codec.encode(i);
  CHECK(bits(w, 0, 3) == kOpAlu);
  CHECK(bits(w, 6, 1) == 1);
  CHECK(bits(w, 8, 13) == 5);
  CHECK(bits(w, 21, 14) == 9);
  CHECK(bits(w, 35, 14) == 3);
  CHECK(bits(w, 49, 14) == 7);
  CHECK(bits(w, 64, 11) == 0x401);
  CHECK(bits(w, 75, 11) == 0x7FF);
  CHECK(bits(w, 86, 11) == 0x123);
  CHECK(bits(w, 97, 11) == 0x456);
  CHECK(bits(w, 108, 3) == kAluShr);
  CHECK(bits(w, 111, 1) == 1);
  CHECK(bits(w, 112, 16) == 0xFFFD);
  CHECK(codec.decode(w) == i);
}

TEST_CASE("micro-op bit positions match upstream (default config)", "[isa]") {
  IsaCodec codec(HwConfig::default_config());
  const Uop u{0x7FF, 0x555, 0x3FF};
  const uint32_t word = codec.encode_uop(u);
  CHECK((word & 0x7FF) == 0x7FF);
  CHECK(((word >> 11) & 0x7FF) == 0x555);
  CHECK((word >> 22) == 0x3FF);
  CHECK(codec.decode_uop(word) == u);
}

TEST_CASE("a small uop buffer moves fields into word 0 (move-to-bit-64 rule per field)", "[isa]") {
  // small.json: uop depth 2^8, inp 2^10, wgt 2^9, acc 2^10. GEMM word 0 holds 8+8+9+14+14 = 53
  // bits, so dst_factor_out (10) still fits at [62:53] and dst_factor_in moves to bit 64.
  const HwConfig cfg = HwConfig::from_file(config_path("small"));
  const IsaCodec codec(cfg);
  const IsaLayout& l = codec.layout();
  CHECK(l.field(l.gemm, "uop_bgn").lo == 8);
  CHECK(l.field(l.gemm, "uop_end").lo == 16);
  CHECK(l.field(l.gemm, "iter_out").lo == 25);
  CHECK(l.field(l.gemm, "dst_factor_out").lo == 53);
  CHECK(l.field(l.gemm, "dst_factor_in").lo == 64);
  CHECK(l.field(l.gemm, "wgt_factor_in").lo == 64 + 10 + 10 + 10 + 9);
  CHECK(l.field(l.alu, "imm").lo == 64 + 10 + 10 + 10 + 3 + 1);
}

TEST_CASE("round trip of every opcode at field extremes on every preset", "[isa]") {
  const uint32_t seed = 20261121;
  INFO("seed " << seed);
  std::mt19937 rng(seed);
  for (const char* name : kPresetConfigs) {
    INFO("config " << name);
    const HwConfig cfg = HwConfig::from_file(config_path(name));
    IsaCodec codec(cfg);
    const IsaLayout& l = codec.layout();
    for (int variant = 0; variant < 64; ++variant) {
      // variant 0: all zero, 1: all max, others random.
      auto pick = [&](int width) -> uint32_t {
        if (variant == 0) {
          return 0;
        }
        if (variant == 1) {
          return max_of(width);
        }
        return static_cast<uint32_t>(rng()) & max_of(width);
      };
      for (uint32_t op : {kOpLoad, kOpStore, kOpGemm, kOpFinish, kOpAlu}) {
        Insn i;
        i.opcode = op;
        i.pop_prev_dep = pick(1);
        i.pop_next_dep = pick(1);
        i.push_prev_dep = pick(1);
        i.push_next_dep = pick(1);
        if (op == kOpLoad || op == kOpStore) {
          i.memory_type = pick(3);
          i.sram_base = pick(16);
          i.dram_base = pick(32);
          i.y_size = pick(16);
          i.x_size = pick(16);
          i.x_stride = pick(16);
          i.y_pad_0 = pick(4);
          i.y_pad_1 = pick(4);
          i.x_pad_0 = pick(4);
          i.x_pad_1 = pick(4);
        } else {
          const auto& layout = op == kOpAlu ? l.alu : l.gemm;
          auto w = [&](const char* f) { return l.field(layout, f).width; };
          i.reset_reg = pick(1);
          i.uop_bgn = pick(w("uop_bgn"));
          i.uop_end = pick(w("uop_end"));
          i.iter_out = pick(14);
          i.iter_in = pick(14);
          i.dst_factor_out = pick(w("dst_factor_out"));
          i.dst_factor_in = pick(w("dst_factor_in"));
          i.src_factor_out = pick(w("src_factor_out"));
          i.src_factor_in = pick(w("src_factor_in"));
          if (op == kOpAlu) {
            i.alu_opcode = pick(3);
            i.use_imm = pick(1);
            i.imm = static_cast<int16_t>(pick(16));
            if (variant == 1) {
              i.imm = -1;
            }
          } else {
            i.wgt_factor_out = pick(w("wgt_factor_out"));
            i.wgt_factor_in = pick(w("wgt_factor_in"));
          }
        }
        const InsnWords words = codec.encode(i);
        uint8_t bytes[16];
        IsaCodec::store_words(words, bytes);
        CHECK(IsaCodec::load_words(bytes) == words);
        const Insn back = codec.decode(words);
        CHECK(back == i);
        if (!(back == i)) {
          FAIL_CHECK("mismatch: " << disassemble(i) << " vs " << disassemble(back));
        }
      }
      const Uop u{pick(l.uop_dst_bits), pick(l.uop_src_bits), pick(l.uop_wgt_bits)};
      CHECK(codec.decode_uop(codec.encode_uop(u)) == u);
    }
  }
}

TEST_CASE("encoding a value wider than its field names the field", "[isa]") {
  IsaCodec codec(HwConfig::default_config());
  Insn i;
  i.opcode = kOpGemm;
  i.uop_bgn = 1u << 13;
  REQUIRE_THROWS_WITH(codec.encode(i), "GEMM field 'uop_bgn' value 8192 does not fit in 13 bits");
  Insn a;
  a.opcode = kOpAlu;
  a.imm = 40000;
  REQUIRE_THROWS_WITH(codec.encode(a),
                      "ALU field 'imm' value 40000 does not fit in 16 signed bits");
  REQUIRE_THROWS_WITH(codec.encode_uop(Uop{1u << 11, 0, 0}),
                      "micro-op field 'dst_idx' value 2048 does not fit in 11 bits");
}

TEST_CASE("disassembly names every field", "[isa]") {
  Insn i;
  i.opcode = kOpStore;
  i.pop_prev_dep = true;
  i.memory_type = kMemOut;
  i.sram_base = 3;
  i.dram_base = 0x100;
  i.y_size = 2;
  i.x_size = 4;
  i.x_stride = 8;
  CHECK(disassemble(i) ==
        "STORE  pop_prev=1 pop_next=0 push_prev=0 push_next=0 type=OUT sram_base=3 "
        "dram_base=0x100 y_size=2 x_size=4 x_stride=8 y_pad_0=0 y_pad_1=0 x_pad_0=0 x_pad_1=0");
}
