// The compiler's adapter to libvta's runtime: the only compiler code that calls the VTA* C API
// and vta/runtime_cpp.h. A RuntimeSink makes the process-wide runtime serve its Target for as
// long as it lives and turns the sink calls into the runtime calls TVM's lowered code makes
// (VTALoadBuffer2D, VTAPushGEMMOp / VTAPushALUOp with a finit that records the MicroKernel,
// VTADepPush / VTADepPop, VTAStoreBuffer2D, VTASynchronize).
#pragma once

#include <memory>

#include "vta/compiler/program_sink.h"
#include "vta/compiler/target.h"

namespace vta::compiler {

class RuntimeSink final : public ProgramSink {
 public:
  // Reconfigures the runtime when its config or backend differ from the target's (otherwise the
  // device, and any trace the caller enabled on it, is kept), reports runtime failures as
  // vta::Error while the sink lives, and with target.verify_programs installs the program
  // verifier as the runtime's program observer (removed again by the destructor).
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
  class Session;  // error mode and program observer, restored however the sink ends
  // The runtime's command queue (VTACommandHandle), fetched on first use: creating the queue
  // allocates its instruction buffers, which must come after the layer's data buffers, as in
  // the call order of TVM's lowered code.
  void* cmd();

  std::unique_ptr<Session> m_session;
  void* m_cmd = nullptr;
};

}  // namespace vta::compiler
