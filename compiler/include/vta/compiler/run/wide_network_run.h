// Networks whose input and weight lanes are 9 to 16 bits wide (int16 x int16 -> int32): tensors
// between layers hold their lanes in int32_t (the int8_t tensors of network.h and their code are
// the int8 and sub-byte path, unchanged). conv2d and dense layers run on VTA through
// run_conv2d_wide / run_matmul_wide; a residual add runs on the host after its convolution (LOAD
// ACC_8BIT reads int8 bytes); maxpool, avgpool, global_avgpool and add run on the host, every
// output saturated to the output lane. Other operators are a named error.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "vta/compiler/run/layer_widths.h"
#include "vta/compiler/run/wide_layer_runner.h"
#include "vta/compiler/scheduling/workload.h"

namespace vta::compiler {

struct Network;
struct NetworkLayer;
struct NetworkOptions;
struct NetworkRun;

// A tensor between the layers of a wide network (NCHW, each lane in an int32_t).
struct WideNetworkTensor {
  int n = 0, c = 0, h = 0, w = 0;
  std::vector<int32_t> data;
};
using WideTensors = std::map<std::string, WideNetworkTensor>;

// What a wide layer sees: as OpContext with wide tensors.
struct WideOpContext {
  const Network& net;
  const NetworkLayer& layer;
  const WideNetworkTensor& in;
  const WideTensors& tensors;
  uint64_t seed = 0;
  LayerWidths widths;
};

// A VTA layer of a wide network: a convolution, or a matmul when `matmul` is set (its data in
// `mm`), with the epilogue VTA runs (no residual: the host adds `residual` after it).
struct WideLayerJob {
  Conv2dParams conv;
  std::optional<MatmulParams> matmul;
  Epilogue epilogue;
  WideConvData data;
  WideMatmulData mm;
  std::string residual;  // the tensor the host adds to the output ("": none)
  int residual_shift = 0;
  int lo = 0, hi = 0;  // the layer's bounds after the residual add
};

// Networks at `w` take this path: input or weight lanes of 9 to 16 bits.
bool needs_wide_network(const LayerWidths& w);

// As run_network (network.h) at the widths of `target`'s config; NetworkRun::wide_output holds
// the last layer's lanes. Every VTA layer is checked against the width reference (opt.check).
// Layers take their own or the automatic schedule (opt.tune_candidates is not used yet).
NetworkRun run_network_wide(const Target& target, const Network& net, const NetworkOptions& opt);

// Every tensor of the network computed on the host with the width reference in place of VTA.
WideTensors reference_network_tensors_wide(const Network& net, const LayerWidths& widths);

// The operators networks of lanes wider than 8 bits run, comma-separated (the operator table's
// entries with a wide path; conv2d: one group).
std::string wide_operator_names();

// Saturates every value to a `bits`-bit lane [-2^(bits-1), 2^(bits-1) - 1] (none at 32 bits).
void saturate_wide_lanes(std::vector<int32_t>& v, int bits);

}  // namespace vta::compiler
