#include "vta/sim/element_lanes.h"

#include <algorithm>
#include <cstring>

namespace vta {

void unpack_lanes(const uint8_t* src, int bits, size_t n, int32_t* dst) {
  if (src == nullptr) {
    std::fill_n(dst, n, 0);
    return;
  }
  if (bits >= 8) {  // whole bytes per lane, little-endian
    const size_t bytes = static_cast<size_t>(bits) / 8;
    for (size_t k = 0; k < n; ++k) {
      uint32_t v = 0;
      std::memcpy(&v, src + k * bytes, bytes);  // little-endian host
      dst[k] = sign_extend_lane(v, bits);
    }
    return;
  }
  const size_t per_byte = 8 / static_cast<size_t>(bits);  // sub-byte: lanes never straddle bytes
  for (size_t k = 0; k < n; ++k) {
    const uint32_t byte = src[k / per_byte];
    dst[k] = sign_extend_lane(byte >> ((k % per_byte) * bits), bits);
  }
}

void pack_lanes(const int32_t* src, int bits, size_t n, uint8_t* dst) {
  if (bits >= 8) {
    const size_t bytes = static_cast<size_t>(bits) / 8;
    for (size_t k = 0; k < n; ++k) {
      const uint32_t v = static_cast<uint32_t>(src[k]);
      std::memcpy(dst + k * bytes, &v, bytes);  // the low bytes: truncation
    }
    return;
  }
  const size_t per_byte = 8 / static_cast<size_t>(bits);
  const uint32_t mask = (uint32_t{1} << bits) - 1;
  std::fill_n(dst, n / per_byte, uint8_t{0});
  for (size_t k = 0; k < n; ++k) {
    const uint32_t v = static_cast<uint32_t>(src[k]) & mask;
    dst[k / per_byte] = static_cast<uint8_t>(dst[k / per_byte] | (v << ((k % per_byte) * bits)));
  }
}

}  // namespace vta
