// conv2d and matmul layers whose input or weight lanes are wider than 8 bits (int16, int32; or
// mixed with narrower ones): the same compilation and run as layer_runner.h with the lanes held
// in int32_t, checked bit for bit against the width reference (width_reference.h). A residual
// epilogue is refused: LOAD ACC_8BIT reads one int8 byte per accumulator lane.
#pragma once

#include <cstdint>
#include <vector>

#include "vta/compiler/run/layer_runner.h"

namespace vta::compiler {

struct WideConvData {
  std::vector<int32_t> x;     // N*C*H*W, values of INP_WIDTH-bit lanes
  std::vector<int32_t> w;     // K*C*KH*KW, values of WGT_WIDTH-bit lanes
  std::vector<int32_t> bias;  // K (if the epilogue has a bias)
};
struct WideMatmulData {
  std::vector<int32_t> a, b, bias;  // M*K, K*N, N
};
// Uniform values over each lane's range, bias in [-2^14, 2^14), from a seed.
WideConvData random_wide_conv_data(const Conv2dParams& p, const Epilogue& e, uint64_t seed,
                                   const HwConfig& cfg);
WideMatmulData random_wide_matmul_data(const MatmulParams& p, const Epilogue& e, uint64_t seed,
                                       const HwConfig& cfg);

// The run (LayerRun::out empty) and its output lanes in the user's layout.
struct WideLayerRun {
  LayerRun run;
  std::vector<int32_t> out;
};
// Whether a config's layers take this path (an input or weight lane wider than 8 bits).
bool needs_wide_lanes(const HwConfig& cfg);
// As run_conv2d / run_matmul; throws vta::Error for a residual epilogue, a value outside its
// lane, or a shape mismatch.
WideLayerRun run_conv2d_wide(const Target& target, const Conv2dParams& p, const Epilogue& e,
                             const ConvSchedule& s, const WideConvData& data, bool check);
WideLayerRun run_matmul_wide(const Target& target, const MatmulParams& p, const Epilogue& e,
                             const ConvSchedule& s, const WideMatmulData& data, bool check);

}  // namespace vta::compiler
