// vta/hw_spec.h and vta/hw_spec_const.h generated for one preset (VTA_TEST_CONFIG): the
// compiler's bit-field placement of every instruction and micro-op field must be the ISA layout
// the simulator encodes (IsaLayout), the derived constants must follow upstream's formulas
// (vta-reference.md 1.3), and for the default config the bit positions of the reference tables
// (2.2-2.4, 2.6) hold.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>

#include "test_paths.h"
#include "vta/hw_spec.h"
#include "vta/sim/hw_config.h"
#include "vta/sim/isa.h"

namespace {

struct Probe {
  int lo = -1, width = 0;
};

// Lowest clear bit and number of clear bits of an image whose other bits are all set (a field
// cleared in an all-ones instruction shows where it sits, without narrowing conversions).
template <typename T>
Probe probe_bits(const T& value) {
  uint8_t bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  Probe p;
  for (int b = 0; b < static_cast<int>(8 * sizeof(T)); ++b) {
    if (((bytes[b / 8] >> (b % 8)) & 1) == 0) {
      p.lo = p.lo < 0 ? b : p.lo;
      ++p.width;
    }
  }
  return p;
}

const vta::HwConfig& config() {
  static const vta::HwConfig c = vta::HwConfig::from_file(config_path(VTA_TEST_CONFIG));
  return c;
}

const vta::IsaLayout& layout() {
  static const vta::IsaLayout l =
      vta::IsaLayout::compute(config().log_uop_buff_depth, config().log_inp_buff_depth,
                              config().log_wgt_buff_depth, config().log_acc_buff_depth);
  return l;
}

void check_field(const std::vector<vta::FieldPos>& fields, const char* name, Probe p) {
  INFO("config " << VTA_TEST_CONFIG << " field " << name);
  const vta::FieldPos& f = layout().field(fields, name);
  CHECK(p.lo == f.lo);
  CHECK(p.width == f.width);
}

}  // namespace

// Clears one field of an all-ones instruction and records where the bits went.
#define VTA_PROBE(kind, layout_fields, field)             \
  do {                                                    \
    VTAInsn insn;                                         \
    std::memset(&insn, 0xff, sizeof insn);                \
    insn.kind.field = 0;                                  \
    check_field(layout_fields, #field, probe_bits(insn)); \
  } while (0)

TEST_CASE("hw_spec.h: instruction fields sit where the ISA layout puts them", "[hw_spec]") {
  REQUIRE(sizeof(VTAInsn) == 16);
  const vta::IsaLayout& l = layout();
  VTA_PROBE(mem, l.mem, opcode);
  VTA_PROBE(mem, l.mem, memory_type);
  VTA_PROBE(mem, l.mem, sram_base);
  VTA_PROBE(mem, l.mem, dram_base);
  VTA_PROBE(mem, l.mem, y_size);
  VTA_PROBE(mem, l.mem, x_size);
  VTA_PROBE(mem, l.mem, x_stride);
  VTA_PROBE(mem, l.mem, y_pad_0);
  VTA_PROBE(mem, l.mem, x_pad_1);
  VTA_PROBE(gemm, l.gemm, reset_reg);
  VTA_PROBE(gemm, l.gemm, uop_bgn);
  VTA_PROBE(gemm, l.gemm, uop_end);
  VTA_PROBE(gemm, l.gemm, iter_out);
  VTA_PROBE(gemm, l.gemm, iter_in);
  VTA_PROBE(gemm, l.gemm, dst_factor_out);
  VTA_PROBE(gemm, l.gemm, dst_factor_in);
  VTA_PROBE(gemm, l.gemm, src_factor_out);
  VTA_PROBE(gemm, l.gemm, src_factor_in);
  VTA_PROBE(gemm, l.gemm, wgt_factor_out);
  VTA_PROBE(gemm, l.gemm, wgt_factor_in);
  VTA_PROBE(alu, l.alu, src_factor_out);
  VTA_PROBE(alu, l.alu, src_factor_in);
  VTA_PROBE(alu, l.alu, alu_opcode);
  VTA_PROBE(alu, l.alu, use_imm);
  VTA_PROBE(alu, l.alu, imm);
}

TEST_CASE("hw_spec.h: micro-op fields and constants follow upstream's formulas", "[hw_spec]") {
  REQUIRE(sizeof(VTAUop) == 4);
  VTAUop u;
  std::memset(&u, 0xff, sizeof u);
  u.wgt_idx = 0;
  const Probe w = probe_bits(u);
  CHECK(w.lo == VTA_LOG_ACC_BUFF_DEPTH + std::max(VTA_LOG_ACC_BUFF_DEPTH, VTA_LOG_INP_BUFF_DEPTH));
  CHECK(w.width == VTA_LOG_WGT_BUFF_DEPTH);
  CHECK(VTA_INP_BUFF_DEPTH ==
        1 << (VTA_LOG_INP_BUFF_SIZE - VTA_LOG_BATCH - VTA_LOG_BLOCK_IN - VTA_LOG_INP_WIDTH + 3));
  CHECK(VTA_WGT_BUFF_DEPTH == 1 << (VTA_LOG_WGT_BUFF_SIZE - VTA_LOG_BLOCK_OUT - VTA_LOG_BLOCK_IN -
                                    VTA_LOG_WGT_WIDTH + 3));
  CHECK(VTA_ACC_BUFF_DEPTH ==
        1 << (VTA_LOG_ACC_BUFF_SIZE - VTA_LOG_BATCH - VTA_LOG_BLOCK_OUT - VTA_LOG_ACC_WIDTH + 3));
  CHECK(VTA_UOP_BUFF_DEPTH == VTA_UOP_BUFF_SIZE / 4);
  CHECK(VTA_INP_ELEM_BYTES == VTA_INP_WIDTH * VTA_BATCH * VTA_BLOCK_IN / 8);
  CHECK(VTA_WGT_ELEM_BYTES == VTA_WGT_WIDTH * VTA_BLOCK_OUT * VTA_BLOCK_IN / 8);
  CHECK(VTA_ACC_ELEM_BYTES == VTA_ACC_WIDTH * VTA_BATCH * VTA_BLOCK_OUT / 8);
  CHECK(VTA_OUT_ELEM_BYTES == VTA_OUT_WIDTH * VTA_BATCH * VTA_BLOCK_OUT / 8);
  CHECK(VTA_BATCH == config().batch);
  CHECK(VTA_BLOCK_IN == config().block_in);
  if (std::string(VTA_TEST_CONFIG) == "pynq") {  // the reference tables, by hand
    CHECK(VTA_INP_BUFF_DEPTH == 2048);
    CHECK(VTA_WGT_BUFF_DEPTH == 1024);
    CHECK(VTA_ACC_BUFF_DEPTH == 2048);
    CHECK(VTA_UOP_BUFF_DEPTH == 8192);
    CHECK(VTA_WGT_MATRIX_WIDTH == 2048);
    CHECK(VTA_MEM_ID_INP == 2);
    CHECK(VTA_ALU_OPCODE_ADD == 2);
    VTAInsn i;
    std::memset(&i, 0xff, sizeof i);
    i.alu.imm = 0;
    CHECK(probe_bits(i).lo == 112);
    std::memset(&i, 0xff, sizeof i);
    i.gemm.wgt_factor_in = 0;
    CHECK(probe_bits(i).lo == 118);
    std::memset(&i, 0xff, sizeof i);
    i.mem.y_size = 0;
    CHECK(probe_bits(i).lo == 64);
    std::memset(&i, 0xff, sizeof i);
    i.mem.dram_base = 0;
    CHECK(probe_bits(i).lo == 26);
  }
}
