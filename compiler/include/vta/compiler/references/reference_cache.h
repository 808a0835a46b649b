// Memoised reference outputs, per process. A layer's reference depends only on its workload
// (shape, epilogue) and its data, never on the design it runs on, so a process that runs the
// same workload on many designs (a sweep worker, tuning, a network on several configs) computes
// each reference once. Entries are keyed exactly: the shape and epilogue fields and a full copy of
// every input tensor, compared element by element on lookup (a hash only picks the candidates).
// The cache is bounded in bytes; the least recently used entries go first.
#pragma once

#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "vta/compiler/scheduling/workload.h"

namespace vta::compiler {

class ReferenceCache {
 public:
  static constexpr size_t kDefaultCapacityBytes = size_t(256) << 20;

  struct Counters {
    uint64_t hits = 0, misses = 0, evictions = 0;
    size_t entries = 0, bytes = 0;
  };

  // The process-wide cache that run_conv2d / run_matmul use.
  static ReferenceCache& process();

  explicit ReferenceCache(size_t capacity_bytes = kDefaultCapacityBytes);

  // conv2d_reference / matmul_reference (computed by their fast versions), memoised.
  std::shared_ptr<const std::vector<int8_t>> conv2d(const Conv2dParams& p, const Epilogue& e,
                                                    const std::vector<int8_t>& x,
                                                    const std::vector<int8_t>& w,
                                                    const std::vector<int32_t>& bias,
                                                    const std::vector<int8_t>& residual);
  std::shared_ptr<const std::vector<int8_t>> matmul(const MatmulParams& p, const Epilogue& e,
                                                    const std::vector<int8_t>& a,
                                                    const std::vector<int8_t>& b,
                                                    const std::vector<int32_t>& bias);

  Counters counters() const;
  void set_capacity_bytes(size_t bytes);  // evicts down to the new bound
  void clear();

 private:
  // The exact key: workload fields as text, the input tensors as bytes.
  struct Key {
    std::string workload;
    std::vector<std::vector<uint8_t>> tensors;
    size_t hash = 0;
    bool operator==(const Key& o) const {
      return hash == o.hash && workload == o.workload && tensors == o.tensors;
    }
  };
  struct Entry {
    Key key;
    std::shared_ptr<const std::vector<int8_t>> output;
    size_t bytes = 0;
  };
  template <typename Compute>
  std::shared_ptr<const std::vector<int8_t>> lookup_or_compute(Key key, const Compute& compute);
  void evict_to(size_t bytes);  // caller holds m_mutex

  mutable std::mutex m_mutex;
  std::list<Entry> m_entries;  // most recently used first
  size_t m_capacity = 0;
  Counters m_counters;
};

}  // namespace vta::compiler
