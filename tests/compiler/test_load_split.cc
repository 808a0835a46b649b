// split_load against the 2D load rule applied element by element: the pieces write the same
// SRAM elements with the same values (data or zero padding) and read the same DRAM elements as
// the original load, and each piece moves at most the cap where a row allows it.
#include <catch2/catch.hpp>

#include <cstdint>
#include <map>
#include <random>
#include <set>

#include "vta/compiler/scheduling/load_split.h"

using vta::compiler::Load2D;
using vta::compiler::split_load;

namespace {

// SRAM element -> DRAM element it receives (-1: zero padding), by the rule of sim/README.md:
// y_pad_before rows of zeros, then each row as x_pad_before zeros, x_size elements, x_pad_after
// zeros, then y_pad_after rows of zeros; rows are x_pad_before + x_size + x_pad_after wide.
void apply(const Load2D& l, std::map<uint32_t, int64_t>& sram, std::multiset<int64_t>& reads) {
  const uint32_t w = l.x_pad_before + l.x_size + l.x_pad_after;
  const uint32_t rows = l.y_pad_before + l.y_size + l.y_pad_after;
  for (uint32_t r = 0; r < rows; ++r) {
    for (uint32_t c = 0; c < w; ++c) {
      const bool data = r >= l.y_pad_before && r < l.y_pad_before + l.y_size &&
                        c >= l.x_pad_before && c < l.x_pad_before + l.x_size;
      int64_t src = -1;
      if (data) {
        src = int64_t(l.src_elem_offset) + int64_t(r - l.y_pad_before) * l.x_stride +
              (c - l.x_pad_before);
        reads.insert(src);
      }
      const uint32_t dst = l.sram_index + r * w + c;
      REQUIRE(sram.count(dst) == 0);  // no element written twice
      sram[dst] = src;
    }
  }
}

}  // namespace

TEST_CASE("split loads write and read exactly what the whole load does", "[unit][load_split]") {
  const uint32_t seed = 2026;
  std::mt19937 rng(seed);
  auto uni = [&](uint32_t lo, uint32_t hi) {
    return std::uniform_int_distribution<uint32_t>(lo, hi)(rng);
  };
  for (int trial = 0; trial < 500; ++trial) {
    Load2D l;
    l.x_size = uni(1, 40);
    l.y_size = uni(1, 30);
    l.x_stride = l.x_size + uni(0, 5);
    const bool padded = uni(0, 1) == 1;
    if (padded) {
      l.x_pad_before = uni(0, 3), l.x_pad_after = uni(0, 3);
      l.y_pad_before = uni(0, 3), l.y_pad_after = uni(0, 3);
    }
    l.src_elem_offset = uni(0, 1000);
    l.sram_index = uni(0, 1000);
    const uint32_t elem_bytes = 1u << uni(0, 8);
    const uint32_t max_bytes = uni(0, 3) == 0 ? 0 : uni(1, 64) * elem_bytes;
    INFO("seed " << seed << " trial " << trial << ": " << l.x_size << "x" << l.y_size << " pads "
                 << l.x_pad_before << "," << l.x_pad_after << "," << l.y_pad_before << ","
                 << l.y_pad_after << " elem " << elem_bytes << " B, cap " << max_bytes << " B");
    std::map<uint32_t, int64_t> whole_sram, split_sram;
    std::multiset<int64_t> whole_reads, split_reads;
    apply(l, whole_sram, whole_reads);
    const auto pieces = split_load(l, elem_bytes, max_bytes);
    for (const Load2D& p : pieces) {
      apply(p, split_sram, split_reads);
      const uint64_t bytes = uint64_t(p.x_size) * p.y_size * elem_bytes;
      // Over the cap only when one padded row (which is never cut) is itself over it.
      if (max_bytes != 0 && bytes > max_bytes) {
        REQUIRE(padded);
        REQUIRE(p.y_size == 1);
      }
    }
    REQUIRE(split_sram == whole_sram);
    REQUIRE(split_reads == whole_reads);
    if (max_bytes == 0 || uint64_t(l.x_size) * l.y_size * elem_bytes <= max_bytes) {
      REQUIRE(pieces.size() == 1);
    }
  }
}

TEST_CASE("a weight row of 36 tiles with a cap of 32 tiles becomes two loads",
          "[unit][load_split]") {
  Load2D l;
  l.x_size = 36, l.y_size = 2, l.x_stride = 72;  // two oc blocks of 4 input blocks x 3x3 taps
  l.src_elem_offset = 10;
  l.sram_index = 100;
  const auto pieces = split_load(l, 256, 32 * 256);
  REQUIRE(pieces.size() == 4);
  CHECK(pieces[0].src_elem_offset == 10);
  CHECK(pieces[0].x_size == 32);
  CHECK(pieces[0].sram_index == 100);
  CHECK(pieces[1].src_elem_offset == 42);
  CHECK(pieces[1].x_size == 4);
  CHECK(pieces[1].sram_index == 132);
  CHECK(pieces[2].src_elem_offset == 82);  // second row: 10 + 72
  CHECK(pieces[2].sram_index == 136);      // rows are packed: 100 + 36
  CHECK(pieces[3].src_elem_offset == 114);
  CHECK(pieces[3].sram_index == 168);
}
