#include "vta/sim/dram.h"

#include <sys/mman.h>

#include <cstring>

#include <fmt/format.h>

#include "vta/sim/error.h"

namespace vta {

// Zero pages come from the OS: a page never touched reads as zero, and a page given back with
// MADV_DONTNEED reads as zero again, so a process commits only the pages a program touches.
// Giving pages back costs a page fault per page at their next use, though, which dominated
// small allocate/copy/free rounds; so free() keeps the pages of a small allocation (marked
// dirty) and alloc() zeroes dirty pages itself, and only large allocations go back to the OS.
// kPageFree is 0: every page starts free as an untouched zero page.
Dram::Dram() : m_page_used(kPhysBytes >> kPageBits) {
  void* p = mmap(nullptr, kPhysBytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) {
    throw Error("cannot reserve 4 GiB of address space for the simulated DRAM");
  }
  m_base = static_cast<uint8_t*>(p);
}

Dram::~Dram() {
  munmap(m_base, kPhysBytes);
}

void* Dram::alloc(size_t bytes) {
  // Checked before the page rounding, which would wrap for sizes near SIZE_MAX.
  if (bytes > kPhysBytes - kPageBytes) {
    throw Error(fmt::format(
        "cannot allocate {} bytes: larger than the 4 GiB simulated DRAM (page 0 is reserved)",
        bytes));
  }
  const uint64_t pages = std::max<uint64_t>(1, (bytes + kPageBytes - 1) >> kPageBits);
  uint64_t first = 0;
  // The lowest free range of exactly this size: a program allocating the same sizes in the same
  // order gets the same addresses whatever was freed before in which order (addresses matter to
  // the DRAM model: banks and rows).
  auto fit = m_free.lower_bound({pages, 0});
  if (fit != m_free.end() && fit->first == pages) {
    first = fit->second;
    m_free.erase(fit);
  } else {
    if (m_next_page + pages > m_page_used.size()) {
      throw Error(fmt::format(
          "simulated DRAM exhausted: cannot allocate {} bytes ({} bytes already allocated)", bytes,
          allocated_bytes()));
    }
    first = m_next_page;
    m_next_page += pages;
  }
  take_pages(first, pages);
  return m_base + (first << kPageBits);
}

void Dram::take_pages(uint64_t first, uint64_t pages) {
  for (uint64_t page = first; page < first + pages; ++page) {
    if (m_page_used[page] == kPageDirty) {  // contents of a freed allocation: zero it
      std::memset(m_base + (page << kPageBits), 0, kPageBytes);
    }
    m_page_used[page] = kPageUsed;
  }
  m_allocs[first] = pages;
  m_allocated_pages += pages;
}

void* Dram::alloc_at(uint64_t phys, size_t bytes) {
  const uint64_t first = phys >> kPageBits;
  const bool fits = phys < kPhysBytes && bytes <= kPhysBytes - phys;
  const uint64_t last = fits ? (phys + std::max<uint64_t>(bytes, 1) - 1) >> kPageBits : 0;
  if (first == 0 || !fits || last >= m_page_used.size()) {
    throw Error(fmt::format("cannot allocate [{:#x}, {:#x}): outside the simulated DRAM", phys,
                            phys + bytes));
  }
  for (uint64_t page = first; page <= last; ++page) {
    if (m_page_used[page] == kPageUsed) {
      throw Error(fmt::format("cannot allocate [{:#x}, {:#x}): page {:#x} is already allocated",
                              phys, phys + bytes, page << kPageBits));
    }
  }
  const uint64_t pages = last - first + 1;
  // Free ranges that overlap are dropped from reuse; pages skipped by the bump pointer stay free.
  for (auto it = m_free.begin(); it != m_free.end();) {
    const bool overlap = it->second <= last && it->second + it->first > first;
    it = overlap ? m_free.erase(it) : std::next(it);
  }
  if (first > m_next_page) {
    m_free.emplace(first - m_next_page, m_next_page);
  }
  m_next_page = std::max(m_next_page, last + 1);
  take_pages(first, pages);
  return m_base + phys;
}

std::vector<std::pair<uint32_t, uint64_t>> Dram::allocations() const {
  std::vector<std::pair<uint32_t, uint64_t>> v;
  for (const auto& [first, pages] : m_allocs) {
    v.emplace_back(static_cast<uint32_t>(first << kPageBits), pages << kPageBits);
  }
  return v;
}

void Dram::free(void* host) {
  const auto* p = static_cast<uint8_t*>(host);
  if (p < m_base || p >= m_base + kPhysBytes) {
    throw Error(fmt::format("free of {} which is not simulated DRAM", host));
  }
  const uint64_t offset = p - m_base;
  auto it = m_allocs.find(offset >> kPageBits);
  if ((offset & (kPageBytes - 1)) != 0 || it == m_allocs.end()) {
    throw Error(fmt::format(
        "free of {} (physical {:#x}) which is not the start of a live allocation (double free?)",
        host, offset));
  }
  const uint64_t first = it->first, pages = it->second;
  m_allocs.erase(it);
  const bool keep = (pages << kPageBits) <= kKeepFreedBytes;
  if (!keep) {
    madvise(m_base + (first << kPageBits), pages << kPageBits, MADV_DONTNEED);
  }
  std::fill(m_page_used.begin() + first, m_page_used.begin() + first + pages,
            keep ? kPageDirty : kPageFree);
  m_free.emplace(pages, first);
  m_allocated_pages -= pages;
  if (m_allocs.empty()) {  // as fresh: the next allocations get the addresses a new Dram gives
    m_free.clear();
    m_next_page = 1;
  }
}

uint32_t Dram::phys_addr(const void* host) const {
  const auto* p = static_cast<const uint8_t*>(host);
  if (p < m_base || p >= m_base + kPhysBytes ||
      m_page_used[(p - m_base) >> kPageBits] != kPageUsed) {
    throw Error(fmt::format("pointer {} is not inside a simulated DRAM allocation", host));
  }
  return static_cast<uint32_t>(p - m_base);
}

bool Dram::is_allocated(uint64_t phys, uint64_t bytes) const {
  if (bytes == 0) {
    return true;
  }
  if (phys >= kPhysBytes || bytes > kPhysBytes - phys) {
    return false;
  }
  for (uint64_t page = phys >> kPageBits; page <= (phys + bytes - 1) >> kPageBits; ++page) {
    if (m_page_used[page] != kPageUsed) {
      return false;
    }
  }
  return true;
}

}  // namespace vta
