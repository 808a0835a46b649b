// Seeded random int8 test data, uniform over -128..127.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

inline std::vector<int8_t> random_bytes(size_t n, std::mt19937& rng) {
  std::uniform_int_distribution<int> d(-128, 127);
  std::vector<int8_t> v(n);
  for (auto& x : v) {
    x = int8_t(d(rng));
  }
  return v;
}
