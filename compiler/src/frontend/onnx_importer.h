// The ONNX importer's state while it walks a graph's nodes, and the helpers its node importers
// share: onnx_import.cc (operators, constants, QDQ, padding) and onnx_layout_import.cc (the
// operators that only move values: Reshape, Flatten, Transpose, Slice, Split; ReduceMean).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

#include "frontend/onnx_index_rules.h"
#include "vta/compiler/frontend/float_graph.h"

namespace vta::compiler {

constexpr int64_t kMaxDim = 65535;

// A node's name for messages: its own, else its first output's.
std::string node_name(const onnx::NodeProto& n);

// A Reshape of an NCHW tensor to N x groups x C/groups x H x W, perhaps with its two channel
// factors transposed: the middle of a channel shuffle, which no graph node holds.
struct ChannelView {
  std::string source;  // the NCHW graph tensor
  int groups = 1;
  bool transposed = false;
};

// The importer's state: constants (initializers, Constant nodes, shape arithmetic), tensor
// aliases (no-op nodes), consumer counts (which BatchNormalization may fold into its Conv), the
// shapes of the tensors and the nodes built so far.
struct Importer {
  std::string file;
  std::map<std::string, FloatTensor> constants;
  std::map<std::string, std::vector<int64_t>> int_constants;
  std::map<std::string, std::string> alias;
  std::map<std::string, int> consumers;
  std::map<std::string, size_t> producer;  // tensor -> index into graph.nodes
  // Zero padding of H and W (top, left, bottom, right) by a Pad node, for the Conv or
  // AveragePool reading its output to take over.
  std::map<std::string, std::vector<int>> pending_pads;
  // The NCHW dims of every tensor of the float graph (its input, each node's output).
  std::map<std::string, std::vector<int>> dims;
  // The ONNX shape of a tensor where it is not its graph tensor's dims: a Flatten or Reshape to
  // a matrix, a Gemm's or ReduceMean's matrix, a Pad's output, a channel view.
  std::map<std::string, OnnxShape> shapes;
  std::map<std::string, ChannelView> views;  // by tensor
  FloatGraph graph;

  std::string resolve(const std::string& t) const;
  // Throws Error "<file>: node 'N' (Op): <what>".
  [[noreturn]] void fail(const onnx::NodeProto& n, const std::string& what) const;
};

const onnx::AttributeProto* find_attr(const onnx::NodeProto& n, const std::string& name);
// An integer attribute in [lo, hi], or `def` when absent.
int64_t attr_int(const Importer& im, const onnx::NodeProto& n, const std::string& name, int64_t def,
                 int64_t lo, int64_t hi);

// Adds node g to the graph and records its output's dims (errors name the node): a ceil_mode
// pool becomes its floor form with the extension as end padding.
void add_node(Importer& im, GraphNode g);

// The ONNX shape of tensor `t` that node n reads; throws naming the node when it is unknown.
OnnxShape shape_of(const Importer& im, const onnx::NodeProto& n, const std::string& t);

// Node n's output is its input (a no-op) seen with the ONNX shape `shape`.
void alias_output(Importer& im, const onnx::NodeProto& n, const OnnxShape& shape);

// Imports node n when it is one of onnx_layout_import.cc's (Reshape, Flatten, Transpose, Slice,
// Split, ReduceMean); false for any other operator.
bool import_layout_node(Importer& im, const onnx::NodeProto& n);

}  // namespace vta::compiler
