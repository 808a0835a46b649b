#include "lane_reference.h"

#include <algorithm>

#include "ref_alu.h"
#include "vta/sim/isa.h"

namespace vta::testprog {

int lane_bits(const HwConfig& cfg, uint32_t memory_type) {
  switch (memory_type) {
    case kMemInp:
      return cfg.inp_width;
    case kMemWgt:
      return cfg.wgt_width;
    case kMemAcc8:
      return 8;
    case kMemOut:
      return cfg.out_width;
    default:
      return cfg.acc_width;
  }
}

size_t tile_lanes(const HwConfig& cfg, uint32_t memory_type) {
  if (memory_type == kMemInp) {
    return static_cast<size_t>(cfg.batch) * cfg.block_in;
  }
  if (memory_type == kMemWgt) {
    return static_cast<size_t>(cfg.block_out) * cfg.block_in;
  }
  return static_cast<size_t>(cfg.batch) * cfg.block_out;
}

int32_t wrap_lane(int64_t v, int bits) {
  const uint64_t m = bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
  const uint64_t low = static_cast<uint64_t>(v) & m;
  const uint64_t sign = uint64_t{1} << (bits - 1);
  return static_cast<int32_t>(static_cast<int64_t>(low ^ sign) - static_cast<int64_t>(sign));
}

int32_t lane_min(int bits) {
  return static_cast<int32_t>(-(int64_t{1} << (bits - 1)));
}

int32_t lane_max(int bits) {
  return static_cast<int32_t>((int64_t{1} << (bits - 1)) - 1);
}

int32_t read_lane(const uint8_t* p, int bits, size_t k) {
  uint64_t raw = 0;
  for (int b = 0; b < bits; ++b) {
    const size_t bit = k * bits + b;
    raw |= static_cast<uint64_t>((p[bit / 8] >> (bit % 8)) & 1u) << b;
  }
  return wrap_lane(static_cast<int64_t>(raw), bits);
}

void write_lane(uint8_t* p, int bits, size_t k, int64_t v) {
  for (int b = 0; b < bits; ++b) {
    const size_t bit = k * bits + b;
    const auto one = static_cast<uint8_t>(1u << (bit % 8));
    p[bit / 8] = static_cast<uint8_t>(((v >> b) & 1) ? (p[bit / 8] | one) : (p[bit / 8] & ~one));
  }
}

std::vector<int32_t> read_lanes(const HwConfig& cfg, uint32_t memory_type, const uint8_t* p,
                                size_t n) {
  const int bits = lane_bits(cfg, memory_type);
  std::vector<int32_t> v(n);
  for (size_t k = 0; k < n; ++k) {
    v[k] = read_lane(p, bits, k);
  }
  return v;
}

void write_lanes(const HwConfig& cfg, uint32_t memory_type, uint8_t* p,
                 const std::vector<int32_t>& lanes) {
  const int bits = lane_bits(cfg, memory_type);
  for (size_t k = 0; k < lanes.size(); ++k) {
    write_lane(p, bits, k, lanes[k]);
  }
}

std::vector<int32_t> random_lanes(size_t n, int bits, int64_t lo, int64_t hi, std::mt19937& rng) {
  lo = std::max<int64_t>(lo, lane_min(bits));
  hi = std::min<int64_t>(hi, int64_t{lane_max(bits)} + 1);
  std::uniform_int_distribution<int64_t> d(lo, hi - 1);
  std::vector<int32_t> v(n);
  for (int32_t& x : v) {
    x = static_cast<int32_t>(d(rng));
  }
  return v;
}

void ref_gemm_lanes(const HwConfig& cfg, int32_t* acc, const int32_t* inp, const int32_t* wgt) {
  for (int b = 0; b < cfg.batch; ++b) {
    for (int oc = 0; oc < cfg.block_out; ++oc) {
      // Unsigned 64-bit sums wrap modulo 2^64, a multiple of 2^32 and of 2^ACC_WIDTH.
      int32_t& a = acc[b * cfg.block_out + oc];
      uint64_t sum = static_cast<uint64_t>(int64_t{a});
      for (int k = 0; k < cfg.block_in; ++k) {
        sum += static_cast<uint64_t>(int64_t{inp[b * cfg.block_in + k]} *
                                     int64_t{wgt[oc * cfg.block_in + k]});
      }
      a = wrap_lane(static_cast<int64_t>(sum), cfg.acc_width);
    }
  }
}

int32_t ref_alu_lane(const HwConfig& cfg, uint32_t alu_opcode, int32_t a, int32_t b) {
  return wrap_lane(testref::ref_alu(alu_opcode, a, b), cfg.acc_width);
}

int32_t ref_store_lane(const HwConfig& cfg, int32_t acc) {
  return wrap_lane(acc, cfg.out_width);
}

}  // namespace vta::testprog
