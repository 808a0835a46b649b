// Code generation: turns a TilePlan into runtime API calls (VTALoadBuffer2D, VTAPushGEMMOp /
// VTAPushALUOp with recorded micro-op kernels, VTADepPush/Pop, VTAStoreBuffer2D), the way TVM's
// lowered VTA code drives the runtime.
//
// Pipeline: step s = (output tile j, input-channel chunk c). Input and weight tiles of step s
// live in SRAM slot s % T, the accumulators of tile j in slot j % T (T = virtual threads).
//   load   : [pop g2l if s >= T] LOAD INP (one per channel block) + LOAD WGT   -> push l2g
//   compute: first chunk: [pop s2g if j >= T] GEMM reset, LOAD ACC bias, LOAD ACC_8BIT residual
//            pop l2g, GEMM (accumulate)                                          -> push g2l
//            last chunk: ALU epilogue                                            -> push g2s
//   store  : pop g2s, STORE (one per output-channel block)                       -> push s2g
// and the tokens left at the end are drained so every run ends balanced.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "vta/compiler/micro_kernel.h"
#include "vta/compiler/schedule.h"

namespace vta::compiler {

// Device buffers (VTABufferAlloc handles) of one convolution in the blocked layouts.
struct ConvBuffers {
  void* inp = nullptr;       // NCHWnc int8
  void* wgt = nullptr;       // OIHWoi int8
  void* out = nullptr;       // NCHWnc int8
  void* bias = nullptr;      // [K/BO][B][BO] int32 (if the epilogue has a bias)
  void* residual = nullptr;  // NCHWnc int8 of the output's shape (if it has a residual)
  void* zeros = nullptr;     // zero_bytes() of zeros (if zero_bytes() > 0)
};

class ConvCodegen {
 public:
  ConvCodegen(const TilePlan& plan, const HwConfig& cfg);
  ConvCodegen(const ConvCodegen&) = delete;
  ConvCodegen& operator=(const ConvCodegen&) = delete;

  // Appends the layer to the runtime's command queue (no VTASynchronize).
  void emit(const ConvBuffers& buffers);
  // Bytes of the all-zero buffer needed for input windows that lie entirely in the padding.
  size_t zero_bytes() const { return m_zero_elems * size_t(m_cfg.inp_elem_bytes); }
  const TilePlan& plan() const { return m_plan; }
  // Distinct micro-op kernels recorded so far and their total size.
  size_t kernel_count() const { return m_kernels.size(); }
  size_t kernel_uops() const;

 private:
  struct KernelSlot {
    MicroKernel kernel;
    void* handle = nullptr;  // the runtime's per-kernel cache handle
  };
  KernelSlot& kernel(const std::string& key, const std::function<MicroKernel()>& build);
  void push_kernel(KernelSlot& k);

  TilePlan m_plan;
  HwConfig m_cfg;
  size_t m_zero_elems = 0;
  std::map<std::string, std::unique_ptr<KernelSlot>> m_kernels;
  std::map<std::string, std::vector<KernelSlot*>> m_steps;  // GEMM kernels of each step shape
};

}  // namespace vta::compiler
