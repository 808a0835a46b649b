#include "device_memory.h"

#include <fmt/format.h>

#include "vta/sim/error.h"

namespace vta {

namespace {

// Physical address of `host` if it lies inside the 4 GiB DRAM mapping.
bool dram_offset(const Dram& dram, const void* host, uint64_t* phys) {
  const auto base = reinterpret_cast<uintptr_t>(dram.host_ptr(0));
  const auto p = reinterpret_cast<uintptr_t>(host);
  if (host == nullptr || p < base || p - base >= Dram::kPhysBytes) {
    return false;
  }
  *phys = p - base;
  return true;
}

}  // namespace

const uint8_t* DeviceMemory::host_range(const void* host, size_t offset, size_t bytes,
                                        const char* who, const char* what) {
  if (host == nullptr) {
    throw Error(fmt::format("{}: {} is a null pointer", who, what));
  }
  const auto p = reinterpret_cast<uintptr_t>(host);
  if (offset > UINTPTR_MAX - p || bytes > UINTPTR_MAX - (p + offset)) {
    throw Error(fmt::format("{}: {} range [{} + {}, +{}) wraps around the address space", who, what,
                            host, offset, bytes));
  }
  return static_cast<const uint8_t*>(host) + offset;
}

void* DeviceMemory::alloc(size_t bytes) {
  void* p = m_dram.alloc(bytes == 0 ? 1 : bytes);
  const uint64_t phys = static_cast<uint8_t*>(p) - m_dram.host_ptr(0);
  m_allocs.emplace_hint(m_allocs.end(), phys, Allocation{phys, bytes});
  return p;
}

void DeviceMemory::free(void* host, const char* who) {
  uint64_t phys = 0;
  auto it = dram_offset(m_dram, host, &phys) ? m_allocs.find(phys) : m_allocs.end();
  if (it == m_allocs.end()) {
    throw Error(
        fmt::format("{}: {} is not a live device allocation (freed twice, or not the "
                    "pointer returned by the allocator)",
                    who, host));
  }
  m_dram.free(host);
  m_allocs.erase(it);
}

uint32_t DeviceMemory::phys_addr(const void* host, const char* who) const {
  uint64_t phys = 0;
  if (!dram_offset(m_dram, host, &phys) || !m_dram.is_allocated(phys, 1)) {
    throw Error(fmt::format("{}: {} is not a pointer into device memory", who, host));
  }
  return static_cast<uint32_t>(phys);
}

const DeviceMemory::Allocation* DeviceMemory::allocation_at(uint64_t phys) const {
  auto it = m_allocs.upper_bound(phys);
  if (it == m_allocs.begin()) {
    return nullptr;
  }
  --it;
  const Allocation& a = it->second;
  return phys - a.phys < std::max<uint64_t>(a.bytes, 1) ? &a : nullptr;
}

void DeviceMemory::check_range(const void* host, size_t bytes, const char* who,
                               const char* what) const {
  uint64_t phys = 0;
  if (dram_offset(m_dram, host, &phys)) {
    auto it = m_allocs.upper_bound(phys);
    if (it != m_allocs.begin()) {
      const Allocation& a = std::prev(it)->second;
      const uint64_t offset = phys - a.phys;
      if (offset <= a.bytes) {
        if (bytes > a.bytes - offset) {
          throw Error(
              fmt::format("{}: {} range [{}, +{}) exceeds its buffer ({} bytes at {}, "
                          "offset {})",
                          who, what, host, bytes, a.bytes,
                          static_cast<const void*>(m_dram.host_ptr(a.phys)), offset));
        }
        return;
      }
    }
  }
  // Memory allocated directly through Dram (not the C API): page-granular check only.
  if (!dram_offset(m_dram, host, &phys) || !m_dram.is_allocated(phys, bytes)) {
    throw Error(fmt::format("{}: {} range [{}, +{}) is not inside a device allocation", who, what,
                            host, bytes));
  }
}

}  // namespace vta
