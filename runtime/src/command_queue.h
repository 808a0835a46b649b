// CommandQueue: the runtime's command queue behind VTATLSCommandHandle (upstream CommandQueue in
// vta/runtime/runtime.cc). Every API call appends instructions to one stream; VTASynchronize (or
// an automatic sync when the stream or the uop image would overflow its DRAM buffer) closes it
// with the final dependency syncs and FINISH, copies the stream and the uop image into their
// DRAM buffers and runs it on the device. Uop residency is forgotten after every run. The
// instruction stream itself is an InsnQueue, uop residency a UopCache (uop_kernel.h), and the
// debug dumps are written by program_dumps.h.
//
// Our addition: dependency tokens left in a queue at the end of a program (pushed but not
// popped) are drained by the final compute NOPs, so FINISH always waits for the last load and
// store, and re-created by NOPs at the start of the next program, so programs that pass tokens
// across a synchronisation keep working on backends whose token queues start empty.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "insn_queue.h"
#include "uop_kernel.h"
#include "vta/runtime_object.h"
#include "vta/sim/backend.h"
#include "vta/sim/hw_config.h"

namespace vta {

class DeviceMemory;

// Hooks owned by the runtime context; the queue reads them at each synchronisation.
struct SyncHooks {
  ProgramObserver observer;
  bool skip_execution = false;
  std::string dump_path;   // program image file, empty = off
  bool dma_bounds = true;  // check every LOAD/STORE against its buffer before a run (dma_bounds.h)
};

class CommandQueue {
 public:
  // `kernels`: the runtime's kernel maps behind the uop handles (they outlive the queue).
  CommandQueue(const HwConfig& cfg, DeviceMemory& mem, Backend& device, UopKernelMaps& kernels,
               const SyncHooks& hooks, size_t max_xfer);
  ~CommandQueue();
  CommandQueue(const CommandQueue&) = delete;
  CommandQueue& operator=(const CommandQueue&) = delete;

  void set_debug_flags(int flags) { m_debug = flags; }
  int debug_flags() const { return m_debug; }

  void load_buffer_2d(void* src, uint32_t src_elem_offset, uint32_t x_size, uint32_t y_size,
                      uint32_t x_stride, uint32_t x_pad_before, uint32_t y_pad_before,
                      uint32_t x_pad_after, uint32_t y_pad_after, uint32_t dst_sram_index,
                      uint32_t dst_memory_type);
  void store_buffer_2d(uint32_t src_sram_index, uint32_t src_memory_type, void* dst,
                       uint32_t dst_elem_offset, uint32_t x_size, uint32_t y_size,
                       uint32_t x_stride);

  // mode 0 = GEMM (VTAPushGEMMOp), 1 = ALU (VTAPushALUOp).
  void push_kernel_op(uint32_t mode, void** uop_handle, int (*finit)(void*), void* signature,
                      int nbytes);
  // Valid only while a kernel is being recorded (inside finit).
  UopKernel& recording(const char* who);

  void dep_push(int from, int to);
  void dep_pop(int from, int to);
  void synchronize(uint32_t wait_cycles);

  std::vector<Insn> pending_insns() const { return m_insns.decoded(); }
  const HwConfig& config() const { return m_cfg; }

 private:
  // Every API call except the uop recorders is refused inside a micro-op kernel's finit.
  void check_not_recording(const char* who) const;
  // DRAM element index of a 2D tile `elem_offset` elements past `buf`, after checking that `buf`
  // is aligned to the element size and the tile's rows lie in allocated DRAM (the load reads its
  // source, the store writes its destination).
  uint32_t tile_dram_base(const char* who, bool is_store, void* buf, uint32_t memory_type,
                          uint32_t elem_offset, uint32_t x_size, uint32_t y_size,
                          uint32_t x_stride) const;
  // Appends an instruction; queue errors are prefixed by the API call that caused them.
  void push_named(const char* who, const Insn& insn);
  // Counts one user call and syncs early when the instruction buffer is nearly full.
  void end_user_call();
  void check_insn_overflow();
  // Runs `finit` to record a new kernel of `mode` (0 = GEMM, 1 = ALU).
  std::unique_ptr<UopKernel> record_kernel(const char* who, uint32_t mode, int (*finit)(void*),
                                           void* signature);
  void load_uop(const UopPlacement& p);
  // Re-creates the tokens the previous program left (see the top of this file).
  void begin_program();
  void end_program();
  // Appends the final syncs (or the FORCE_SERIAL rewrite), checks the tokens, drains leftovers
  // and appends FINISH. Returns the tokens to carry into the next program.
  TokenCounts close_program(const char* who);
  // Copies the encoded stream and the uop image into their DRAM buffers.
  void copy_to_dram(const std::vector<InsnWords>& words);
  // The dumps asked for by the hooks and debug flags, in a fixed order.
  void dump_program();
  void run_program(const char* who, size_t insn_count, uint32_t wait_cycles);

  HwConfig m_cfg;
  DeviceMemory& m_mem;
  Backend& m_device;
  UopKernelMaps& m_kernels;
  const SyncHooks& m_hooks;
  size_t m_max_xfer;
  int m_debug = 0;
  InsnQueue m_insns;
  UopCache m_uops;
  void* m_insn_buf = nullptr;  // VTA_MAX_XFER bytes of DRAM for the instruction stream
  void* m_uop_buf = nullptr;   // VTA_MAX_XFER bytes of DRAM for the uop image
  uint32_t m_insn_phys = 0;
  uint32_t m_uop_phys = 0;
  UopKernel* m_recording = nullptr;
  size_t m_user_insns = 0;  // instructions appended by API calls since the last sync
  TokenCounts m_carry{};    // tokens to re-create at the start of the next program
  uint64_t m_programs = 0;  // programs synchronised by this queue (program image "%d")
};

}  // namespace vta
