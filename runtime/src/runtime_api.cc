// The runtime C API (runtime.h) over the command queue.
#include "vta/runtime.h"

#include <cstring>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "runtime_context.h"
#include "vta/sim/error.h"

using vta::c_api;

namespace {

// The command queue behind a VTACommandHandle; a stale handle (after VTARuntimeShutdown) or a
// foreign pointer is an error rather than a crash.
vta::CommandQueue& queue_of(VTACommandHandle cmd, const char* who) {
  vta::CommandQueue* q = vta::current_command_queue();
  if (cmd == nullptr || cmd != static_cast<void*>(q)) {
    throw vta::Error(
        fmt::format("{}: {} is not the live command handle (use "
                    "VTATLSCommandHandle())",
                    who, cmd));
  }
  return *q;
}

}  // namespace

extern "C" {

// Buffer handles are the host pointers of their DRAM allocations, so VTABufferCPUPtr is the
// identity and VTALoadBuffer2D/VTAStoreBuffer2D also accept VTAMemAlloc pointers.
void* VTABufferAlloc(size_t size) {
  return c_api("VTABufferAlloc", [&] { return vta::device_memory().alloc(size); });
}

void VTABufferFree(void* buffer) {
  c_api("VTABufferFree", [&] { vta::device_memory().free(buffer, "VTABufferFree"); });
}

void VTABufferCopy(const void* from, size_t from_offset, void* to, size_t to_offset, size_t size,
                   int kind_mask) {
  c_api("VTABufferCopy", [&] {
    if (kind_mask < 0 || kind_mask > 3) {
      throw vta::Error(
          fmt::format("kind_mask {} (1 = to device, 2 = from device, 3 = both)", kind_mask));
    }
    using vta::DeviceMemory;
    const uint8_t* src =
        DeviceMemory::host_range(from, from_offset, size, "VTABufferCopy", "source");
    auto* dst = const_cast<uint8_t*>(
        DeviceMemory::host_range(to, to_offset, size, "VTABufferCopy", "destination"));
    if (kind_mask & 2) {
      vta::device_memory().check_range(src, size, "VTABufferCopy", "source");
    }
    if (kind_mask & 1) {
      vta::device_memory().check_range(dst, size, "VTABufferCopy", "destination");
    }
    if (size > 0) {
      std::memmove(dst, src, size);
    }
  });
}

VTACommandHandle VTATLSCommandHandle(void) {
  return c_api("VTATLSCommandHandle",
               [] { return static_cast<VTACommandHandle>(&vta::command_queue()); });
}

void VTARuntimeShutdown(void) {
  c_api("VTARuntimeShutdown", [] { vta::destroy_command_queue(); });
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
  c_api("VTASetDebugMode", [&] { queue_of(cmd, "VTASetDebugMode").set_debug_flags(debug_flag); });
}

void VTALoadBuffer2D(VTACommandHandle cmd, void* src_dram_addr, uint32_t src_elem_offset,
                     uint32_t x_size, uint32_t y_size, uint32_t x_stride, uint32_t x_pad_before,
                     uint32_t y_pad_before, uint32_t x_pad_after, uint32_t y_pad_after,
                     uint32_t dst_sram_index, uint32_t dst_memory_type) {
  c_api("VTALoadBuffer2D", [&] {
    queue_of(cmd, "VTALoadBuffer2D")
        .load_buffer_2d(src_dram_addr, src_elem_offset, x_size, y_size, x_stride, x_pad_before,
                        y_pad_before, x_pad_after, y_pad_after, dst_sram_index, dst_memory_type);
  });
}

void VTAStoreBuffer2D(VTACommandHandle cmd, uint32_t src_sram_index, uint32_t src_memory_type,
                      void* dst_dram_addr, uint32_t dst_elem_offset, uint32_t x_size,
                      uint32_t y_size, uint32_t x_stride) {
  c_api("VTAStoreBuffer2D", [&] {
    queue_of(cmd, "VTAStoreBuffer2D")
        .store_buffer_2d(src_sram_index, src_memory_type, dst_dram_addr, dst_elem_offset, x_size,
                         y_size, x_stride);
  });
}

void VTAUopPush(uint32_t mode, uint32_t reset_out, uint32_t dst_index, uint32_t src_index,
                uint32_t wgt_index, uint32_t opcode, uint32_t use_imm, int32_t imm_val) {
  c_api("VTAUopPush", [&] {
    vta::command_queue()
        .recording("VTAUopPush")
        .push(mode, reset_out, dst_index, src_index, wgt_index, opcode, use_imm, imm_val);
  });
}

void VTAUopLoopBegin(uint32_t extent, uint32_t dst_factor, uint32_t src_factor,
                     uint32_t wgt_factor) {
  c_api("VTAUopLoopBegin", [&] {
    vta::command_queue()
        .recording("VTAUopLoopBegin")
        .loop_begin(vta::UopLoop{extent, dst_factor, src_factor, wgt_factor});
  });
}

void VTAUopLoopEnd(void) {
  c_api("VTAUopLoopEnd", [] { vta::command_queue().recording("VTAUopLoopEnd").loop_end(); });
}

int VTAPushGEMMOp(void** uop_handle, int (*finit)(void*), void* signature, int nbytes) {
  return c_api("VTAPushGEMMOp", [&] {
    vta::command_queue().push_kernel_op(0, uop_handle, finit, signature, nbytes);
    return 0;
  });
}

int VTAPushALUOp(void** uop_handle, int (*finit)(void*), void* signature, int nbytes) {
  return c_api("VTAPushALUOp", [&] {
    vta::command_queue().push_kernel_op(1, uop_handle, finit, signature, nbytes);
    return 0;
  });
}

int VTADepPush(VTACommandHandle cmd, int from_qid, int to_qid) {
  return c_api("VTADepPush", [&] {
    queue_of(cmd, "VTADepPush").dep_push(from_qid, to_qid);
    return 0;
  });
}

int VTADepPop(VTACommandHandle cmd, int from_qid, int to_qid) {
  return c_api("VTADepPop", [&] {
    queue_of(cmd, "VTADepPop").dep_pop(from_qid, to_qid);
    return 0;
  });
}

void VTASynchronize(VTACommandHandle cmd, uint32_t wait_cycles) {
  c_api("VTASynchronize", [&] { queue_of(cmd, "VTASynchronize").synchronize(wait_cycles); });
}

const char* VTASimProfilerStatus(void) {
  return c_api("VTASimProfilerStatus", [] {
    std::string& buf = vta::profiler_status_buffer();
    buf = vta::runtime_stats().to_json().dump();
    return buf.c_str();
  });
}

void VTASimProfilerClear(void) {
  c_api("VTASimProfilerClear", [] { vta::runtime_clear_stats(); });
}

}  // extern "C"
