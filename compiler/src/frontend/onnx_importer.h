// The ONNX importer's state and the helpers its parts share: onnx_import.cc (the model, the
// convolutional operators, QDQ, shape arithmetic), sequence_import.cc (the operators of MLPs and
// transformers) and onnx_layout_import.cc (the channel shuffle's Reshape and Transpose, Slice,
// Split, ReduceMean). Internal to the front end.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

#include "frontend/fused_import.h"
#include "vta/compiler/frontend/float_graph.h"
#include "vta/sim/error.h"

#include <fmt/format.h>

namespace vta::compiler::onnx_in {

// A node's name for messages: its own, else its first output's.
std::string node_name(const onnx::NodeProto& n);

// A Reshape of an NCHW tensor to N x groups x C/groups x H x W, perhaps with its two channel
// factors transposed: the middle of a channel shuffle, which no graph node holds.
struct ChannelView {
  std::string source;  // the NCHW graph tensor
  int groups = 1;
  bool transposed = false;
};

// The importer's state: constants (initializers, Constant nodes), tensor aliases (no-op nodes),
// consumer counts (which BatchNormalization may fold into its Conv) and the nodes built so far
// with the view (float_graph.h: nchw_view) and the model's own shape of every value.
struct Importer {
  std::string file;
  std::map<std::string, FloatTensor> constants;
  std::map<std::string, std::vector<int64_t>> int_constants;
  std::map<std::string, std::vector<int64_t>> int_constant_dims;  // rank 2 and more (folds)
  std::set<std::string> int_scalars;  // the integer constants of rank 0 read from the model
  std::map<std::string, std::string> alias;
  std::map<std::string, int> consumers;
  std::map<std::string, size_t> producer;  // tensor -> index into graph.nodes
  // Zero padding of H and W (top, left, bottom, right) by a Pad node, for the Conv or
  // AveragePool reading its output to take over.
  std::map<std::string, std::vector<int>> pending_pads;
  std::map<std::string, std::vector<int>> dims;   // the view of each value, where it fits
  std::map<std::string, std::vector<int>> shape;  // the model's shape of each value
  std::map<std::string, ChannelView> views;       // by tensor (its shape: 5-D, in `shape`)
  // The NHWC tensors of the model held as their NCHW source (an alias): channels_last_import.cc.
  std::set<std::string> channels_last;
  FloatGraph graph;

  std::string resolve(const std::string& t) const {
    auto it = alias.find(t);
    return it == alias.end() ? t : resolve(it->second);
  }
  [[noreturn]] void fail(const onnx::NodeProto& n, const std::string& what) const {
    throw Error(fmt::format("{}: node '{}' ({}): {}", file, node_name(n), n.op_type(), what));
  }
  // The model's shape of tensor t (resolved); fails naming node n when it is unknown.
  const std::vector<int>& shape_of(const onnx::NodeProto& n, const std::string& t) const;
};

const onnx::AttributeProto* find_attr(const onnx::NodeProto& n, const std::string& name);
// An integer attribute in [lo, hi], or `def` when absent.
int64_t attr_int(const Importer& im, const onnx::NodeProto& n, const std::string& name, int64_t def,
                 int64_t lo, int64_t hi);
float attr_float(const onnx::NodeProto& n, const std::string& name, float def);
// The constant input `index` of node n (`what` names it in the error when it is not one).
const FloatTensor& constant_input(const Importer& im, const onnx::NodeProto& n, int index,
                                  const char* what);

// Appends node g, its ceil_mode resolved into padding and its output's view and model shape
// recorded when its inputs' are known (`shape`: the model's shape when the node sets it;
// FloatGraph::validate reports what does not fit).
void add_node(Importer& im, GraphNode g, std::optional<std::vector<int>> shape = std::nullopt);

// The operators of MLPs and transformers (sequence_import.cc). Each returns true when it
// imported node n (false: not one of its operators).
bool import_sequence_node(Importer& im, const onnx::NodeProto& n);
// The Reshape and Transpose of a channel shuffle, Slice, Split and ReduceMean over H and W
// (onnx_layout_import.cc); true when it imported node n (false: another Reshape or Transpose,
// for sequence_import.cc, or another operator).
bool import_layout_node(Importer& im, const onnx::NodeProto& n);
// A Transpose to or from channels-last, a Linear over the channels of a channels-last value
// (a 1x1 Conv) and a per-channel constant Add or Mul folded into a Conv
// (channels_last_import.cc); true when it imported node n.
bool import_channels_last_node(Importer& im, const onnx::NodeProto& n);
// The channels-last values node n reads as NHWC values (a permute of their NCHW source), for
// a node that is not per-pixel work.
void materialize_channels_last(Importer& im, const onnx::NodeProto& n);
// Transpose, MatMul of two activations, Slice and Gather of 3-D values (sequence_3d_import.cc);
// true when it imported node n.
bool import_sequence_3d_node(Importer& im, const onnx::NodeProto& n);
// A View of graph tensor `in` as `to` (the model's shape `model` of the result), named `out`;
// the input itself (an alias) when its dims and shape are already those; returns the graph
// tensor holding the result (sequence_3d_import.cc).
std::string add_view(Importer& im, const std::string& name, const std::string& in,
                     const std::string& out, std::vector<int> to, std::vector<int> model);
// Einsum as a batched matrix product, Transpose of a 5-D or 6-D value, Gather of one index
// along any axis, a Linear over the last axis of a 4-D to 6-D value, Concat along any axis,
// Slice with steps (high_rank_import.cc); true when it imported node n.
bool import_high_rank_node(Importer& im, const onnx::NodeProto& n);
// A decomposition imported as one node, at its output node `out` (sequence_import.cc).
void import_fused(Importer& im, const onnx::NodeProto& out, const FusedOperator& f);
// Gemm / MatMul with a constant right operand as a Gemm node (onnx_import.cc).
GraphNode dense_node(const Importer& im, const onnx::NodeProto& n, bool is_gemm);

}  // namespace vta::compiler::onnx_in
