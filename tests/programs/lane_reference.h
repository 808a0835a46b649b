// Plain reference of tensor lanes at a config's element widths (docs/element_widths.md), written
// from the semantics and independent of the simulator's lane code: lanes packed LSB first into
// the DRAM bytes of a tile and sign-extended on reading, GEMM products and sums modulo 2^32 and
// wrapped to ACC_WIDTH bits, ALU results wrapped to ACC_WIDTH bits, STORE keeping the low
// OUT_WIDTH bits. Lane values are held as int32_t (no lane is wider than 32 bits).
#pragma once

#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

#include "vta/sim/hw_config.h"

namespace vta::testprog {

// Bits of one lane of a memory type (kMemInp, kMemWgt, kMemAcc, kMemAcc8, kMemOut).
int lane_bits(const HwConfig& cfg, uint32_t memory_type);
// Lanes in one tile of a memory type (inp: BATCH x BLOCK_IN, wgt: BLOCK_OUT x BLOCK_IN, acc,
// ACC_8BIT and out: BATCH x BLOCK_OUT).
size_t tile_lanes(const HwConfig& cfg, uint32_t memory_type);

// The low `bits` bits of `v` as a two's-complement number.
int32_t wrap_lane(int64_t v, int bits);
int32_t lane_min(int bits);
int32_t lane_max(int bits);

// Lane k of a byte string of `bits`-bit lanes, sign-extended; and writing it (other bits kept).
int32_t read_lane(const uint8_t* p, int bits, size_t k);
void write_lane(uint8_t* p, int bits, size_t k, int64_t v);
// `n` lanes of a memory type from `p` (the start of a tile), and writing lanes there.
std::vector<int32_t> read_lanes(const HwConfig& cfg, uint32_t memory_type, const uint8_t* p,
                                size_t n);
void write_lanes(const HwConfig& cfg, uint32_t memory_type, uint8_t* p,
                 const std::vector<int32_t>& lanes);

// `n` lanes uniform in [lo, hi) narrowed to the range of a `bits`-bit lane.
std::vector<int32_t> random_lanes(size_t n, int bits, int64_t lo, int64_t hi, std::mt19937& rng);

// acc tile (BATCH x BLOCK_OUT lanes) += inp tile x wgt tile^T: products and sums modulo 2^32,
// the result wrapped to ACC_WIDTH bits.
void ref_gemm_lanes(const HwConfig& cfg, int32_t* acc, const int32_t* inp, const int32_t* wgt);
// One ALU lane: the operation on the sign-extended lanes (the immediate as given), computed in
// 32 bits (testref::ref_alu) and wrapped to ACC_WIDTH bits.
int32_t ref_alu_lane(const HwConfig& cfg, uint32_t alu_opcode, int32_t a, int32_t b);
// What STORE keeps of an accumulator lane: its low OUT_WIDTH bits.
int32_t ref_store_lane(const HwConfig& cfg, int32_t acc);

}  // namespace vta::testprog
