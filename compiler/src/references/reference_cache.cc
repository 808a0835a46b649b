#include "vta/compiler/references/reference_cache.h"

#include <cstring>
#include <functional>
#include <string_view>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "vta/compiler/references/fast_reference.h"

namespace vta::compiler {

namespace {

template <typename T>
std::vector<uint8_t> tensor_bytes(const std::vector<T>& v) {
  std::vector<uint8_t> bytes(v.size() * sizeof(T));
  if (!bytes.empty()) {
    std::memcpy(bytes.data(), v.data(), bytes.size());
  }
  return bytes;
}

std::string epilogue_key(const Epilogue& e) {
  return fmt::format("bias {} shift {} shifts {} residual {} relu {} lo {} hi {} round {}", e.bias,
                     e.shift, fmt::join(e.shifts, ","), e.residual, e.relu,
                     e.clip_lo ? fmt::format("{}", *e.clip_lo) : "-",
                     e.clip_hi ? fmt::format("{}", *e.clip_hi) : "-", e.round) +
         (e.residual_shift ? fmt::format(" residual_shift {}", e.residual_shift) : "");
}

size_t key_hash(const std::string& workload, const std::vector<std::vector<uint8_t>>& tensors) {
  size_t h = std::hash<std::string>()(workload);
  for (const auto& t : tensors) {
    const std::string_view bytes(reinterpret_cast<const char*>(t.data()), t.size());
    h = h * 1000003u ^ std::hash<std::string_view>()(bytes);
  }
  return h;
}

}  // namespace

ReferenceCache& ReferenceCache::process() {
  static ReferenceCache cache;
  return cache;
}

ReferenceCache::ReferenceCache(size_t capacity_bytes) : m_capacity(capacity_bytes) {}

template <typename Compute>
std::shared_ptr<const std::vector<int8_t>> ReferenceCache::lookup_or_compute(
    Key key, const Compute& compute) {
  key.hash = key_hash(key.workload, key.tensors);
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    for (auto it = m_entries.begin(); it != m_entries.end(); ++it) {
      if (it->key == key) {
        m_entries.splice(m_entries.begin(), m_entries, it);  // now the most recently used
        ++m_counters.hits;
        return it->output;
      }
    }
    ++m_counters.misses;
  }
  auto output = std::make_shared<const std::vector<int8_t>>(compute());
  Entry entry;
  entry.bytes = key.workload.size() + output->size();
  for (const auto& t : key.tensors) {
    entry.bytes += t.size();
  }
  entry.key = std::move(key);
  entry.output = output;
  std::lock_guard<std::mutex> lock(m_mutex);
  if (entry.bytes <= m_capacity) {
    evict_to(m_capacity - entry.bytes);
    m_counters.bytes += entry.bytes;
    ++m_counters.entries;
    m_entries.push_front(std::move(entry));
  }
  return output;
}

std::shared_ptr<const std::vector<int8_t>> ReferenceCache::conv2d(
    const Conv2dParams& p, const Epilogue& e, const std::vector<int8_t>& x,
    const std::vector<int8_t>& w, const std::vector<int32_t>& bias,
    const std::vector<int8_t>& residual) {
  Key key;
  key.workload = fmt::format("conv2d {} {} {} {} {} {} {} {} {} {} {} {} {}; {}", p.n, p.c, p.h,
                             p.w, p.k, p.kh, p.kw, p.stride_h, p.stride_w, p.pad_top, p.pad_bottom,
                             p.pad_left, p.pad_right, epilogue_key(e));
  key.tensors = {tensor_bytes(x), tensor_bytes(w),
                 e.bias ? tensor_bytes(bias) : std::vector<uint8_t>{},
                 e.residual ? tensor_bytes(residual) : std::vector<uint8_t>{}};
  return lookup_or_compute(std::move(key),
                           [&] { return conv2d_reference_fast(p, e, x, w, bias, residual); });
}

std::shared_ptr<const std::vector<int8_t>> ReferenceCache::matmul(
    const MatmulParams& p, const Epilogue& e, const std::vector<int8_t>& a,
    const std::vector<int8_t>& b, const std::vector<int32_t>& bias) {
  Key key;
  key.workload = fmt::format("matmul {} {} {}; {}", p.m, p.k, p.n, epilogue_key(e));
  key.tensors = {tensor_bytes(a), tensor_bytes(b),
                 e.bias ? tensor_bytes(bias) : std::vector<uint8_t>{}};
  return lookup_or_compute(std::move(key), [&] { return matmul_reference_fast(p, e, a, b, bias); });
}

ReferenceCache::Counters ReferenceCache::counters() const {
  std::lock_guard<std::mutex> lock(m_mutex);
  return m_counters;
}

void ReferenceCache::set_capacity_bytes(size_t bytes) {
  std::lock_guard<std::mutex> lock(m_mutex);
  m_capacity = bytes;
  evict_to(bytes);
}

void ReferenceCache::clear() {
  std::lock_guard<std::mutex> lock(m_mutex);
  m_entries.clear();
  m_counters = Counters{};
}

void ReferenceCache::evict_to(size_t bytes) {
  while (m_counters.bytes > bytes && !m_entries.empty()) {
    m_counters.bytes -= m_entries.back().bytes;
    --m_counters.entries;
    ++m_counters.evictions;
    m_entries.pop_back();
  }
}

}  // namespace vta::compiler
