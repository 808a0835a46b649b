// DeviceMemory: the driver's view of the process-wide simulated DRAM (vta::Dram). It remembers
// the exact size of every allocation made through the C API so that copies and frees can be
// checked (a copy one byte past a buffer, or a second free, is an error naming the pointer),
// while physical addresses of interior pointers come from the Dram itself.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>

#include "vta/sim/dram.h"

namespace vta {

class DeviceMemory {
 public:
  explicit DeviceMemory(Dram& dram) : m_dram(dram) {}

  // Allocates `bytes` (at least one page, zero-filled) and returns the host pointer.
  void* alloc(size_t bytes);
  // Frees an allocation by its start pointer; `who` names the API call in errors.
  void free(void* host, const char* who);
  // Physical address of any pointer inside a live allocation.
  uint32_t phys_addr(const void* host, const char* who) const;
  // Throws Error unless [host, host + bytes) lies inside one live allocation.
  void check_range(const void* host, size_t bytes, const char* who, const char* what) const;

  Dram& dram() { return m_dram; }

  // The host side of a copy: a null pointer, or a range [host + offset, +bytes) that wraps the
  // address space, is an Error naming the call (`who`) and the argument (`what`). Returns
  // host + offset.
  static const uint8_t* host_range(const void* host, size_t offset, size_t bytes, const char* who,
                                   const char* what);

 private:
  Dram& m_dram;
  std::map<uintptr_t, size_t> m_sizes;  // allocation start -> requested bytes
};

}  // namespace vta
