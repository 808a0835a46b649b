// The operator table: one OpDef per network operator (compiler/src/ops/<op>.cc), registered in
// compiler/src/ops/op_list.inc. An entry holds everything the compiler knows about its operator:
// its JSON keys and their reading and writing, shape inference with the validation of its
// attributes, its placement, its attributes in the IR's text form, the int8 reference and host
// execution of a host operator or the VTA lowering (job data, reference, run) of a VTA operator,
// and a float reference where the operator has one of its own. Nothing outside the table
// compares operator names.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "vta/compiler/frontend/float_graph.h"
#include "vta/compiler/frontend/network.h"
#include "vta/compiler/run/host_cpu.h"
#include "vta/compiler/run/wide_network_run.h"

namespace vta::compiler {

class RecordingSink;

// Where an operator runs.
enum class Placement { kUnplaced, kHost, kVta };
const char* placement_name(Placement p);  // "unplaced", "host", "vta"

// An activation's NCHW sizes.
struct TensorShape {
  int n = 0, c = 0, h = 0, w = 0;
  std::string str() const;  // "1x64x56x56"
  bool operator==(const TensorShape& o) const {
    return n == o.n && c == o.c && h == o.h && w == o.w;
  }
  bool operator!=(const TensorShape& o) const { return !(*this == o); }
};

// What shape inference sees: the layer, the shape of its first input and of every earlier
// tensor (the network's input included).
struct ShapeContext {
  const NetworkLayer& layer;
  TensorShape in;
  const std::map<std::string, TensorShape>& shapes;
};

// What executing a layer sees: the network, the layer, its first input, every earlier tensor
// and the layer's weight seed.
struct OpContext {
  const Network& net;
  const NetworkLayer& layer;
  const NetworkTensor& in;
  const std::map<std::string, NetworkTensor>& tensors;
  uint64_t seed = 0;
  // The element widths of the run: a host layer's output saturates to the output lane
  // (run_network does it after run_host), random weights fit the weight lane.
  LayerWidths widths;
};

// What a VTA layer produced.
struct VtaLayerResult {
  LayerRun run;
  NetworkTensor out;
};

// A VTA operator's lowering: its job (random or the layer's own weights with its actual input
// and residual), the job's int8 reference output and its run on a target.
struct VtaLowering {
  void (*make_job)(const OpContext& ctx, NetworkLayerJob& job) = nullptr;
  NetworkTensor (*reference)(const NetworkLayer& l, const NetworkLayerJob& job) = nullptr;
  VtaLayerResult (*run)(const Target& target, const Network& net, const NetworkLayer& l,
                        const NetworkLayerJob& job, const NetworkOptions& opt) = nullptr;
  // The schedule the automatic scheduler gives the layer on `cfg` for input `in`.
  ConvSchedule (*auto_schedule)(const NetworkLayer& l, const TensorShape& in,
                                const HwConfig& cfg) = nullptr;
  // The input channels VTA reads for input `in` (with the layer's schedule, if any: a kernel
  // fold moves part of the window into the channels; a matmul reads its input flattened).
  int (*input_channels)(const NetworkLayer& l, const TensorShape& in) = nullptr;
  // The convolution VTA runs for the layer on `cfg` with input `in` (a matmul as a 1x1
  // convolution): what the lower pass generates code for.
  Conv2dParams (*vta_conv)(const NetworkLayer& l, const TensorShape& in,
                           const HwConfig& cfg) = nullptr;
  // An operator with a program of its own (not a convolution; no schedule): the program for
  // input `in` on `cfg` recorded without running (the lower pass) and its cycles by the timing
  // contract's formulas (placement). Both throw vta::Error when no program fits `cfg`.
  std::shared_ptr<const RecordingSink> (*lower)(const NetworkLayer& l, const TensorShape& in,
                                                const HwConfig& cfg) = nullptr;
  uint64_t (*estimate_cycles)(const NetworkLayer& l, const TensorShape& in,
                              const HwConfig& cfg) = nullptr;
};

// The work of an operator on the host, for the host CPU model (run/host_cpu.h).
struct HostWorkCount {
  HostWork work = HostWork::kElementwise;
  uint64_t ops = 0, bytes = 0;
};

struct OpDef {
  std::string name;                    // the JSON "op"
  std::vector<std::string> json_keys;  // every key a layer of this op may have
  bool has_epilogue = false;           // writes its "epilogue" key
  // The float-graph operator the quantizer turns into this one (none: not imported).
  std::optional<GraphOp> from_graph_op;
  // Reads the op's own keys after the common ones (network_json.cc) and checks them; `where`
  // is "<source>: layer '<name>'".
  void (*read_json)(const nlohmann::json& j, const std::string& where, NetworkLayer& l) = nullptr;
  // Writes the op's own keys (after name, op and input).
  void (*write_json)(const NetworkLayer& l, nlohmann::ordered_json& j) = nullptr;
  // The output shape; throws vta::Error naming the layer for attributes or inputs that do not
  // fit.
  TensorShape (*infer_shape)(const ShapeContext& ctx) = nullptr;
  // Where the operator runs; a layer placed on the host whose operator has both a VTA estimate
  // (vta.estimate_cycles) and host_work runs there only without a design to compare on
  // (choose_placement decides with one).
  Placement (*place)(const NetworkLayer& l) = nullptr;
  HostWorkCount (*host_work)(const NetworkLayer& l, const TensorShape& in) = nullptr;
  // The host's work for a layer placed on VTA besides its program (repacking an activation into
  // the weight layout), if any: part of VTA's side in choose_placement and of the host time.
  HostWorkCount (*vta_host_work)(const NetworkLayer& l, const TensorShape& in) = nullptr;
  // The attributes in the IR's text form: "kernel=3x3 stride=2x2 pad=1,1,1,1".
  std::string (*attributes)(const NetworkLayer& l) = nullptr;
  // A host layer's int8 execution (also its int8 reference); `note` receives the line of
  // NetworkRun::host_ops.
  NetworkTensor (*run_host)(const OpContext& ctx, std::string& note) = nullptr;
  VtaLowering vta;  // set for an operator that can run on VTA
  // Networks of input and weight lanes wider than 8 bits (run/wide_network_run.h): a host
  // layer's execution (its output saturates to the output lane after it) or a VTA layer's job.
  // Neither: the operator does not run in such a network (a named error).
  WideNetworkTensor (*run_host_wide)(const WideOpContext& ctx, std::string& note) = nullptr;
  WideLayerJob (*make_wide_job)(const WideOpContext& ctx) = nullptr;
  // The operator's float reference, when the table holds it (calibration of a float graph).
  FloatTensor (*float_reference)(const NetworkLayer& l,
                                 const std::vector<const FloatTensor*>& in) = nullptr;
};

// Where layer `l` with input `in` runs on the design `cfg`. A layer OpDef::place puts on the
// host whose operator VTA can run too (vta.estimate_cycles and host_work) runs on VTA when VTA's
// estimated cycles at the design's clock (plus the host time of its vta_host_work, if any) take
// less time than the host CPU model gives the host (host_cpu_for(cfg->target)), and on the host
// when they do not or no VTA program fits; `reason` then says why: "vta (est 1234 cy = 12.3 us <
// host 40.1 us)", with a repacking "vta (est 1234 cy + repack 6.1 us = 18.4 us < host 40.1 us)".
// Any other operator, and every operator without a design (cfg null), runs where OpDef::place says,
// with an empty reason; so do those on a design of other widths than int8 x int8 -> int32 (their
// VTA programs are int8), with that reason.
struct PlacementChoice {
  Placement place = Placement::kUnplaced;
  std::string reason;
};
PlacementChoice choose_placement(const NetworkLayer& l, const TensorShape& in, const HwConfig* cfg);
// Microseconds the host CPU model gives the vta_host_work of `l` on `cfg` (0 without any).
double vta_host_us(const OpDef& def, const NetworkLayer& l, const TensorShape& in,
                   const HwConfig& cfg);

// Every registered operator, in registration order.
const std::vector<const OpDef*>& op_defs();
// The operator named `name`, or nullptr.
const OpDef* find_op_def(const std::string& name);
// The operator named `name`; throws vta::Error "unknown op 'X' (known: ...)".
const OpDef& op_def(const std::string& name);
// "conv2d, dense, ...": the registered names, for error messages.
std::string known_op_names();
// The operator the quantizer makes of a float-graph operator; throws vta::Error for none.
const OpDef& op_def_for_graph_op(GraphOp op);

// The tensors a layer reads: its inputs (concat) or its input and residual.
std::vector<std::string> layer_operands(const NetworkLayer& l);

}  // namespace vta::compiler
