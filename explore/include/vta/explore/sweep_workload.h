// The workloads of a sweep spec, written as "KIND:ARGUMENT":
//   network:NAME_OR_FILE   resnet18 (built in), a network JSON file (compiler/network.h) or an
//                          ONNX model (imported and quantized, compiler/quantize.h)
//   conv2d:LAYER           a ResNet-18 layer preset, e.g. conv2d:resnet18.C8 (shape + epilogue)
//   conv2d:SHAPE           key=value list over n, c, h, w, hw, k, kernel, stride, pad, e.g.
//                          conv2d:c=64,hw=56,k=64,kernel=3,pad=1 (defaults as `vtasim conv2d`)
//   matmul:MxKxN           e.g. matmul:64x256x100 (no epilogue)
// and how one runs on a Target, the same way `vtasim conv2d / matmul / network` runs it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "vta/compiler/frontend/network.h"
#include "vta/compiler/frontend/quantize.h"
#include "vta/compiler/run/layer_runner.h"
#include "vta/compiler/run/layer_widths.h"
#include "vta/compiler/run/network_split.h"
#include "vta/compiler/scheduling/workload.h"
#include "vta/compiler/target.h"

namespace vta::explore {

struct SweepWorkload {
  enum class Kind { kNetwork, kConv2d, kMatmul };
  std::string text;  // as written in the spec
  Kind kind = Kind::kConv2d;
  compiler::Network network;
  compiler::Conv2dParams conv;
  compiler::Epilogue epilogue;
  compiler::MatmulParams matmul;
  // Short hash of the bytes of a network or model file ("" for built-in workloads): a changed
  // file is a changed workload for resume.
  std::string content_id;
  bool onnx = false;  // network:MODEL.onnx: imported and quantized with the spec's model settings
  std::string model_path;  // MODEL.onnx: the file (relative ones resolved against `dir`)
  // MODEL.onnx, between load_model and unload_model: one quantization per element widths of
  // the designs that run it (QuantOptions::widths), each with its network and quantization
  // report (accuracy, MACs by place, host layers, front-end times) for the rows, or the error of
  // a quantization that failed; or, for a model file that exists but does not import, the error
  // that fails its jobs (the other workloads of the sweep run on).
  struct Quantized {
    compiler::LayerWidths widths;
    std::shared_ptr<const compiler::QuantizedModel> model;  // null when `error` is set
    std::string error;
  };
  std::vector<Quantized> quantized;
  std::string import_error;

  // Throws vta::Error naming `text` when it is malformed or names an unknown layer / network;
  // relative network files are looked up in `dir` first. A MODEL.onnx is not imported here (a
  // sweep imports each model just before its jobs: load_model); when `input` is given, the
  // model's input shape is read to check that file's size (a spec error).
  static SweepWorkload parse(const std::string& text, const std::string& dir,
                             const std::string& input = "");

  // MODEL.onnx imported once and quantized with `quant` at each of `widths` (lanes of 1 to 8
  // bits) and, when `input` is given, that raw float32 file as its first calibration sample and
  // its input: sets quantized, or import_error.
  void load_model(compiler::QuantOptions quant, const std::string& input,
                  const std::vector<compiler::LayerWidths>& widths);
  // The quantization at `widths`; nullptr when load_model was not asked for them.
  const Quantized* quantized_at(const compiler::LayerWidths& widths) const;
  // Frees what load_model made (the workload is as parse left it).
  void unload_model();
};

// How a workload is run: the schedule ("auto" or tuning with `tune` candidates, conv2d and
// network only), the reference check, the data seed of conv2d / matmul and, on a system, how
// the compiler splits it over the cores (kNone: every layer on core 0, or replicated when the
// target's runtime runs programs replicated).
struct WorkloadOptions {
  size_t tune = 0;
  bool check = true;
  uint64_t seed = 1;
  compiler::NetworkSplit split = compiler::NetworkSplit::kNone;
};

// The compiler's split of the workload over the target's cores as `vtasim conv2d / matmul /
// network --split auto` chooses it (the cost model's smallest estimate; a network may get the
// pipeline); one core: kNone. Throws vta::Error as run_workload does (a model not quantized).
compiler::SplitChoice choose_workload_split(const compiler::Target& target, const SweepWorkload& w);

// Runs the workload's layers on the target `system` (split as opt.split says; a MODEL.onnx: its
// quantization at the target's widths). Throws compiler::ScheduleFitError when no schedule of a
// layer fits the design, vta::Error for any other failure.
std::vector<compiler::LayerRun> run_workload(const compiler::Target& system, const SweepWorkload& w,
                                             const WorkloadOptions& opt);

}  // namespace vta::explore
