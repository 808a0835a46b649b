// DeviceMemory: the driver's view of a runtime's simulated DRAM (vta::Dram). It remembers every
// allocation made through the API with its exact size, so that copies and frees can be
// checked (a copy one byte past a buffer, or a second free, is an error naming the pointer)
// and a program's DMA can be checked against the buffer it addresses (dma_bounds.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>

#include "vta/sim/dram.h"

namespace vta {

class DeviceMemory {
 public:
  // One live allocation: physical address and the bytes asked for.
  struct Allocation {
    uint64_t phys = 0;
    uint64_t bytes = 0;
  };

  explicit DeviceMemory(Dram& dram) : m_dram(dram) {}

  // Allocates `bytes` (at least one page, zero-filled) and returns the host pointer.
  void* alloc(size_t bytes);
  // Frees an allocation by its start pointer; `who` names the API call in errors.
  void free(void* host, const char* who);
  // Physical address of any pointer inside a live allocation.
  uint32_t phys_addr(const void* host, const char* who) const;
  // Throws Error unless [host, host + bytes) lies inside one live allocation.
  void check_range(const void* host, size_t bytes, const char* who, const char* what) const;
  // The live allocation physical address `phys` lies in (its first byte for an empty one), or
  // null.
  const Allocation* allocation_at(uint64_t phys) const;

  Dram& dram() { return m_dram; }
  const Dram& dram() const { return m_dram; }

  // The host side of a copy: a null pointer, or a range [host + offset, +bytes) that wraps the
  // address space, is an Error naming the call (`who`) and the argument (`what`). Returns
  // host + offset.
  static const uint8_t* host_range(const void* host, size_t offset, size_t bytes, const char* who,
                                   const char* what);

 private:
  Dram& m_dram;
  std::map<uint64_t, Allocation> m_allocs;  // physical start -> allocation
};

}  // namespace vta
