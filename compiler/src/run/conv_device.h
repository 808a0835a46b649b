// The device side of a convolution run, shared by the runs of one layer (layer_runner.cc)
// and of several layers per core (core_programs.cc): device buffers, the blocked DRAM images
// of a layer's tensors, the matmul-as-convolution mapping, the checks against the reference and
// a run of several cores (system_run_scope.h).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "run/packed_conv_run.h"
#include "run/system_run_scope.h"
#include "vta/compiler/codegen/conv_codegen.h"
#include "vta/compiler/codegen/program_sink.h"
#include "vta/compiler/run/layer_runner.h"
#include "vta/compiler/run/layer_widths.h"
#include "vta/runtime_object.h"
#include "vta/sim/backend.h"

namespace vta::compiler {

// A device buffer of a sink, owned for the duration of one run.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(ProgramSink& sink, size_t bytes) : m_sink(&sink), m_bytes(bytes) {
    if (bytes) {
      m_handle = sink.alloc(bytes);
    }
  }
  template <typename T>
  static DeviceBuffer from(ProgramSink& sink, const std::vector<T>& host) {
    DeviceBuffer b(sink, host.size() * sizeof(T));
    if (b.m_handle) {
      sink.copy_in(b.m_handle, host.data(), b.m_bytes);
    }
    return b;
  }
  DeviceBuffer(DeviceBuffer&& o) noexcept
      : m_sink(o.m_sink), m_handle(o.m_handle), m_bytes(o.m_bytes) {
    o.m_handle = nullptr;
  }
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    std::swap(m_sink, o.m_sink);
    std::swap(m_handle, o.m_handle);
    std::swap(m_bytes, o.m_bytes);
    return *this;
  }
  ~DeviceBuffer() {
    if (m_handle) {
      m_sink->free(m_handle);
    }
  }
  BufferHandle get() const { return m_handle; }
  size_t bytes() const { return m_bytes; }
  template <typename T>
  std::vector<T> read() const {
    std::vector<T> host(m_bytes / sizeof(T));
    m_sink->copy_out(m_handle, host.data(), m_bytes);
    return host;
  }

 private:
  ProgramSink* m_sink = nullptr;
  BufferHandle m_handle = nullptr;
  size_t m_bytes = 0;
};

// The device copies of a convolution's tensors, in the blocked layouts.
struct ConvDeviceTensors {
  DeviceBuffer inp, wgt, out, bias, residual, zeros, shifts;
  ConvBuffers buffers() const {
    return ConvBuffers{inp.get(),      wgt.get(),   out.get(),   bias.get(),
                       residual.get(), zeros.get(), shifts.get()};
  }
};

// The bytes of a convolution's blocked output buffer.
size_t conv_output_bytes(const BlockedConv& g, const HwConfig& cfg);

// The layer's tensors on the device; without `with_output` the output buffer is left to the
// caller (a buffer later layers load).
ConvDeviceTensors upload(ProgramSink& sink, const TilePlan& plan, const HwConfig& cfg,
                         const PackedConv& packed, size_t zero_bytes, bool with_output = true);

// The DRAM images of int8_t-held lanes (1..8 bits) at the config's widths: activations and
// weights blocked and lane-packed (the identity at 8 bits), bias and per-channel shifts as
// accumulator lanes (one ACC element per channel block), residuals one byte a lane (ACC_8BIT).
PackedConv pack_conv(const TilePlan& plan, const HwConfig& cfg, const ConvData& data);

void check_conv_data(const Conv2dParams& p, const Epilogue& e, const ConvData& data);

// The bound of convolution `p` (as written) run as `plan`: with a kernel fold, the smaller
// minimum of bytes of the layer as written and the folded one.
LayerBound conv_bound(const Conv2dParams& p, const TilePlan& plan, const HwConfig& cfg);

// The run's description and the figures that follow from the plan alone. `p` is the layer as
// written; the plan's layer differs from it when the schedule folds the kernel window.
LayerRun describe_conv_run(const Target& target, const Conv2dParams& p, const TilePlan& plan);

// The data of the layer the plan computes: with a fold, the folded input and weights.
ConvData planned_data(const Conv2dParams& p, const ConvSchedule& s, const ConvData& data);

// The output of a convolution `p` (epilogue at the config's widths) against its reference.
void check_conv_output(LayerRun& r, const Conv2dParams& p, const Epilogue& e, const ConvData& data,
                       const LayerWidths& widths);

// The output of a matmul (`e` as written; r.epilogue at the config's widths) against its
// reference.
void check_matmul_output(LayerRun& r, const MatmulParams& p, const Epilogue& e,
                         const MatmulData& data, const LayerWidths& widths);

// A and B of a matmul as the input and weights of its convolution: row m of A is lane
// m % BATCH of column m / BATCH.
ConvData matmul_conv_data(const MatmulParams& p, const Conv2dParams& c, const MatmulData& data);

// Throws Error for a matmul whose operands do not match its shape or that asks for a residual.
void check_matmul_data(const MatmulParams& p, const Epilogue& e, const MatmulData& data);

// The convolution's output back as C (M x N).
std::vector<int8_t> matmul_output(const MatmulParams& p, const Conv2dParams& c,
                                  const std::vector<int8_t>& conv_out);

}  // namespace vta::compiler
