// Simulated DRAM: upstream page-granular physical addresses, interior pointers, misuse errors.
#include <algorithm>
#include <cstring>

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
