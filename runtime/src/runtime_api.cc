// The runtime C API (runtime.h) over the command queue.
#include "vta/runtime.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "hw_spec_check.h"
#include "runtime_context.h"
#include "vta/sim/error.h"

using vta::c_api;
using vta::c_runtime;

namespace {

// The command queue behind a VTACommandHandle; a stale handle (after VTARuntimeShutdown) or a
// foreign pointer is an error rather than a crash.
void check_command(VTACommandHandle cmd, const char* who) {
  void* live = c_runtime().live_command_handle();
  if (cmd == nullptr || cmd != live) {
    throw vta::Error(
        fmt::format("{}: {} is not the live command handle (use "
                    "VTATLSCommandHandle())",
                    who, cmd));
  }
}

// The runtime a micro-op recorder call belongs to: the one recording a kernel on this thread,
// else the default instance (whose queue then reports a call outside finit).
vta::Runtime& recording_runtime() {
  vta::Runtime* rt = vta::Runtime::recording_on_this_thread();
  return rt != nullptr ? *rt : c_runtime();
}

}  // namespace

extern "C" {

// Buffer handles are the host pointers of their DRAM allocations, so VTABufferCPUPtr is the
// identity and VTALoadBuffer2D/VTAStoreBuffer2D also accept VTAMemAlloc pointers.
void* VTABufferAlloc(size_t size) {
  return c_api("VTABufferAlloc", [&] { return c_runtime().buffer_alloc(size); });
}

void VTABufferFree(void* buffer) {
  c_api("VTABufferFree", [&] { c_runtime().buffer_free(buffer, "VTABufferFree"); });
}

void VTABufferCopy(const void* from, size_t from_offset, void* to, size_t to_offset, size_t size,
                   int kind_mask) {
  c_api("VTABufferCopy", [&] {
    c_runtime().buffer_copy(from, from_offset, to, to_offset, size, kind_mask, "VTABufferCopy");
  });
}

VTACommandHandle VTATLSCommandHandle(void) {
  return c_api("VTATLSCommandHandle", [] { return c_runtime().command_handle(); });
}

void VTARuntimeShutdown(void) {
  c_api("VTARuntimeShutdown", [] { c_runtime().shutdown_queue(); });
}

void* VTABufferCPUPtr(VTACommandHandle cmd, void* buffer) {
  (void)cmd;
  return buffer;
}

void VTAWriteBarrier(VTACommandHandle cmd, void* buffer, uint32_t elem_bits, uint32_t start,
                     uint32_t extent) {
  (void)cmd;  // coherent memory: nothing to flush
  (void)buffer;
  (void)elem_bits;
  (void)start;
  (void)extent;
}

void VTAReadBarrier(VTACommandHandle cmd, void* buffer, uint32_t elem_bits, uint32_t start,
                    uint32_t extent) {
  (void)cmd;  // coherent memory: nothing to invalidate
  (void)buffer;
  (void)elem_bits;
  (void)start;
  (void)extent;
}

void VTASetDebugMode(VTACommandHandle cmd, int debug_flag) {
  c_api("VTASetDebugMode", [&] {
    check_command(cmd, "VTASetDebugMode");
    c_runtime().set_debug_mode(debug_flag);
  });
}

void VTALoadBuffer2D(VTACommandHandle cmd, void* src_dram_addr, uint32_t src_elem_offset,
                     uint32_t x_size, uint32_t y_size, uint32_t x_stride, uint32_t x_pad_before,
                     uint32_t y_pad_before, uint32_t x_pad_after, uint32_t y_pad_after,
                     uint32_t dst_sram_index, uint32_t dst_memory_type) {
  c_api("VTALoadBuffer2D", [&] {
    check_command(cmd, "VTALoadBuffer2D");
    c_runtime().load_buffer_2d(src_dram_addr, src_elem_offset, x_size, y_size, x_stride,
                               x_pad_before, y_pad_before, x_pad_after, y_pad_after, dst_sram_index,
                               dst_memory_type);
  });
}

void VTAStoreBuffer2D(VTACommandHandle cmd, uint32_t src_sram_index, uint32_t src_memory_type,
                      void* dst_dram_addr, uint32_t dst_elem_offset, uint32_t x_size,
                      uint32_t y_size, uint32_t x_stride) {
  c_api("VTAStoreBuffer2D", [&] {
    check_command(cmd, "VTAStoreBuffer2D");
    c_runtime().store_buffer_2d(src_sram_index, src_memory_type, dst_dram_addr, dst_elem_offset,
                                x_size, y_size, x_stride);
  });
}

void VTAUopPush(uint32_t mode, uint32_t reset_out, uint32_t dst_index, uint32_t src_index,
                uint32_t wgt_index, uint32_t opcode, uint32_t use_imm, int32_t imm_val) {
  vta::Runtime& rt = recording_runtime();
  c_api(rt, "VTAUopPush", [&] {
    rt.uop_push(mode, reset_out, dst_index, src_index, wgt_index, opcode, use_imm, imm_val);
  });
}

void VTAUopLoopBegin(uint32_t extent, uint32_t dst_factor, uint32_t src_factor,
                     uint32_t wgt_factor) {
  vta::Runtime& rt = recording_runtime();
  c_api(rt, "VTAUopLoopBegin",
        [&] { rt.uop_loop_begin(extent, dst_factor, src_factor, wgt_factor); });
}

void VTAUopLoopEnd(void) {
  vta::Runtime& rt = recording_runtime();
  c_api(rt, "VTAUopLoopEnd", [&] { rt.uop_loop_end(); });
}

int VTAPushGEMMOp(void** uop_handle, int (*finit)(void*), void* signature, int nbytes) {
  return c_api("VTAPushGEMMOp", [&] {
    c_runtime().push_kernel_op(0, uop_handle, finit, signature, nbytes);
    return 0;
  });
}

int VTAPushALUOp(void** uop_handle, int (*finit)(void*), void* signature, int nbytes) {
  return c_api("VTAPushALUOp", [&] {
    c_runtime().push_kernel_op(1, uop_handle, finit, signature, nbytes);
    return 0;
  });
}

int VTADepPush(VTACommandHandle cmd, int from_qid, int to_qid) {
  return c_api("VTADepPush", [&] {
    check_command(cmd, "VTADepPush");
    c_runtime().dep_push(from_qid, to_qid);
    return 0;
  });
}

int VTADepPop(VTACommandHandle cmd, int from_qid, int to_qid) {
  return c_api("VTADepPop", [&] {
    check_command(cmd, "VTADepPop");
    c_runtime().dep_pop(from_qid, to_qid);
    return 0;
  });
}

void VTASynchronize(VTACommandHandle cmd, uint32_t wait_cycles) {
  c_api("VTASynchronize", [&] {
    check_command(cmd, "VTASynchronize");
    vta::check_declared_hw_spec(c_runtime().config());
    c_runtime().synchronize(wait_cycles);
  });
}

const char* VTASimProfilerStatus(void) {
  return c_api("VTASimProfilerStatus", [] { return c_runtime().profiler_status(); });
}

void VTASimProfilerClear(void) {
  c_api("VTASimProfilerClear", [] { c_runtime().clear_stats(); });
}

}  // extern "C"
