// The operators torch exports as several ONNX nodes, found in a graph by their dataflow: GELU
// (Div, Erf, Add, Mul, Mul; its tanh approximation: Add, Mul, Tanh, Add, Mul, Mul),
// LayerNormalization (ReduceMean, Sub, Pow, ReduceMean, Add, Sqrt,
// Div, Mul, Add), SiLU and HardSwish (a gate and a Mul), L2 normalisation (F.normalize:
// ReduceL2, Clip, Expand, Div). The importer turns the ones it
// implements into one node each (onnx_import.cc); the check of unsupported operators names
// the others by what they were (unsupported_ops.cc).
#pragma once

#include <map>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

namespace vta::compiler {

// The graph's dataflow by node index: who produces a tensor, who reads it.
struct Dataflow {
  const onnx::GraphProto& g;
  std::map<std::string, int> producer;
  std::map<std::string, std::vector<int>> consumers;

  explicit Dataflow(const onnx::GraphProto& graph);
  bool is(int i, const char* op) const { return i >= 0 && g.node(i).op_type() == op; }
  // The node producing input `k` of node i when it is an `op`, else -1.
  int input_from(int i, int k, const char* op) const;
  // The first node reading node i's output that is an `op`, else -1.
  int output_to(int i, const char* op) const;
  // Whether node i reads `tensor`.
  bool reads(int i, const std::string& tensor) const;
};

enum class DecompositionKind { kGelu, kGeluTanh, kLayerNorm, kSilu, kHardSwish, kL2Normalize };

// A matched decomposition: the operator it was and its nodes, in the order of its matcher
// (GELU: scale, Erf, Add, Mul[, Mul 0.5]; LayerNormalization: ReduceMean, Sub, Pow,
// ReduceMean, Add eps, Sqrt, Div[, Mul gain[, Add bias]]; gated: gate, Mul; L2 normalisation:
// ReduceL2, Clip, Expand, Div).
struct Decomposition {
  DecompositionKind kind = DecompositionKind::kGelu;
  const char* what = nullptr;  // "GELU", "LayerNormalization", "SiLU", ...
  std::vector<int> nodes;
};

// Every decomposition of the graph, by its key node in graph order.
std::vector<Decomposition> find_decompositions(const Dataflow& d);

}  // namespace vta::compiler
