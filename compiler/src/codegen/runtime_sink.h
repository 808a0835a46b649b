// The compiler's adapter to libvta's runtime: the only compiler code that calls a vta::Runtime.
// A RuntimeSink drives its Target's runtime (never a process-wide one) and turns the sink calls
// into the runtime calls TVM's lowered code makes (load 2D, GEMM / ALU push with a finit that
// records the MicroKernel, dependency push / pop, store 2D, synchronize).
#pragma once

#include <memory>

#include "vta/compiler/codegen/program_sink.h"
#include "vta/compiler/target.h"

namespace vta::compiler {

class RuntimeSink final : public ProgramSink {
 public:
  // Starts a fresh command queue on target.runtime (its device, and any trace the caller
  // enabled on it, is kept) and with target.verify_programs installs the program verifier as
  // the runtime's program observer (removed again by the destructor). Runtime failures are
  // vta::Error exceptions.
  explicit RuntimeSink(const Target& target);
  ~RuntimeSink() override;
  RuntimeSink(const RuntimeSink&) = delete;
  RuntimeSink& operator=(const RuntimeSink&) = delete;

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
  Stats stats() const override;
  void clear_stats() override;

 private:
  class Session;  // fresh queue and program observer, restored however the sink ends

  // The runtime creates its command queue on the first load (after the layer's data buffers,
  // as in the call order of TVM's lowered code): the queue's buffers come after the data.
  std::unique_ptr<Session> m_session;
  Runtime& m_runtime;
};

}  // namespace vta::compiler
