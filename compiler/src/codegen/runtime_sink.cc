#include "codegen/runtime_sink.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "vta/compiler/check/program_check.h"
#include "vta/runtime.h"
#include "vta/runtime_object.h"
#include "vta/sim/error.h"

namespace vta::compiler {

namespace {

// What finit receives as its signature: the runtime recording the kernel and the kernel.
struct KernelToRecord {
  Runtime* runtime;
  const MicroKernel* kernel;
};

// finit of the runtime's GEMM / ALU push: records the MicroKernel into the runtime that called
// it, so no global state is needed.
int record_kernel(void* signature) {
  const KernelToRecord& r = *static_cast<const KernelToRecord*>(signature);
  const MicroKernel& k = *r.kernel;
  for (const UopLoop& l : k.loops) {
    r.runtime->uop_loop_begin(l.extent, l.dst_factor, l.src_factor, l.wgt_factor);
  }
  for (const Uop& u : k.uops) {
    r.runtime->uop_push(k.gemm ? 0 : 1, k.reset ? 1 : 0, u.dst_idx, u.src_idx, u.wgt_idx,
                        k.alu_opcode, k.use_imm ? 1 : 0, k.imm);
  }
  for (size_t i = 0; i < k.loops.size(); ++i) {
    r.runtime->uop_loop_end();
  }
  return 0;
}

}  // namespace

// What a sink sets on its target's runtime for its lifetime: a fresh command queue and the
// program observer that runs the verifier.
class RuntimeSink::Session {
 public:
  explicit Session(const Target& target) : m_target(target), m_runtime(*target.runtime) {
    // A fresh command queue (its buffers freed): once the previous run's buffers are freed
    // too, this run's buffers get the addresses they get in a new process, so its timing
    // (addresses matter to a DRAM model) does not depend on what ran before it.
    m_runtime.shutdown_queue();
    if (target.verify_programs) {
      m_runtime.set_program_observer([this](const SyncedProgram& p) { verify(p); });
      m_observing = true;
    }
  }
  ~Session() {
    if (m_observing) {
      m_runtime.set_program_observer(nullptr);
    }
  }
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
  uint32_t max_cycles() const { return m_target.max_cycles; }
  Runtime& runtime() { return m_runtime; }

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
  Runtime& m_runtime;
  bool m_observing = false;
};

RuntimeSink::RuntimeSink(const Target& target)
    : m_session(std::make_unique<Session>(target)), m_runtime(*target.runtime) {}

RuntimeSink::~RuntimeSink() = default;

BufferHandle RuntimeSink::alloc(size_t bytes) {
  return m_runtime.buffer_alloc(bytes);
}

void RuntimeSink::free(BufferHandle buffer) {
  m_runtime.buffer_free(buffer);
}

void RuntimeSink::copy_in(BufferHandle dst, const void* host, size_t bytes) {
  m_runtime.buffer_copy(host, 0, dst, 0, bytes, VTA_MEMCPY_H2D);
}

void RuntimeSink::copy_out(BufferHandle src, void* host, size_t bytes) {
  m_runtime.buffer_copy(src, 0, host, 0, bytes, VTA_MEMCPY_D2H);
}

void RuntimeSink::load_2d(const Load2D& l) {
  m_runtime.load_buffer_2d(l.src, l.src_elem_offset, l.x_size, l.y_size, l.x_stride, l.x_pad_before,
                           l.y_pad_before, l.x_pad_after, l.y_pad_after, l.sram_index,
                           l.memory_type);
}

void RuntimeSink::store_2d(const Store2D& s) {
  m_runtime.store_buffer_2d(s.sram_index, s.memory_type, s.dst, s.dst_elem_offset, s.x_size,
                            s.y_size, s.x_stride);
}

void RuntimeSink::push_kernel(const MicroKernel& kernel, KernelCacheSlot& cache) {
  // A handle belongs to the runtime that filled it: one from another runtime starts over.
  if (cache.sink_runtime != m_runtime.id()) {
    cache.sink_handle = nullptr;
    cache.sink_runtime = m_runtime.id();
  }
  // nbytes 0: the handle alone identifies the kernel; the signature only carries it to finit.
  KernelToRecord signature{&m_runtime, &kernel};
  m_runtime.push_kernel_op(kernel.gemm ? 0 : 1, &cache.sink_handle, &record_kernel, &signature, 0);
}

void RuntimeSink::dep_push(Stage from, Stage to) {
  m_runtime.dep_push(from, to);
}

void RuntimeSink::dep_pop(Stage from, Stage to) {
  m_runtime.dep_pop(from, to);
}

void RuntimeSink::synchronize() {
  m_runtime.synchronize(m_session->max_cycles());
}

Stats RuntimeSink::stats() const {
  return m_runtime.stats();
}

void RuntimeSink::clear_stats() {
  m_runtime.clear_stats();
}

}  // namespace vta::compiler
