// vta::Runtime: one VTA runtime as an object. It owns a simulated DRAM with its device memory
// (the allocations and their exact sizes), a device (backend + hardware config), a command
// queue, the micro-op kernels recorded through its handles, the hooks on synchronised programs
// and the error policy of the C calls that reach it.
//
// The upstream C API (vta/runtime.h, vta/driver.h) is a thin layer over one default instance,
// Runtime::default_instance(); C++ code (the compiler, tests, the Python module) creates its own
// instances and calls their methods, which always throw vta::Error on failure.
//
// Threads: one runtime is driven by one thread at a time (as upstream's). Different runtimes
// are independent and may run on different threads at the same time: fsim runs concurrently;
// the cycle and rtl backends simulate in SystemC, whose kernel is process-wide, so their runs
// take turns (the backend holds the process's SystemC lock for each run) and give the same
// results as alone.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "vta/sim/backend.h"
#include "vta/sim/dram.h"
#include "vta/sim/hw_config.h"
#include "vta/sim/isa.h"
#include "vta/sim/stats.h"

namespace vta {

class CommandQueue;

// What a C entry point does with an error of the runtime it reached.
enum class ErrorMode {
  kExit,   // print "vta: error: <msg>" to stderr and call exit(1) (the default instance's)
  kThrow,  // rethrow the vta::Error to the caller (C++ callers only; created instances)
};

// One synchronised program, as handed to the device.
struct SyncedProgram {
  std::vector<InsnWords> insns;  // encoded instructions, the last one is FINISH
  std::vector<uint32_t> uops;    // encoded micro-op image (the uop DRAM buffer contents)
  uint32_t insn_phys = 0;        // physical address of the instruction buffer
  uint32_t uop_phys = 0;         // physical address of the uop buffer
  bool executed = false;         // false when VTA_DEBUG_LOG_INSN (or skip_execution) was set
};
using ProgramObserver = std::function<void(const SyncedProgram&)>;

class Runtime {
 public:
  // A runtime for `backend_name` ("fsim", "cycle", "rtl") and `cfg`. The device is created on
  // first use; an unknown backend is a ConfigError then. C calls that reach it throw. Like the
  // default instance it reads $VTA_DMA_BOUNDS and $VTA_DUMP_PROGRAM when created.
  Runtime(std::string backend_name, HwConfig cfg);
  ~Runtime();
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  // The instance behind the C API: backend and config from $VTA_BACKEND / $VTA_CONFIG on first
  // use (unless configure() chose them), ErrorMode::kExit. Never destroyed (its buffers may be
  // freed by static destructors); its device and queue are closed at exit.
  static Runtime& default_instance();
  // The runtime whose micro-op kernel is being recorded on this thread (inside a finit), or
  // null: VTAUopPush / VTAUopLoopBegin / VTAUopLoopEnd go to it.
  static Runtime* recording_on_this_thread();

  // A number unique in the process, never reused (to tell runtimes apart after one is gone).
  uint64_t id() const;

  // ---- Device and configuration ----
  // Chooses another backend and config: destroys the device and command queue (pending
  // instructions dropped, statistics cleared); DRAM allocations survive. Throws ConfigError for
  // an unknown backend (nothing is changed then).
  void configure(const std::string& backend_name, const HwConfig& cfg);
  const HwConfig& config();
  const std::string& backend_name();
  Dram& dram();
  Backend& backend();  // created on first use
  const Stats& stats();
  void clear_stats();
  // Destroys the command queue and the device; the next call recreates them. Recorded
  // micro-op kernels are kept.
  void reset();

  // ---- Error policy of the C entry points that reach this runtime ----
  void set_error_mode(ErrorMode mode);
  ErrorMode error_mode() const;

  // ---- Device memory bounds ----
  // When on (the default, unless $VTA_DMA_BOUNDS=off), every LOAD / STORE a synchronised
  // program makes must stay inside the buffer it starts in and must not touch freed memory; a
  // violation is a ProgramError naming the instruction, the buffer and the bytes. Off: only
  // accesses outside all allocated DRAM are errors (for programs that address one region
  // across several allocations on purpose).
  void set_dma_bounds_check(bool on);
  bool dma_bounds_check() const;

  // ---- Hooks on synchronised programs ----
  void set_program_observer(ProgramObserver observer);  // nullptr removes it
  void set_skip_execution(bool skip);
  void set_program_dump(const std::string& path);  // program image per program; "" = off
  void set_max_xfer(size_t bytes);                 // from the next command queue
  std::vector<Insn> pending_insns() const;

  // ---- Buffers (VTABufferAlloc / VTAMemAlloc, VTABufferCopy, ...) ----
  void* buffer_alloc(size_t bytes, const char* who = "VTABufferAlloc");
  void buffer_free(void* buffer, const char* who = "VTABufferFree");
  // kind_mask bit 0: `to` is device memory, bit 1: `from` is (upstream's VTA_MEMCPY_*).
  void buffer_copy(const void* from, size_t from_offset, void* to, size_t to_offset, size_t size,
                   int kind_mask, const char* who = "VTABufferCopy");
  uint32_t phys_addr(const void* buffer, const char* who = "VTAMemGetPhyAddr");

  // ---- Command queue (the calls of vta/runtime.h; each creates the queue if none) ----
  void* command_handle();             // VTATLSCommandHandle
  void* live_command_handle() const;  // null when no queue exists
  void shutdown_queue();              // VTARuntimeShutdown
  void set_debug_mode(int flags);
  void load_buffer_2d(void* src, uint32_t src_elem_offset, uint32_t x_size, uint32_t y_size,
                      uint32_t x_stride, uint32_t x_pad_before, uint32_t y_pad_before,
                      uint32_t x_pad_after, uint32_t y_pad_after, uint32_t dst_sram_index,
                      uint32_t dst_memory_type);
  void store_buffer_2d(uint32_t src_sram_index, uint32_t src_memory_type, void* dst,
                       uint32_t dst_elem_offset, uint32_t x_size, uint32_t y_size,
                       uint32_t x_stride);
  // mode 0 = GEMM (VTAPushGEMMOp), 1 = ALU (VTAPushALUOp). `*uop_handle` belongs to this
  // runtime once filled.
  void push_kernel_op(uint32_t mode, void** uop_handle, int (*finit)(void*), void* signature,
                      int nbytes);
  void uop_loop_begin(uint32_t extent, uint32_t dst_factor, uint32_t src_factor,
                      uint32_t wgt_factor);
  void uop_push(uint32_t mode, uint32_t reset_out, uint32_t dst_index, uint32_t src_index,
                uint32_t wgt_index, uint32_t opcode, uint32_t use_imm, int32_t imm_val);
  void uop_loop_end();
  void dep_push(int from_qid, int to_qid);
  void dep_pop(int from_qid, int to_qid);
  void synchronize(uint32_t wait_cycles);

  // ---- Driver (vta/driver.h) ----
  // With CORES (docs/multicore.md, vta/system.h): core 0 first, then 1, 2, ...
  void* device_alloc();
  void* device_alloc_core(int core);  // VTADeviceAllocCore
  int device_core(void* handle) const;
  void device_free(void* handle);
  void check_device_handle(void* handle, const char* who) const;
  // Runs `insn_count` instructions at `insn_phys` on the device; true on a timeout.
  bool device_run(void* handle, uint32_t insn_phys, uint32_t insn_count, uint32_t wait_cycles);
  // The device of core `core`: the backend itself without CORES, else that core of it.
  Backend& core_device(int core);
  // ---- Several cores (vta/system.h) ----
  void set_command_core(int core);  // VTACommandCore
  int command_core() const;
  void system_begin();                    // VTASystemBegin
  bool system_run(uint32_t wait_cycles);  // VTASystemRun: true on a timeout
  // Replicated runs (a throughput measurement): every program run on core 0 alone (a
  // VTASynchronize, a VTADeviceRun of a core-0 handle) runs on every core of the system at once,
  // the same instruction stream started in the same cycle, so the system does N copies of the
  // work. Needs CORES with identical cores (the stream is encoded for core 0's config); throws
  // Error naming the first core that differs.
  void set_replicated_run(bool on);
  // VTASimProfilerStatus: the statistics as JSON, valid until the next call.
  const char* profiler_status();

 private:
  struct Impl;
  struct FromEnvironment {};
  explicit Runtime(FromEnvironment);
  CommandQueue& queue();
  // Throws Error naming `who` unless 0 <= core < the config's cores.
  void check_core(int core, const char* who);
  std::unique_ptr<Impl> m;
};

}  // namespace vta
