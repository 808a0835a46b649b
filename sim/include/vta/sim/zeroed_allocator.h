// ZeroedAllocator: a std::vector allocator for large arrays of trivial values that start at
// zero (SRAM images, page tables). Storage comes from calloc, whose large blocks are fresh pages
// from the OS that already read as zero, and elements are default-initialised instead of
// written with zeros: a page nobody touches costs no page fault and no clearing, so a process
// that uses a few tiles of a 256 KiB SRAM pays for those only.
//   std::vector<int32_t, ZeroedAllocator<int32_t>> acc(n);   // n zeros, untouched
#pragma once

#include <cstdlib>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace vta {

template <class T>
struct ZeroedAllocator {
  static_assert(std::is_trivially_default_constructible_v<T>, "only for trivial values");
  using value_type = T;

  ZeroedAllocator() = default;
  template <class U>
  explicit ZeroedAllocator(const ZeroedAllocator<U>&) {}

  T* allocate(std::size_t n) {
    void* p = std::calloc(n, sizeof(T));
    if (p == nullptr) {
      throw std::bad_alloc();
    }
    return static_cast<T*>(p);
  }
  void deallocate(T* p, std::size_t) { std::free(p); }

  // Value-initialisation (vector(n), resize(n)) leaves calloc's zeros in place.
  template <class U>
  void construct(U* p) {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }

  friend bool operator==(const ZeroedAllocator&, const ZeroedAllocator&) { return true; }
  friend bool operator!=(const ZeroedAllocator&, const ZeroedAllocator&) { return false; }
};

template <class T>
using ZeroedVector = std::vector<T, ZeroedAllocator<T>>;

}  // namespace vta
