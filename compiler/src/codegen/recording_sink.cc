#include "vta/compiler/codegen/recording_sink.h"

#include <cstring>

#include <fmt/format.h>

#include "vta/sim/error.h"

namespace vta::compiler {

namespace {

bool same_load(const Load2D& a, const Load2D& b) {
  return a.src == b.src && a.src_elem_offset == b.src_elem_offset && a.x_size == b.x_size &&
         a.y_size == b.y_size && a.x_stride == b.x_stride && a.x_pad_before == b.x_pad_before &&
         a.y_pad_before == b.y_pad_before && a.x_pad_after == b.x_pad_after &&
         a.y_pad_after == b.y_pad_after && a.sram_index == b.sram_index &&
         a.memory_type == b.memory_type;
}

bool same_store(const Store2D& a, const Store2D& b) {
  return a.sram_index == b.sram_index && a.memory_type == b.memory_type && a.dst == b.dst &&
         a.dst_elem_offset == b.dst_elem_offset && a.x_size == b.x_size && a.y_size == b.y_size &&
         a.x_stride == b.x_stride;
}

}  // namespace

bool RecordedCall::operator==(const RecordedCall& o) const {
  if (kind != o.kind) {
    return false;
  }
  switch (kind) {
    case CallKind::kLoad:
      return same_load(load, o.load);
    case CallKind::kStore:
      return same_store(store, o.store);
    case CallKind::kKernel:
      return kernel == o.kernel;
    case CallKind::kDepPush:
    case CallKind::kDepPop:
      return from == o.from && to == o.to;
    case CallKind::kSync:
      return true;
  }
  return false;
}

BufferHandle RecordingSink::alloc(size_t bytes) {
  m_buffer_bytes.push_back(bytes);
  m_buffer_names.push_back(fmt::format("buffer{}", m_buffer_bytes.size()));
  // A handle is the buffer's number, never dereferenced.
  return reinterpret_cast<BufferHandle>(static_cast<uintptr_t>(m_buffer_bytes.size()));
}

size_t RecordingSink::index_of(BufferHandle buffer) const {
  const auto n = static_cast<size_t>(reinterpret_cast<uintptr_t>(buffer));
  if (n == 0 || n > m_buffer_bytes.size()) {
    throw Error(
        fmt::format("recording sink: {} is not one of its {} buffers", n, m_buffer_bytes.size()));
  }
  return n - 1;
}

void RecordingSink::free(BufferHandle buffer) {
  index_of(buffer);
}

void RecordingSink::copy_in(BufferHandle dst, const void*, size_t) {
  index_of(dst);
}

void RecordingSink::copy_out(BufferHandle src, void* host, size_t bytes) {
  index_of(src);
  std::memset(host, 0, bytes);
}

void RecordingSink::load_2d(const Load2D& load) {
  index_of(load.src);
  RecordedCall c;
  c.kind = CallKind::kLoad;
  c.load = load;
  m_calls.push_back(c);
}

void RecordingSink::store_2d(const Store2D& store) {
  index_of(store.dst);
  RecordedCall c;
  c.kind = CallKind::kStore;
  c.store = store;
  m_calls.push_back(c);
}

void RecordingSink::push_kernel(const MicroKernel& kernel, KernelCacheSlot& cache) {
  // The slot holds the kernel's number + 1 (0: not recorded yet).
  auto number = reinterpret_cast<uintptr_t>(cache.sink_handle);
  if (number == 0) {
    m_kernels.push_back(kernel);
    number = m_kernels.size();
    cache.sink_handle = reinterpret_cast<void*>(number);
  }
  RecordedCall c;
  c.kind = CallKind::kKernel;
  c.kernel = static_cast<size_t>(number - 1);
  m_calls.push_back(c);
}

void RecordingSink::dep_push(Stage from, Stage to) {
  RecordedCall c;
  c.kind = CallKind::kDepPush;
  c.from = from;
  c.to = to;
  m_calls.push_back(c);
}

void RecordingSink::dep_pop(Stage from, Stage to) {
  RecordedCall c;
  c.kind = CallKind::kDepPop;
  c.from = from;
  c.to = to;
  m_calls.push_back(c);
}

void RecordingSink::synchronize() {
  RecordedCall c;
  c.kind = CallKind::kSync;
  m_calls.push_back(c);
}

void RecordingSink::name_buffer(BufferHandle buffer, std::string name) {
  m_buffer_names[index_of(buffer)] = std::move(name);
}

std::string RecordingSink::buffer_name(BufferHandle buffer) const {
  return m_buffer_names[index_of(buffer)];
}

std::vector<std::pair<std::string, size_t>> RecordingSink::buffers() const {
  std::vector<std::pair<std::string, size_t>> out;
  for (size_t i = 0; i < m_buffer_bytes.size(); ++i) {
    out.emplace_back(m_buffer_names[i], m_buffer_bytes[i]);
  }
  return out;
}

}  // namespace vta::compiler
