// Networks: a JSON sequence of layers over named tensors. conv2d and dense layers run on VTA
// (with their fused epilogue, including residual adds by the ALU when the residual tensor has
// the output's shape); maxpool and global_avgpool run on the host, as in TVM's VTA ResNet-18
// deployment, and so do the operators an imported model may need besides: grouped /
// depthwise conv2d ("groups" > 1), avgpool, add (of two int8 tensors of one scale, saturating,
// with the layer's relu/clip) and concat (along the channels). Weights are random int8 from the
// network seed unless the layer carries its own (an imported model's); every VTA layer is
// checked against the C++ reference on the actual input it received.
//
// Format:
//   {"name": "...", "seed": 1, "input": {"name": "data", "n": 1, "c": 3, "h": 224, "w": 224},
//    "layers": [
//      {"name": "c1", "op": "conv2d", "input": "data", "k": 64, "kernel": 7, "stride": 2,
//       "pad": 3, "epilogue": {"shift": 11, "relu": true, "clip_hi": 127},
//       "residual": "x", "schedule": {...}},
//      {"name": "p1", "op": "maxpool", "input": "c1", "kernel": 3, "stride": 2, "pad": 1},
//      {"name": "gap", "op": "global_avgpool", "input": "..."},
//      {"name": "fc", "op": "dense", "input": "gap", "units": 1000, "epilogue": {...}}]}
//      {"name": "sum", "op": "add", "input": "a", "residual": "b", "epilogue": {"relu": true}},
//      {"name": "cat", "op": "concat", "inputs": ["a", "b"]},
//      {"name": "dw", "op": "conv2d", "groups": 32, ...},
//      {"name": "ap", "op": "avgpool", "kernel": 2, "stride": 2, "count_include_pad": false,
//       "rescale": 2},
// "kernel", "stride" and "pad" also accept [h, w] / [top, left, bottom, right] arrays; an
// epilogue's "shift" also accepts one value per output channel ([3, 5, ...]: per-channel shifts).
// Unknown keys (also keys of another op, e.g. "units" on a conv2d) are errors.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "vta/compiler/run/layer_runner.h"
#include "vta/compiler/run/layer_widths.h"
#include "vta/compiler/scheduling/schedule.h"
#include "vta/compiler/scheduling/workload.h"
#include "vta/compiler/target.h"

namespace vta::compiler {

struct NetworkLayer {
  std::string name, op, input, residual;
  int k = 0, units = 0;
  int kh = 1, kw = 1, stride_h = 1, stride_w = 1;
  int pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0;
  Epilogue epilogue;
  std::optional<ConvSchedule> schedule;
  int groups = 1;                   // conv2d: > 1 (grouped, depthwise) runs on the host
  std::vector<std::string> inputs;  // concat: every input, in order (input = inputs[0])
  bool count_include_pad = false;   // avgpool: divide by the whole window, padding included
  // avgpool, global_avgpool: the mean times 2^rescale (-24..24), rounded to nearest, saturated:
  // the move between two power-of-two scales of a quantized model.
  int rescale = 0;
  // Explicit weights instead of random ones (an imported model): conv2d K x C/groups x KH x KW,
  // dense inputs x units (the B of the matmul); bias int32 per output (with epilogue.bias).
  // Not written by to_json.
  std::shared_ptr<const std::vector<int8_t>> weights;
  std::shared_ptr<const std::vector<int32_t>> bias;
  // The same at weight lanes of 9 to 16 bits (a model quantized to int16 lanes: the wide path,
  // run/wide_network_run.h, reads them; `weights` stays empty). Not written by to_json.
  std::shared_ptr<const std::vector<int16_t>> weights_i16;
  // A host operator's float parameters (layer_norm: the gain, then the bias, one value each per
  // position along its axis); absent: the neutral ones. Not written by to_json.
  std::shared_ptr<const std::vector<float>> float_params;

  // Scalar attributes of operators that only the operator table knows (e.g. hardsigmoid's
  // alpha and beta), by key; read from and written to the layer's JSON by its operator.
  std::map<std::string, double> attrs;

  // The operator table's placement of this layer is VTA (ops/op_def.h).
  bool on_vta() const;
};

struct Network {
  std::string name;
  uint64_t seed = 1;
  std::string input_name = "data";
  int n = 1, c = 3, h = 224, w = 224;
  std::vector<NetworkLayer> layers;
  // The input tensor (n*c*h*w int8, NCHW); random from the seed when absent.
  std::shared_ptr<const std::vector<int8_t>> input_data;
  // The same at input lanes of 9 to 16 bits (a model quantized to int16 lanes).
  std::shared_ptr<const std::vector<int16_t>> input_i16;

  // Reads and validates (see validate) a description; errors name `source` and the layer.
  static Network from_json(const nlohmann::json& j, const std::string& source);
  // Follows the tensor shapes through the layers and throws vta::Error naming the network and
  // layer for anything that cannot run: input sizes out of 1..kMaxTensorDim, unknown or
  // duplicate tensor names, invalid convolution / dense / maxpool parameters (e.g. stride 0 or
  // a kernel larger than the padded input, a maxpool pad not smaller than its kernel), residual
  // shape mismatches.
  void validate() const;
  nlohmann::ordered_json to_json() const;  // the format above (from_json reads it back)
  static Network from_file(const std::string& path);
  // ResNet-18 (224x224x3 input, batch n): C1 + maxpool, 8 basic blocks (layers C2..C11 of the
  // benchmark table, 1x1 shortcuts C4/C7/C10, residual adds on VTA), global average pool,
  // dense 512 -> 1000. Shifts are chosen from each layer's fan-in.
  static Network resnet18(int n = 1);
  // "resnet18" (built in) or a path to a JSON file.
  static Network load(const std::string& name_or_path);
};

struct NetworkOptions {
  bool check = true;
  size_t tune_candidates = 0;  // 0: automatic schedule; otherwise tune each layer
  // Called after each VTA layer (for progress output).
  std::function<void(const LayerRun&)> on_layer;
  // With CORES > 1: how the conv2d and dense layers go to the cores (run/core_split.h;
  // run/network_split.h chooses one); the default runs every layer on core 0 alone.
  LayerSplit layer_split = LayerSplit::kNone;
  // With CORES > 1 and a batch of N > 1: the N samples stream through a pipeline of stages,
  // consecutive VTA layers per core (run/pipeline_split.h); layer_split is then unused.
  bool pipeline = false;
};

struct NetworkRun {
  std::vector<LayerRun> runs;         // VTA layers, in order
  std::vector<std::string> host_ops;  // host layers, "p1: maxpool 3x3 s2 on host"
  std::vector<int8_t> output;         // the last layer's output
  std::vector<int32_t> wide_output;   // the same of a wide network (wide_network_run.h)
};

// Runs every layer in order on the target (VTA layers through run_conv2d / run_matmul) at the
// config's element widths (LayerWidths::of; check_network_widths; input or weight lanes wider
// than 8 bits: run_network_wide, wide_network_run.h): at lanes narrower than 8
// bits a random input, random weights are kept to their lanes (wrap_lanes), every host
// operator's output saturates to the output lane and every VTA layer computes as the hardware
// does (conv2d_reference_lanes: the accumulator wraps at ACC_WIDTH, the clip bounds narrow to the
// output lane).
NetworkRun run_network(const Target& target, const Network& net, const NetworkOptions& opt);

// A tensor between the layers of a network (NCHW int8).
struct NetworkTensor {
  int n = 0, c = 0, h = 0, w = 0;
  std::vector<int8_t> data;
  std::string shape() const;  // "1x64x56x56"
};

// One VTA layer of a network, ready to run on its own: its data (weights from its seed, input
// and residual tensors as the layers before it produce them when each equals its C++
// reference, which is what run_network feeds it whenever every earlier layer passes its check).
struct NetworkLayerJob {
  size_t layer = 0;           // index into Network::layers
  uint64_t seed = 0;          // the layer's weight seed, as in run_network
  NetworkTensor input_shape;  // n, c, h, w of the input (its data is in conv.x / dense.a)
  ConvData conv;              // a conv2d layer's data
  MatmulData dense;           // a dense layer's data
  LayerWidths widths;         // the element widths the job's reference computes at
};

// One sample's walk through a network, layer by layer (run/pipeline_split.h runs several at
// once): the tensors so far and the next layer to run.
struct NetworkCursor {
  std::map<std::string, NetworkTensor> tensors;
  size_t next = 0;  // index into Network::layers
};
// The network's input (its data, else random from its seed, as run_network's) as one cursor
// per sample, each with an input of batch 1.
std::vector<NetworkCursor> network_sample_cursors(const Network& net, const LayerWidths& widths);
// Runs the layers from c.next on that run on the host on `cfg` (as run_network does), up to the
// next VTA layer or the end.
void run_host_layers(const Target& target, const Network& net, NetworkCursor& c,
                     std::vector<std::string>& host_ops);
// The job of the VTA layer at c.next for a cursor's sample, its data from c's tensors and its
// weights those of the layer in the network of batch `batch` (run_network's).
NetworkLayerJob next_vta_job(const Network& net, const NetworkCursor& c, const LayerWidths& widths,
                             int batch);

struct NetworkJobs {
  struct Failure {
    size_t layer = 0;  // index into Network::layers
    std::string error;
  };
  std::vector<NetworkLayerJob> jobs;  // the VTA layers, in order
  std::vector<std::string> host_ops;  // as NetworkRun::host_ops
  std::optional<Failure> failure;     // a layer that cannot run; the jobs stop before it
};

// Every tensor of the network (input included) computed on the host with the C++ reference in
// place of VTA: the reference of a whole network (e.g. of a quantized model) at `widths` (those
// of run_network on a config of these widths; the int8 reference by default).
std::map<std::string, NetworkTensor> reference_network_tensors(const Network& net,
                                                               const LayerWidths& widths = {});

// Follows the network on the host with the C++ reference in place of VTA (memoised in
// ReferenceCache::process(), so checking the jobs' runs later costs a lookup). The jobs are the
// layers placed on VTA on the design `cfg` (choose_placement; without one, OpDef::place), at its
// element widths (int8 without one).
NetworkJobs reference_layer_jobs(const Network& net, const HwConfig* cfg = nullptr);
// Runs one job's layer on the target (a "layers" step, like each VTA layer of run_network).
LayerRun run_layer_job(const Target& target, const Network& net, const NetworkLayerJob& job,
                       const NetworkOptions& opt);

}  // namespace vta::compiler
