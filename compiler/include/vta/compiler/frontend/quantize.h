// Quantization of an imported float graph in the manner of TVM's VTA flow (relay.quantize with
// power-of-two scales): every tensor t is int8 q = clip(round(x * 2^e_t)), e_t chosen by
// calibration on seeded sample inputs (the largest e whose range holds the calibrated
// magnitude: the maximum |x|, or a percentile of |x|), each layer's weights
// by their own maximum (e_w); a layer accumulates in int32 at scale 2^-(e_in + e_w), adds its
// int32 bias (rounded at that scale, plus the half unit that turns the shift's floor into
// round-to-nearest), shifts right by e_in + e_w - e_out, adds the residual, applies ReLU / Clip
// and clips to int8: exactly the fused epilogue of a VTA layer. Tensors an operator cannot
// rescale (pool in/out, add and concat operands, a fused residual and its layer's output) share
// one exponent, the smallest of their calibrated ones.
// At other element widths (QuantOptions::widths: lanes of 1 to 8 bits) int8 reads as the lane:
// q in [-2^(b-1), 2^(b-1) - 1] for activations and weights, the bias within the accumulator.
//
// The result is a Network (network.h) with the model's weights that run_network executes, plus
// the quantization report: per layer the exponents, the shift and the signal-to-noise ratio of
// its output against the float graph; for the output the cosine similarity and the top-1
// agreement with the float graph over the calibration inputs.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "vta/compiler/frontend/float_graph.h"
#include "vta/compiler/frontend/network.h"
#include "vta/compiler/run/host_cpu.h"
#include "vta/compiler/run/progress_display.h"

namespace vta::compiler {

struct QuantOptions {
  int calib = 4;             // calibration inputs, N(0, 1) per element from `seed`
  std::string mode = "max";  // "max" or "percentile"
  // One weight exponent per output channel of a Conv / Gemm (each the largest that holds the
  // channel's weights), hence one shift per channel (Epilogue::shifts); else one per layer.
  bool per_channel = false;
  double percentile = 99.99;  // of |x|, per tensor over all calibration inputs
  uint64_t seed = 1;
  // A user's input (the graph's input shape): the first calibration sample instead of a seeded
  // one, and the input that net.input_data holds.
  std::optional<FloatTensor> first_input;
  // The progress of the calibration runs on stderr (progress_display.h): off unless a command
  // asks (vtasim network gives its --quiet / --progress).
  ProgressFlags progress{true, false};
  // The element widths to quantize to (those of the config it runs on): activations to
  // INP_WIDTH-bit lanes, weights to WGT_WIDTH, biases within ACC_WIDTH, shifts below ACC_WIDTH;
  // int8 x int8 -> int32 by default. Lanes of 1 to 8 bits (check_network_widths).
  LayerWidths widths;

  // The --quant text of `vtasim network`, Python's network(quant=...) and a sweep spec's "quant":
  // a calibration mode (max, percentile) and / or the weight scales (per-tensor, per-channel),
  // comma-separated: "max", "per-channel", "percentile,per-channel". Throws vta::Error naming
  // the offending part.
  void set_quant(const std::string& text);
  std::string quant() const;  // the canonical text: "max", "max,per-channel", ...
};

struct QuantLayerReport {
  std::string name;  // the network layer (its first ONNX node)
  std::string ops;   // the fused ONNX operators, "Conv+Add+Relu"
  bool on_vta = false;
  int in_exp = 0, w_exp = 0, out_exp = 0, shift = 0;  // scales 2^-exp
  double snr_db = 0;  // of the dequantized output against the float graph
  uint64_t macs = 0;
  uint64_t values = 0;  // output values (a host layer's elementwise operations)
  uint64_t bytes = 0;   // int8 bytes read and written (inputs and output)
  double host_us = 0;   // a host layer's time on the board's CPU (time_host)
  // Per-channel weight scales: the largest weight exponent and shift (w_exp, shift: smallest).
  bool per_channel = false;
  int w_exp_max = 0, shift_max = 0;
  // Lanes wider than 8 bits: the value bits of the input, the weights and the output (signed
  // lanes the fan-in rule chose within the config's) and the fan-in K; 0 at 8 bits and below.
  int inp_bits = 0, wgt_bits = 0, out_bits = 0;
  uint64_t fan_in = 0;
};

struct QuantizedModel {
  Network net;  // input_data: the first calibration input, quantized
  std::string output_layer;
  int input_exp = 0, output_exp = 0;
  std::vector<QuantLayerReport> layers;
  double cosine = 0;  // output vs float, the lowest over the calibration samples
  double cosine_mean = 0;
  double top1_agreement = 0;  // fraction of samples whose arg-max class agrees
  int samples = 0;
  uint64_t vta_macs = 0, host_macs = 0;
  std::vector<int8_t> reference_output;  // the int8 reference's output of net.input_data
  // The same at lanes wider than 8 bits (of net.input_i16; reference_output is then empty).
  std::vector<int32_t> reference_output_wide;
  QuantOptions options;
  // Wall times of the front end, apart from any simulation: the import (FloatGraph's) and the
  // quantization (calibration runs in float, then the int8 reference of each sample).
  double import_seconds = 0, quantize_seconds = 0;
  std::string host_cpu;  // the CPU time_host modelled ("" before)
  double host_us = 0;    // all host layers, serial

  // Times every host layer on `cpu` (host_cpu.h): the operator's own count where its entry has
  // one (OpDef::host_work), else int8 MACs for the grouped convolutions and one operation per
  // output value for the others. With the design `cfg`, each layer's placement is chosen on it
  // first (choose_placement), and vta_macs / host_macs follow.
  void time_host(const HostCpu& cpu, const HwConfig* cfg = nullptr);

  nlohmann::ordered_json to_json() const;
  std::string describe() const;  // the human table
};

// N(0, 1) inputs of the graph's input shape, from `seed` (sample i from seed + i).
std::vector<FloatTensor> calibration_inputs(const FloatGraph& g, int count, uint64_t seed);

// A raw little-endian float32 file of the graph's input shape (NCHW); throws naming the file.
FloatTensor read_float_input(const FloatGraph& g, const std::string& path);

// True for a path ending in ".onnx": what `vtasim network`, sweep workloads and the Python module
// import and quantize instead of reading a network JSON.
bool is_onnx_model(const std::string& path);

// import_onnx + quantize_graph (the import timed in import_seconds).
QuantizedModel import_and_quantize(const std::string& path, const QuantOptions& opt);

// import_onnx(path) with its wall time in import_seconds.
FloatGraph import_onnx_timed(const std::string& path);

// Throws vta::Error naming the node for a graph that cannot be quantized (e.g. a Relu that no
// Conv, Gemm or Add before it absorbs).
QuantizedModel quantize_graph(const FloatGraph& g, const QuantOptions& opt);
// Throws vta::Error naming `model` and the widths unless quantize_graph quantizes to them: input
// and weight lanes of 1 to 8 bits (int8_t tensors) or 9 to 16 (int16_t weights and input, the
// wide path of run/wide_network_run.h, whose operators quantize_graph checks by name).
void check_quantizable_widths(const std::string& model, const LayerWidths& widths);
// The same as a predicate (sweeps quantize a model once per such widths of their designs).
bool quantizable_widths(const LayerWidths& widths);

// True when the run's output (NetworkRun::output, or wide_output at lanes wider than 8 bits)
// equals the model's reference output bit for bit; `differ` (if given) counts the differing
// values.
bool output_matches_reference(const QuantizedModel& model, const NetworkRun& run,
                              size_t* differ = nullptr);

}  // namespace vta::compiler
