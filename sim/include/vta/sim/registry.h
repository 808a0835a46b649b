// Registry: interchangeable implementations of one interface (backends, memory models, GEMM
// kernels), each registered under a name with its traits by the file that implements it. Users
// (the runtime, the CLI, tests) ask the registry by name; nothing else knows the list, so adding
// an implementation is one source file plus one CMake line.
//
//   // in fsim_gemm_kernel.cc: Registry<GemmKernelEntry> gets one more entry
//   VTA_REGISTER(GemmKernelEntry, gemm_avx2, {"avx2", 20, ...traits...});
//
// A registration is a static object: the library that holds it must be linked whole (see
// vta_link_whole_archive in the top CMakeLists.txt), or its object file would be dropped, unless
// the same object file is needed anyway (the GEMM kernels live next to their selection).
// Entries are added during static initialisation, so nothing may look them up from another
// file's static initialiser; after that the list is fixed and find() pointers stay valid.
#pragma once

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "vta/sim/error.h"

namespace vta {

// `Entry` is a plain struct with at least `std::string name` and `int order` (the position in
// listings; lower first). One registry per Entry type.
template <class Entry>
class Registry {
 public:
  static Registry& instance() {
    static Registry r;
    return r;
  }

  // Adds `e`; a second entry with the same name is a programming error.
  void add(Entry e) {
    if (find(e.name) != nullptr) {
      throw Error("registry: '" + e.name + "' is registered twice");
    }
    m_entries.push_back(std::move(e));
    std::stable_sort(m_entries.begin(), m_entries.end(),
                     [](const Entry& a, const Entry& b) { return a.order < b.order; });
  }
  // The entry named `name`, or null.
  const Entry* find(const std::string& name) const {
    for (const Entry& e : m_entries) {
      if (e.name == name) {
        return &e;
      }
    }
    return nullptr;
  }
  // Every entry, sorted by `order`.
  const std::vector<Entry>& entries() const { return m_entries; }
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const Entry& e : m_entries) {
      out.push_back(e.name);
    }
    return out;
  }

 private:
  Registry() = default;
  std::vector<Entry> m_entries;
};

// Registers one entry at static-initialisation time.
template <class Entry>
struct Registration {
  explicit Registration(Entry e) { Registry<Entry>::instance().add(std::move(e)); }
};

}  // namespace vta

// Registers `entry` (an Entry aggregate) in Registry<EntryType> under a file-unique `tag`.
#define VTA_REGISTER(EntryType, tag, ...) \
  static const ::vta::Registration<EntryType> vta_registration_##tag(EntryType __VA_ARGS__)
