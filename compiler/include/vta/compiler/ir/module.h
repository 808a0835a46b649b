// The compiler's graph IR for networks. A module holds the graph at its current stage: the
// float graph of an imported model (before quantization), then the int8 network whose layers
// are the ops (each an entry of the operator table, ops/op_def.h, with its attributes), the
// type of every value (shape, dtype, layout, quantization exponent) and per op its placement,
// the packed layout VTA reads it in and its schedule. The passes (passes/pass_manager.h) move
// it from one stage to the next; print_module gives the text form, verify_module the
// invariants the manager checks after every pass.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "vta/compiler/codegen/recording_sink.h"
#include "vta/compiler/frontend/float_graph.h"
#include "vta/compiler/frontend/network.h"
#include "vta/compiler/frontend/quantize.h"
#include "vta/compiler/ops/op_def.h"

namespace vta::compiler::ir {

enum class DType { kF32, kI8 };

// A value's type: "i8[1x64x56x56] NCHW 2^-5".
struct TensorType {
  TensorShape shape;
  DType dtype = DType::kI8;
  std::optional<int> exp;  // scale 2^-exp of a quantized model's tensor
  std::string str() const;
};

// The blocked layout a VTA op's operands take in VTA's buffers (the code generator packs the
// NCHW tensors into it): batch and channel blocks, the channels padded to whole blocks.
struct PackedLayout {
  int batch = 1, block_in = 16, block_out = 16;
  int c = 0, c_padded = 0, k = 0, k_padded = 0;  // input and output channels
  std::string str() const;                       // "NCHW1n16c c 3->16 k 64->64"
};

// What the passes record per op (per network layer).
struct OpInfo {
  Placement place = Placement::kUnplaced;
  // Why, for an op placed by comparing estimates (choose_placement): "vta (est ... < host ...)".
  std::string place_reason;
  std::optional<PackedLayout> packed;
  bool auto_scheduled = false;  // the schedule pass chose the layer's schedule
  // The lower pass: the runtime calls the code generator makes for the op (shared: modules are
  // copied, the program is not changed after lowering).
  std::shared_ptr<const RecordingSink> lowered;
};

struct Module {
  std::string name;
  std::optional<FloatGraph> float_graph;  // an imported model, before quantize
  std::optional<Network> net;             // the int8 network
  std::optional<QuantizedModel> quantized;
  std::map<std::string, TensorType> types;  // every value of net, after infer-types
  std::vector<OpInfo> ops;                  // one per layer of net, after place
};

// The text form: one line per value and op, with attributes, types and annotations.
std::string print_module(const Module& m);

// Throws vta::Error naming the op or value that breaks an invariant: shapes that do not follow
// from the operators, a value without a type once types exist (or of another shape), a
// placement the operator cannot run in, a packed layout on a host op.
void verify_module(const Module& m);

}  // namespace vta::compiler::ir
