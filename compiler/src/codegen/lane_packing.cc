#include "vta/compiler/codegen/lane_packing.h"

#include <fmt/format.h>

#include "vta/sim/error.h"

namespace vta::compiler {

namespace {
void check_lane_bits(const char* who, int bits, int max_bits) {
  if (bits < 1 || bits > max_bits || (bits & (bits - 1)) != 0) {
    throw Error(fmt::format("{}: lanes of {} bits (a power of two, 1..{})", who, bits, max_bits));
  }
}
}  // namespace

int32_t sign_extend(int64_t v, int bits) {
  const uint64_t mask = bits >= 64 ? ~uint64_t(0) : (uint64_t(1) << bits) - 1;
  const uint64_t low = uint64_t(v) & mask;
  const uint64_t sign = uint64_t(1) << (bits - 1);
  return int32_t(int64_t(low ^ sign) - int64_t(sign));
}

bool fits_lane(int64_t v, int bits) {
  const int64_t half = int64_t(1) << (bits - 1);
  return v >= -half && v < half;
}

std::vector<int8_t> pack_lanes(std::vector<int8_t> lanes, int bits) {
  check_lane_bits("pack_lanes", bits, 8);
  if (bits == 8) {
    return lanes;
  }
  const int per_byte = 8 / bits;
  const unsigned mask = (1u << bits) - 1;
  std::vector<int8_t> out((lanes.size() + per_byte - 1) / per_byte, 0);
  for (size_t i = 0; i < lanes.size(); ++i) {
    const unsigned lane = unsigned(uint8_t(lanes[i])) & mask;
    out[i / per_byte] = int8_t(uint8_t(out[i / per_byte]) | (lane << (bits * (i % per_byte))));
  }
  return out;
}

std::vector<int8_t> unpack_lanes(std::vector<int8_t> bytes, int bits, size_t count) {
  check_lane_bits("unpack_lanes", bits, 8);
  const size_t per_byte = size_t(8 / bits);
  if ((count + per_byte - 1) / per_byte > bytes.size()) {
    throw Error(fmt::format("unpack_lanes: {} lanes of {} bits need more than {} bytes", count,
                            bits, bytes.size()));
  }
  if (bits == 8) {
    bytes.resize(count);
    return bytes;
  }
  std::vector<int8_t> out(count);
  for (size_t i = 0; i < count; ++i) {
    const unsigned byte = uint8_t(bytes[i / per_byte]);
    out[i] = int8_t(sign_extend(int64_t(byte >> (bits * (i % per_byte))), bits));
  }
  return out;
}

std::vector<int8_t> pack_wide_lanes(const std::vector<int32_t>& lanes, int bits) {
  if (bits != 16 && bits != 32) {
    throw Error(fmt::format("pack_wide_lanes: wide lanes are 16 or 32 bits, not {}", bits));
  }
  const size_t lane_bytes = size_t(bits / 8);
  std::vector<int8_t> out(lanes.size() * lane_bytes);
  for (size_t i = 0; i < lanes.size(); ++i) {
    for (size_t b = 0; b < lane_bytes; ++b) {
      out[i * lane_bytes + b] = int8_t(uint8_t(uint32_t(lanes[i]) >> (8 * b)));
    }
  }
  return out;
}

std::vector<int32_t> unpack_wide_lanes(const std::vector<int8_t>& bytes, int bits, size_t count) {
  if (bits != 16 && bits != 32) {
    throw Error(fmt::format("unpack_wide_lanes: wide lanes are 16 or 32 bits, not {}", bits));
  }
  const size_t lane_bytes = size_t(bits / 8);
  if (count * lane_bytes > bytes.size()) {
    throw Error(fmt::format("unpack_wide_lanes: {} lanes of {} bits need more than {} bytes", count,
                            bits, bytes.size()));
  }
  std::vector<int32_t> out(count);
  for (size_t i = 0; i < count; ++i) {
    uint32_t v = 0;
    for (size_t b = 0; b < lane_bytes; ++b) {
      v |= uint32_t(uint8_t(bytes[i * lane_bytes + b])) << (8 * b);
    }
    out[i] = sign_extend(int64_t(v), bits);
  }
  return out;
}

}  // namespace vta::compiler
