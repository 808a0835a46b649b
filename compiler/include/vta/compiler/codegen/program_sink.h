// Where the code generator and the layer runner put a program: device buffers, 2D loads and
// stores, micro-op kernels, dependency tokens between the load, compute and store stages,
// synchronisation and the device's statistics. The calls mirror VTA's runtime API (the way
// TVM's lowered code drives it); the runtime adapter (src/runtime_sink.h) is the implementation
// that executes programs, and other sinks can record or inspect them.
#pragma once

#include <cstddef>
#include <cstdint>

#include "vta/compiler/codegen/micro_kernel.h"
#include "vta/sim/isa.h"
#include "vta/sim/stats.h"

namespace vta::compiler {

// A device buffer of a sink (opaque; for the runtime adapter a VTABufferAlloc handle).
using BufferHandle = void*;

// LOAD of a 2D window of `y_size` rows x `x_size` elements (row pitch `x_stride` elements) from
// element `src_elem_offset` of `src`, zero padded on each side, into SRAM `memory_type` at
// element `sram_index`.
struct Load2D {
  BufferHandle src = nullptr;
  uint32_t src_elem_offset = 0;
  uint32_t x_size = 0, y_size = 0, x_stride = 0;
  uint32_t x_pad_before = 0, y_pad_before = 0, x_pad_after = 0, y_pad_after = 0;
  uint32_t sram_index = 0;
  uint32_t memory_type = kMemInp;  // kMemInp, kMemWgt, kMemAcc or kMemAcc8
};

// STORE of `y_size` rows x `x_size` elements from SRAM `memory_type` at element `sram_index` to
// element `dst_elem_offset` of `dst` (row pitch `x_stride` elements).
struct Store2D {
  uint32_t sram_index = 0;
  uint32_t memory_type = kMemOut;
  BufferHandle dst = nullptr;
  uint32_t dst_elem_offset = 0;
  uint32_t x_size = 0, y_size = 0, x_stride = 0;
};

// What a sink keeps for one distinct micro-op kernel between its pushes (the runtime adapter
// keeps its micro-op cache handle here). The emitter owns one per kernel for as long as it
// pushes that kernel, so the sink records a kernel once and reuses it.
struct KernelCacheSlot {
  void* sink_handle = nullptr;
  uint64_t sink_runtime = 0;  // Runtime::id() of the runtime that filled sink_handle
};

class ProgramSink {
 public:
  virtual ~ProgramSink() = default;

  // Device memory. alloc throws vta::Error when the device has no room.
  virtual BufferHandle alloc(size_t bytes) = 0;
  virtual void free(BufferHandle buffer) = 0;
  virtual void copy_in(BufferHandle dst, const void* host, size_t bytes) = 0;
  virtual void copy_out(BufferHandle src, void* host, size_t bytes) = 0;

  virtual void load_2d(const Load2D& load) = 0;
  virtual void store_2d(const Store2D& store) = 0;
  // A GEMM (kernel.gemm) or ALU instruction running `kernel`; `cache` is this kernel's slot.
  virtual void push_kernel(const MicroKernel& kernel, KernelCacheSlot& cache) = 0;
  // Dependency tokens between the stages (kStageLoad, kStageCompute, kStageStore).
  virtual void dep_push(Stage from, Stage to) = 0;
  virtual void dep_pop(Stage from, Stage to) = 0;
  // Runs everything queued so far and waits for it.
  virtual void synchronize() = 0;

  // Statistics of everything the device ran since the last clear_stats().
  virtual Stats stats() const = 0;
  virtual void clear_stats() = 0;
};

}  // namespace vta::compiler
