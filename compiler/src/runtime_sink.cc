#include "runtime_sink.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "vta/compiler/program_check.h"
#include "vta/runtime.h"
#include "vta/runtime_cpp.h"
#include "vta/sim/error.h"

namespace vta::compiler {

namespace {

// True when the runtime's active device already has the target's backend and config. An
// environment default the runtime cannot resolve (bad $VTA_BACKEND / $VTA_CONFIG) counts as
// different: the target replaces it.
bool runtime_serves(const Target& target) {
  try {
    return runtime_backend_name() == target.backend &&
           runtime_config().to_json() == target.config.to_json();
  } catch (const Error&) {
    return false;
  }
}

// finit of VTAPushGEMMOp / VTAPushALUOp: the runtime passes the signature pointer through, and
// the signature is the MicroKernel to record, so no global state is needed.
int record_kernel(void* signature) {
  const MicroKernel& k = *static_cast<const MicroKernel*>(signature);
  for (const UopLoop& l : k.loops) {
    VTAUopLoopBegin(l.extent, l.dst_factor, l.src_factor, l.wgt_factor);
  }
  for (const Uop& u : k.uops) {
    VTAUopPush(k.gemm ? 0 : 1, k.reset ? 1 : 0, u.dst_idx, u.src_idx, u.wgt_idx, k.alu_opcode,
               k.use_imm ? 1 : 0, k.imm);
  }
  for (size_t i = 0; i < k.loops.size(); ++i) {
    VTAUopLoopEnd();
  }
  return 0;
}

}  // namespace

// The runtime state a sink changes for its lifetime: the error mode (runtime failures become
// exceptions for the compiler) and the program observer that runs the verifier.
class RuntimeSink::Session {
 public:
  explicit Session(const Target& target) : m_target(target), m_previous_mode(error_mode()) {
    set_error_mode(ErrorMode::kThrow);
    try {
      if (!runtime_serves(target)) {
        runtime_configure(target.backend, target.config);
      }
      // A fresh command queue (its buffers freed): once the previous run's buffers are freed
      // too, this run's buffers get the addresses they get in a new process, so its timing
      // (addresses matter to a DRAM model) does not depend on what ran before it.
      VTARuntimeShutdown();
      if (target.verify_programs) {
        runtime_set_program_observer([this](const SyncedProgram& p) { verify(p); });
        m_observing = true;
      }
    } catch (...) {
      set_error_mode(m_previous_mode);
      throw;
    }
  }
  ~Session() {
    if (m_observing) {
      runtime_set_program_observer(nullptr);
    }
    set_error_mode(m_previous_mode);
  }
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
  uint32_t max_cycles() const { return m_target.max_cycles; }

 private:
  // The verifier as a compiler step: every synchronised program, before it runs.
  void verify(const SyncedProgram& program) const {
    const ProgramCheck check = check_program(program, m_target.config);
    if (m_target.on_program_check) {
      m_target.on_program_check(check);
    }
    if (!check.ok()) {
      throw Error("program verifier: " +
                  (check.first_problem.empty()
                       ? fmt::format("{} dependency tokens left over", check.leftover_tokens)
                       : check.first_problem));
    }
  }

  Target m_target;
  ErrorMode m_previous_mode;
  bool m_observing = false;
};

RuntimeSink::RuntimeSink(const Target& target) : m_session(std::make_unique<Session>(target)) {}

RuntimeSink::~RuntimeSink() = default;

void* RuntimeSink::cmd() {
  if (m_cmd == nullptr) {
    m_cmd = VTATLSCommandHandle();
  }
  return m_cmd;
}

BufferHandle RuntimeSink::alloc(size_t bytes) {
  void* handle = VTABufferAlloc(bytes);
  if (handle == nullptr) {
    throw Error(fmt::format("VTABufferAlloc({}) failed", bytes));
  }
  return handle;
}

void RuntimeSink::free(BufferHandle buffer) {
  VTABufferFree(buffer);
}

void RuntimeSink::copy_in(BufferHandle dst, const void* host, size_t bytes) {
  VTABufferCopy(host, 0, dst, 0, bytes, VTA_MEMCPY_H2D);
}

void RuntimeSink::copy_out(BufferHandle src, void* host, size_t bytes) {
  VTABufferCopy(src, 0, host, 0, bytes, VTA_MEMCPY_D2H);
}

void RuntimeSink::load_2d(const Load2D& l) {
  VTALoadBuffer2D(cmd(), l.src, l.src_elem_offset, l.x_size, l.y_size, l.x_stride, l.x_pad_before,
                  l.y_pad_before, l.x_pad_after, l.y_pad_after, l.sram_index, l.memory_type);
}

void RuntimeSink::store_2d(const Store2D& s) {
  VTAStoreBuffer2D(cmd(), s.sram_index, s.memory_type, s.dst, s.dst_elem_offset, s.x_size, s.y_size,
                   s.x_stride);
}

void RuntimeSink::push_kernel(const MicroKernel& kernel, KernelCacheSlot& cache) {
  // nbytes 0: the handle alone identifies the kernel; the signature only carries it to finit.
  void* signature = const_cast<MicroKernel*>(&kernel);
  if (kernel.gemm) {
    VTAPushGEMMOp(&cache.sink_handle, &record_kernel, signature, 0);
  } else {
    VTAPushALUOp(&cache.sink_handle, &record_kernel, signature, 0);
  }
}

void RuntimeSink::dep_push(Stage from, Stage to) {
  VTADepPush(cmd(), from, to);
}

void RuntimeSink::dep_pop(Stage from, Stage to) {
  VTADepPop(cmd(), from, to);
}

void RuntimeSink::synchronize() {
  VTASynchronize(cmd(), m_session->max_cycles());
}

Stats RuntimeSink::stats() const {
  return runtime_stats();
}

void RuntimeSink::clear_stats() {
  runtime_clear_stats();
}

}  // namespace vta::compiler
