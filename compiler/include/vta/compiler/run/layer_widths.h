// The element widths of a config as the compiler's paths see them (docs/element_widths.md), and
// the compiler's width checks: single conv2d / matmul layers run at every legal width (lanes of
// 1 to 8 bits in the int8_t vectors of ConvData / MatmulData / LayerRun, wider ones through
// wide_layer_runner.h) with int16 or int32 accumulators; networks (ONNX import, quantization,
// host operators) at every width whose input and weight lanes fit int8_t (1 to 8 bits).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vta/compiler/references/width_reference.h"
#include "vta/compiler/run/layer_runner.h"
#include "vta/sim/hw_config.h"

namespace vta::compiler {

struct LayerWidths {
  int inp = 8, wgt = 8, acc = 32, out = 8;  // bits per lane
  static LayerWidths of(const HwConfig& cfg);
  // int8 inputs and weights, int32 accumulators: the widths of every upstream preset.
  bool is_int8() const { return inp == 8 && wgt == 8 && acc == 32; }
  bool operator==(const LayerWidths& o) const {
    return inp == o.inp && wgt == o.wgt && acc == o.acc && out == o.out;
  }
  bool operator!=(const LayerWidths& o) const { return !(*this == o); }
  AccumulatorWidths accumulator() const { return AccumulatorWidths{acc, out}; }
  std::string describe() const;  // "int4 x int4 -> int16"
};

// Throws vta::Error naming the config's widths unless single layers can run at them.
void check_layer_widths(const HwConfig& cfg, const std::string& layer);
// Throws vta::Error naming the network, the config and its widths unless networks run at them:
// tensors between layers are int8_t, so input and weight lanes of 1 to 8 bits.
void check_network_widths(const HwConfig& cfg, const std::string& network);

// The largest and smallest value of a `bits`-bit lane.
inline int lane_max(int bits) {
  return int((int64_t(1) << (bits - 1)) - 1);
}
inline int lane_min(int bits) {
  return -lane_max(bits) - 1;
}
// Saturates every value to a `bits`-bit lane (nothing to do from 8 bits up).
void saturate_lanes(std::vector<int8_t>& v, int bits);
// Keeps every value's low `bits` bits, sign-extended (uniform random int8 values stay uniform
// over the lane's range; nothing to do from 8 bits up).
void wrap_lanes(std::vector<int8_t>& v, int bits);

// The epilogue with its clip bounds narrowed to the output lane's range
// [-2^(OUT_WIDTH-1), 2^(OUT_WIDTH-1) - 1], so that STORE's truncation keeps the clipped value
// (a ReLU layer's [0, 127] is [0, 7] at int4). Unchanged at int8.
Epilogue epilogue_at_widths(const Epilogue& e, const HwConfig& cfg);
Epilogue epilogue_at_widths(const Epilogue& e, const LayerWidths& w);

// The output of a conv2d / matmul layer at `w` (lanes of up to 8 bits) as a VTA layer computes
// it, with the epilogue narrowed (epilogue_at_widths): at int8 the memoised int8 reference
// (ReferenceCache), with int32 accumulators that reference with each lane kept to OUT_WIDTH bits
// (the same arithmetic: no ACC_WIDTH wrap), with int16 ones the width reference.
std::vector<int8_t> conv2d_reference_lanes(const Conv2dParams& p, const Epilogue& e,
                                           const std::vector<int8_t>& x,
                                           const std::vector<int8_t>& w,
                                           const std::vector<int32_t>& bias,
                                           const std::vector<int8_t>& residual,
                                           const LayerWidths& widths);
std::vector<int8_t> matmul_reference_lanes(const MatmulParams& p, const Epilogue& e,
                                           const std::vector<int8_t>& a,
                                           const std::vector<int8_t>& b,
                                           const std::vector<int32_t>& bias,
                                           const LayerWidths& widths);

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
