// The element widths of a config as the compiler's paths see them (docs/element_widths.md), and
// the compiler's width checks: single conv2d / matmul layers run at every legal width (lanes of
// 1 to 8 bits in the int8_t vectors of ConvData / MatmulData / LayerRun, wider ones through
// wide_layer_runner.h) with int16 or int32 accumulators; the network path (ONNX import,
// quantization, host operators) is int8 x int8 -> int32 for now.
#pragma once

#include <cstdint>
#include <string>

#include "vta/compiler/references/width_reference.h"
#include "vta/compiler/run/layer_runner.h"
#include "vta/sim/hw_config.h"

namespace vta::compiler {

struct LayerWidths {
  int inp = 8, wgt = 8, acc = 32, out = 8;  // bits per lane
  static LayerWidths of(const HwConfig& cfg);
  // int8 inputs and weights, int32 accumulators: the widths of every upstream preset.
  bool is_int8() const { return inp == 8 && wgt == 8 && acc == 32; }
  AccumulatorWidths accumulator() const { return AccumulatorWidths{acc, out}; }
  std::string describe() const;  // "int4 x int4 -> int16"
};

// Throws vta::Error naming the config's widths unless single layers can run at them.
void check_layer_widths(const HwConfig& cfg, const std::string& layer);
// Throws vta::Error "... the network path is int8 for now ..." unless the config is int8.
void check_network_widths(const HwConfig& cfg, const std::string& network);

// The epilogue with its clip bounds narrowed to the output lane's range
// [-2^(OUT_WIDTH-1), 2^(OUT_WIDTH-1) - 1], so that STORE's truncation keeps the clipped value
// (a ReLU layer's [0, 127] is [0, 7] at int4). Unchanged at int8.
Epilogue epilogue_at_widths(const Epilogue& e, const HwConfig& cfg);

// Seeded random operands in the lanes' ranges: random_conv_data / random_matmul_data with each
// input value kept to its low INP_WIDTH bits, weights to WGT_WIDTH, residuals to OUT_WIDTH
// (sign-extended: uniform over the lane's range). The same data as those at int8.
ConvData random_conv_data_at(const Conv2dParams& p, const Epilogue& e, uint64_t seed,
                             const HwConfig& cfg);
MatmulData random_matmul_data_at(const MatmulParams& p, const Epilogue& e, uint64_t seed,
                                 const HwConfig& cfg);

// Throws vta::Error naming the tensor, index and value of the first one outside its lane.
void check_conv_lanes(const std::string& layer, const ConvData& data, const LayerWidths& w);

}  // namespace vta::compiler
