// The passes of the network pipeline, in pipeline order (pass_manager.h); each in its own file
// compiler/src/passes/<name>_pass.cc with its test in tests/compiler/test_passes.cc.
#pragma once

#include <memory>

#include "vta/compiler/passes/pass_manager.h"

namespace vta::compiler {

// import: reads the source into the module: the built-in resnet18 or a network JSON file (an
// int8 network), or MODEL.onnx (its float graph, BatchNormalization folded by the importer).
std::unique_ptr<Pass> make_import_pass();
// quantize: a float graph becomes the int8 network (power-of-two scales from calibration, the
// activations and residual adds fused into their layers); an int8 network is left as it is.
std::unique_ptr<Pass> make_quantize_pass();
// infer-types: every value's type from the operator table's shape inference (int8, NCHW, the
// quantization exponent of a quantized model's tensor).
std::unique_ptr<Pass> make_infer_types_pass();
// place: every op on VTA or the host, as its operator's entry decides.
std::unique_ptr<Pass> make_place_pass();
// schedule: the automatic scheduler's tiling for each VTA op without its own (none when the
// runner tunes; a layer no schedule fits is left to the runner, which reports it).
std::unique_ptr<Pass> make_schedule_pass();
// pack-layout: the blocked layout each VTA op's operands take (BATCH and BLOCK of the target,
// channels padded to whole blocks; a kernel fold of the schedule counted).
std::unique_ptr<Pass> make_pack_layout_pass();
// lower: each scheduled VTA op's program (its loads, kernels, dependency tokens and stores) as
// the code generator makes it, recorded without running; the IR counts it per op.
std::unique_ptr<Pass> make_lower_pass();

}  // namespace vta::compiler
