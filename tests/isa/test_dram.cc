// Simulated DRAM: upstream page-granular physical addresses, interior pointers, misuse errors.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include <sys/mman.h>
#include <sys/resource.h>

#include <fmt/format.h>
#include <catch2/catch.hpp>

#include "vta/sim/dram.h"
#include "vta/sim/error.h"

using namespace vta;

TEST_CASE("allocations are page aligned and start at physical 0x1000", "[dram]") {
  Dram d;
  void* a = d.alloc(100);
  void* b = d.alloc(5000);
  void* c = d.alloc(1);
  CHECK(d.phys_addr(a) == 0x1000);
  CHECK(d.phys_addr(b) == 0x2000);
  CHECK(d.phys_addr(c) == 0x4000);
  CHECK(d.phys_addr(static_cast<char*>(b) + 4100) == 0x2000 + 4100);
  CHECK(d.host_ptr(0x2000) == b);
  CHECK(d.is_allocated(0x2000, 8192));
  CHECK(d.is_allocated(0x2000, 8193));  // runs into the next allocation
  CHECK_FALSE(d.is_allocated(0x4000, 4097));
  CHECK_FALSE(d.is_allocated(0, 1));
  std::memset(b, 0xFF, 2 * Dram::kPageBytes);  // dirty both pages before they are reused
  d.free(b);
  CHECK_FALSE(d.is_allocated(0x2000, 1));
  void* e = d.alloc(6000);  // exact-fit reuse of the two freed pages
  CHECK(d.phys_addr(e) == 0x2000);
  const auto* bytes = static_cast<const unsigned char*>(e);
  CHECK(std::all_of(bytes, bytes + 2 * Dram::kPageBytes, [](unsigned char v) { return v == 0; }));
}

TEST_CASE("DRAM misuse is reported", "[dram]") {
  Dram d;
  void* a = d.alloc(10);
  d.free(a);
  REQUIRE_THROWS_AS(d.free(a), Error);
  REQUIRE_THROWS_WITH(d.free(a), fmt::format("free of {} (physical 0x1000) which is not the start "
                                             "of a live allocation (double free?)",
                                             a));
  int local = 0;
  REQUIRE_THROWS_WITH(d.phys_addr(&local),
                      Catch::Matchers::Contains("is not inside a simulated DRAM allocation"));
}

TEST_CASE("allocation sizes beyond the 4 GiB space are rejected before rounding", "[dram]") {
  Dram d;
  for (uint64_t size : {uint64_t{SIZE_MAX}, uint64_t{SIZE_MAX} - 4095, uint64_t{1} << 32}) {
    REQUIRE_THROWS_WITH(d.alloc(size),
                        fmt::format("cannot allocate {} bytes: larger than the 4 GiB simulated "
                                    "DRAM (page 0 is reserved)",
                                    size));
  }
  CHECK(d.allocated_bytes() == 0);
  REQUIRE_THROWS_WITH(d.alloc_at(0x1000, SIZE_MAX),
                      Catch::Matchers::EndsWith("outside the simulated DRAM"));
  REQUIRE_THROWS_WITH(d.alloc_at(0xFFFFF000, 0x2000),
                      Catch::Matchers::EndsWith("outside the simulated DRAM"));
  CHECK(d.allocated_bytes() == 0);
}

TEST_CASE("an allocation commits no host memory until it is touched", "[dram]") {
  // The zero pages come from the OS (no memset): mincore sees none of them resident.
  Dram d;
  const size_t bytes = 8u << 20;
  auto* p = static_cast<uint8_t*>(d.alloc(bytes));
  std::vector<unsigned char> resident(bytes / Dram::kPageBytes);
  REQUIRE(mincore(p, bytes, resident.data()) == 0);
  CHECK(std::count_if(resident.begin(), resident.end(), [](unsigned char v) { return v & 1; }) ==
        0);
  CHECK(p[bytes - 1] == 0);
  p[0] = 1;
  REQUIRE(mincore(p, bytes, resident.data()) == 0);
  CHECK((resident[0] & 1) == 1);
}

namespace {

long minor_faults() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_minflt;
}

bool all_zero(const void* p, size_t bytes) {
  const auto* b = static_cast<const unsigned char*>(p);
  return std::all_of(b, b + bytes, [](unsigned char v) { return v == 0; });
}

}  // namespace

TEST_CASE("a freed small buffer's pages are reused without page faults, zeroed", "[dram]") {
  // Before: free() gave every page back (MADV_DONTNEED), so each reuse faulted once per page.
  Dram d;
  const size_t bytes = 64 * 1024;  // 16 pages
  void* warm = d.alloc(bytes);
  std::memset(warm, 0x5a, bytes);  // the pages are committed and dirty
  d.free(warm);
  constexpr int kRounds = 100;
  const long before = minor_faults();
  bool zero = true;
  for (int i = 0; i < kRounds; ++i) {
    void* p = d.alloc(bytes);
    zero = zero && all_zero(p, bytes);  // a freed allocation's bytes never show through
    std::memset(p, 0xa5, bytes);
    d.free(p);
  }
  const long faults = minor_faults() - before;
  CHECK(zero);
  // 16 faults a round before; a stray fault of the process itself may still happen.
  CHECK(faults < kRounds);
}

TEST_CASE("a freed large buffer goes back to the OS and reads zero when reused", "[dram]") {
  Dram d;
  const size_t bytes = 8u << 20;
  auto* p = static_cast<uint8_t*>(d.alloc(bytes));
  std::memset(p, 0xff, bytes);
  d.free(p);
  auto* q = static_cast<uint8_t*>(d.alloc(bytes));
  REQUIRE(q == p);
  std::vector<unsigned char> resident(bytes / Dram::kPageBytes);
  REQUIRE(mincore(q, bytes, resident.data()) == 0);
  CHECK(std::count_if(resident.begin(), resident.end(), [](unsigned char v) { return v & 1; }) ==
        0);
  CHECK(all_zero(q, bytes));
}
