// Dram: the simulated physical memory shared by the host runtime and the accelerator.
// Physical addresses are 32-bit byte addresses. Allocations are whole 4 KiB pages; the physical
// address of an allocation is (first page index + 1) << 12, as upstream's virtual memory
// manager (address 0 stays null). The whole 4 GiB physical space is one lazily committed host
// mapping, so host pointer <-> physical address is a constant offset (interior pointers work).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "vta/sim/zeroed_allocator.h"

namespace vta {

class Dram {
 public:
  static constexpr int kPageBits = 12;
  static constexpr uint64_t kPageBytes = 1ull << kPageBits;
  static constexpr uint64_t kPhysBytes = 1ull << 32;  // vta_phy_addr_t is 32 bits

  Dram();
  ~Dram();
  Dram(const Dram&) = delete;
  Dram& operator=(const Dram&) = delete;

  // Allocates `bytes` (rounded up to pages, zero-filled); returns the host pointer.
  // Throws Error when the 4 GiB physical space is exhausted.
  void* alloc(size_t bytes);
  // Allocates the pages covering [phys, phys + bytes) at exactly that physical address (to
  // replay a saved program image); returns the host pointer of `phys`. Throws Error naming the
  // range if any of those pages is already allocated or outside the physical space.
  void* alloc_at(uint64_t phys, size_t bytes);
  // Live allocations as (physical address, bytes), in address order.
  std::vector<std::pair<uint32_t, uint64_t>> allocations() const;
  // Frees an allocation by its host pointer (the start, not an interior pointer).
  // Throws Error naming the pointer on a double free or an unknown pointer.
  void free(void* host);

  // Physical address of a host pointer inside any live allocation (interior pointers allowed).
  // Throws Error if the pointer is not inside one.
  uint32_t phys_addr(const void* host) const;
  // Host pointer of a physical address (no check).
  uint8_t* host_ptr(uint64_t phys) const { return m_base + phys; }
  // True if [phys, phys + bytes) lies entirely in allocated pages.
  bool is_allocated(uint64_t phys, uint64_t bytes) const;
  // Host pointer of [phys, phys+bytes) if allocated, else nullptr (the simulators' DMA check).
  uint8_t* checked_ptr(uint64_t phys, uint64_t bytes) const {
    return is_allocated(phys, bytes) ? m_base + phys : nullptr;
  }
  // Bytes currently allocated.
  uint64_t allocated_bytes() const { return m_allocated_pages * kPageBytes; }

 private:
  // Page states: free and zero (never used, or given back to the OS), allocated, free but
  // holding a freed allocation's bytes (zeroed when allocated again).
  static constexpr uint8_t kPageFree = 0, kPageUsed = 1, kPageDirty = 2;
  // Freed allocations up to this size keep their pages (see dram.cc).
  static constexpr uint64_t kKeepFreedBytes = 256 * 1024;

  // Marks [first, first + pages) allocated, zeroing dirty pages, and records the allocation.
  void take_pages(uint64_t first, uint64_t pages);

  uint8_t* m_base = nullptr;          // host mapping of physical address 0
  ZeroedVector<uint8_t> m_page_used;  // per page: kPageFree (untouched: 0) / kPageUsed / kPageDirty
  std::map<uint64_t, uint64_t> m_allocs;           // first page -> page count (live allocations)
  std::set<std::pair<uint64_t, uint64_t>> m_free;  // (page count, first page): exact-fit reuse
  uint64_t m_next_page = 1;                        // bump pointer; page 0 is never handed out
  uint64_t m_allocated_pages = 0;
};

}  // namespace vta
