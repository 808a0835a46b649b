// Programs of several layers per core, all cores started together in one run of several cores
// (VTASystemBegin ... VTASystemRun), with the layers' tensors resident in DRAM: a layer may load
// its input or residual from the device buffer an earlier layer stored (in this run or an earlier
// one) instead of an upload from the host, and every layer's output stays on the device for the
// layers after it. Within a core's program, a barrier between consecutive layers makes the next
// layer's loads wait for the last store of the layer before (emit_layer_barrier). The pipeline
// split (pipeline_split.h) runs its steps with it.
#pragma once

#include <memory>
#include <vector>

#include "run/conv_device.h"
#include "vta/compiler/codegen/program_sink.h"
#include "vta/compiler/run/layer_runner.h"

namespace vta::compiler {

// One layer of a core's program: a convolution, or a matmul (`matmul` set) as its convolution.
struct CoreLayerWork {
  bool matmul = false;
  Conv2dParams conv;  // the convolution (unused for a matmul)
  MatmulParams mm;    // the matmul
  Epilogue e;
  ConvSchedule s;
  ConvData conv_data;  // conv_data.x / .residual: any values of the right size when on the device
  MatmulData mm_data;
  // Outputs of earlier layers this layer loads in place of uploading conv_data.x and
  // conv_data.residual (null: upload). Only where output_loads_as_input / _as_residual allow.
  std::shared_ptr<DeviceBuffer> input_on_device, residual_on_device;
  // The buffer its output goes to (null: a new one), so that later layers of the same run can
  // load it (alloc_conv_output).
  std::shared_ptr<DeviceBuffer> output;
};

// A buffer for the blocked output of convolution `p` on `cfg`.
std::shared_ptr<DeviceBuffer> alloc_conv_output(ProgramSink& sink, const Conv2dParams& p,
                                                const HwConfig& cfg);

// Whether a convolution's output buffer, as stored, is the blocked input image of a convolution
// with schedule `consumer` on `cfg`: the same channel blocks (BLOCK_IN = BLOCK_OUT), the same
// lane width (INP = OUT), and no folded kernel window (which loads a re-laid input).
bool output_loads_as_input(const HwConfig& cfg, const ConvSchedule& consumer);
// Whether a convolution's output buffer is the residual image of a later convolution of its
// shape: residuals are loaded one byte a lane, so when outputs are 8-bit lanes.
bool output_loads_as_residual(const HwConfig& cfg);

// The barrier between two layers of one core's program: the store unit passes a token to the
// compute unit after its last store, the compute unit one to the load unit, whose next load
// therefore starts after every store of the layers before it.
void emit_layer_barrier(ProgramSink& sink);

// A layer's run in a program of several: its description, counters of the plan, the output read
// back (LayerRun::out, unchecked; stats empty: a core's counters cover its whole program) and
// its output buffer (CoreLayerWork::output or a new one), left on the device.
struct CoreLayerResult {
  LayerRun run;
  std::shared_ptr<DeviceBuffer> output;
};

// Runs programs[k] (the layers in order; empty: core k idles) on core k, all cores started
// together. `sink` must outlive the outputs. Returns the results per core and layer; `system`
// gets the run's counters as one layer's (system.cycles, coreK.cycles, every core's counts).
std::vector<std::vector<CoreLayerResult>> run_core_programs(
    const Target& target, ProgramSink& sink,
    const std::vector<std::vector<const CoreLayerWork*>>& programs, Stats& system);

// Compares a result with the layer's reference, computed from the work's data (whose input and
// residual must by then hold the values the device loaded).
void check_core_layer(const Target& target, const CoreLayerWork& w, LayerRun& run);

}  // namespace vta::compiler
