// Element lanes of any legal width (1 to 32 bits): the packing of VTA's tensor tiles in DRAM and
// SRAM for element widths other than the int8 / int32 fast path. Lanes are packed LSB first, lane
// k at bits [k*bits, (k+1)*bits) of the little-endian byte string (upstream's BitPacker over
// uint32 words, vta-reference.md 9); a load sign-extends each lane to 32 bits and a store keeps
// its low `bits` bits (two's-complement truncation).
#pragma once

#include <cstddef>
#include <cstdint>

namespace vta {

// The value of the low `bits` bits of `v` as a signed number (bits in 1..32).
inline int32_t sign_extend_lane(uint32_t v, int bits) {
  if (bits >= 32) {
    return static_cast<int32_t>(v);
  }
  const uint32_t sign = uint32_t{1} << (bits - 1);
  const uint32_t low = v & ((uint32_t{1} << bits) - 1);
  return static_cast<int32_t>((low ^ sign) - sign);
}

// `n` lanes of `bits` bits from `src` (packed), sign-extended into `dst`; src null = zeros.
void unpack_lanes(const uint8_t* src, int bits, size_t n, int32_t* dst);
// `n` lanes from `src`, each truncated to `bits` bits, packed into `dst` (n * bits / 8 bytes;
// n * bits must be a multiple of 8).
void pack_lanes(const int32_t* src, int bits, size_t n, uint8_t* dst);

}  // namespace vta
