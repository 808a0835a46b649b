// A program sink that runs nothing: it keeps every call the code generator makes (loads,
// stores, kernel pushes, dependency tokens, synchronisations) in order, so that tests can
// compare instruction streams without a backend and `--print-lowered` can show the program.
// Buffers are numbered in allocation order and may be given names for printing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "vta/compiler/codegen/program_sink.h"

namespace vta::compiler {

enum class CallKind { kLoad, kStore, kKernel, kDepPush, kDepPop, kSync };

// One recorded call; only the fields of its kind are set.
struct RecordedCall {
  CallKind kind = CallKind::kSync;
  Load2D load;                               // kLoad (src: the buffer's handle)
  Store2D store;                             // kStore (dst: the buffer's handle)
  size_t kernel = 0;                         // kKernel: index into RecordingSink::kernels()
  Stage from = kStageNone, to = kStageNone;  // kDepPush, kDepPop
  bool operator==(const RecordedCall& o) const;
};

class RecordingSink : public ProgramSink {
 public:
  RecordingSink() = default;
  RecordingSink(const RecordingSink&) = delete;
  RecordingSink& operator=(const RecordingSink&) = delete;

  // Buffers get handles 1, 2, ... (never null); copies in are ignored, copies out give zeros.
  BufferHandle alloc(size_t bytes) override;
  void free(BufferHandle buffer) override;
  void copy_in(BufferHandle dst, const void* host, size_t bytes) override;
  void copy_out(BufferHandle src, void* host, size_t bytes) override;

  void load_2d(const Load2D& load) override;
  void store_2d(const Store2D& store) override;
  void push_kernel(const MicroKernel& kernel, KernelCacheSlot& cache) override;
  void dep_push(Stage from, Stage to) override;
  void dep_pop(Stage from, Stage to) override;
  void synchronize() override;

  Stats stats() const override { return Stats{}; }
  void clear_stats() override {}

  const std::vector<RecordedCall>& calls() const { return m_calls; }
  // Distinct kernels in the order of their first push.
  const std::vector<MicroKernel>& kernels() const { return m_kernels; }
  // Names buffers for printing; unnamed buffers print as "buffer<N>".
  void name_buffer(BufferHandle buffer, std::string name);
  std::string buffer_name(BufferHandle buffer) const;
  // Name and size of every buffer, in allocation order.
  std::vector<std::pair<std::string, size_t>> buffers() const;

 private:
  size_t index_of(BufferHandle buffer) const;

  std::vector<RecordedCall> m_calls;
  std::vector<MicroKernel> m_kernels;
  std::vector<std::string> m_buffer_names;  // by handle - 1
  std::vector<size_t> m_buffer_bytes;
};

}  // namespace vta::compiler
