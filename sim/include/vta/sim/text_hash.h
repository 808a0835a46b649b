// The short stable identity of a text (a config's canonical JSON, a design point's keys, a
// sweep job's settings): 64-bit FNV-1a, printed as its first 12 hex digits. Not cryptographic;
// used where a readable id must be the same on every platform and in every run.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <fmt/format.h>

namespace vta {

inline uint64_t fnv1a_64(std::string_view text) {
  uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a offset basis
  for (const char ch : text) {
    h ^= static_cast<uint8_t>(ch);
    h *= 0x100000001b3ull;  // FNV-1a prime
  }
  return h;
}

inline std::string short_hash(std::string_view text) {
  return fmt::format("{:016x}", fnv1a_64(text)).substr(0, 12);
}

}  // namespace vta
