// Lane packing of VTA's DRAM tensors at the config's element widths (docs/element_widths.md):
// lanes of `bits` bits packed LSB first into bytes (a sub-byte lane never straddles a byte), read
// back with sign extension. At 8 bits a lane is a byte and packing is the identity.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace vta::compiler {

// The low `bits` bits of v (1..32) as a signed number (two's complement).
int32_t sign_extend(int64_t v, int bits);
// Whether v is a value of a signed lane of `bits` bits: -2^(bits-1) <= v < 2^(bits-1).
bool fits_lane(int64_t v, int bits);

// Packs lanes of `bits` (1..8) bits, LSB first; the values must fit the lane (only their low
// bits are kept). At 8 bits the vector itself is returned.
std::vector<int8_t> pack_lanes(std::vector<int8_t> lanes, int bits);
// Reads `count` lanes of `bits` (1..8) bits from packed bytes, sign-extended (at 8 bits the
// first `count` bytes).
std::vector<int8_t> unpack_lanes(std::vector<int8_t> bytes, int bits, size_t count);
// Lanes of 16 or 32 bits (accumulator lanes: bias, per-channel shifts; int16 / int32 inputs,
// weights and outputs) as bytes, little endian; only the low `bits` bits of a value are kept.
std::vector<int8_t> pack_wide_lanes(const std::vector<int32_t>& lanes, int bits);
// Reads `count` lanes of 16 or 32 bits, sign-extended.
std::vector<int32_t> unpack_wide_lanes(const std::vector<int8_t>& bytes, int bits, size_t count);

}  // namespace vta::compiler
