// The lowered program of one layer: the runtime calls the code generator makes for it,
// recorded without running them, and printed as a loop nest in the manner of the lowered
// program of upstream's conv2d tutorial (`vtasim conv2d|matmul --print-lowered`).
#pragma once

#include <memory>
#include <string>

#include "vta/compiler/codegen/recording_sink.h"
#include "vta/compiler/scheduling/schedule.h"
#include "vta/compiler/scheduling/workload.h"

namespace vta::compiler {

// The calls of the layer under the schedule (checked by TilePlan::make), in buffers named as
// the tutorial names them: data (input, NCHWnc), kernel (weights, OIHWoi), res (output), then
// bias, residual and zeros when the layer has them.
std::unique_ptr<RecordingSink> lower_conv2d(const HwConfig& cfg, const Conv2dParams& p,
                                            const Epilogue& e, const ConvSchedule& s);

// What the program does, counted: "load 96, gemm 128, alu 12, store 4, tokens 64, kernels 5,
// uops 1234" (instructions by kind; dependency token pushes; distinct micro-op kernels and
// their micro-ops).
std::string lowered_summary(const RecordingSink& sink);

// A legend of the call arguments, the buffers, each distinct micro-op kernel once (its
// VTAUopLoopBegin / VTAUopPush / VTAUopLoopEnd calls), then the program with repeated calls
// folded into `for (iN, 0, extent)` loops.
std::string format_lowered(const RecordingSink& sink);
// "// lowered program of NAME: SHAPE, epilogue E, schedule S, config C" and a newline.
std::string lowered_header(const std::string& name, const std::string& shape, const Epilogue& e,
                           const ConvSchedule& s, const HwConfig& cfg);

}  // namespace vta::compiler
