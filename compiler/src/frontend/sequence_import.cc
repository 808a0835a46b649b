// The ONNX operators of MLPs and transformers: Reshape / Flatten as a view, Transpose of a 4-D
// value, Softmax, LayerNormalization, MatMul of two activations, and the arithmetic of an
// activation with a constant (a Linear's bias added after its MatMul, a scalar's Add, Sub, Mul,
// Div). Every value is the NCHW view of the model's tensor (float_graph.h).
#ifdef VTA_HAVE_ONNX

#include <algorithm>
#include <numeric>

#include "frontend/onnx_importer.h"
#include "frontend/onnx_index_rules.h"

namespace vta::compiler::onnx_in {

namespace {

// Node n's activation input `index` (not a constant), resolved.
std::string activation(const Importer& im, const onnx::NodeProto& n, int index) {
  const std::string& in = n.input(index);
  if (im.constants.count(in) || im.int_constants.count(in)) {
    im.fail(n, fmt::format("input '{}' is a constant; an activation is needed here", in));
  }
  return im.resolve(in);
}

// The view axis of the model's axis `axis` of input 0; fails for one no view axis holds.
int feature_axis(const Importer& im, const onnx::NodeProto& n, int axis) {
  const int rank = int(im.shape_of(n, n.input(0)).size());
  const int v = view_axis(rank, axis);
  if (v < 0) {
    im.fail(n,
            fmt::format("axis {} of a {}-D tensor: only the last axis of a matrix or a sequence, "
                        "or any axis of a 4-D tensor, is supported",
                        axis, rank));
  }
  return v;
}

GraphNode unary(const Importer& im, const onnx::NodeProto& n, GraphOp op) {
  GraphNode g;
  g.op = op;
  g.name = node_name(n);
  g.inputs = {activation(im, n, 0)};
  g.output = n.output(0);
  return g;
}

// The target of a Reshape (ONNX's rules, onnx_index_rules.h) or of a Flatten (axis).
std::vector<int> view_target(const Importer& im, const onnx::NodeProto& n) {
  const std::vector<int>& in = im.shape_of(n, n.input(0));
  std::vector<int64_t> target;
  if (n.op_type() == "Flatten") {
    const int64_t axis = attr_int(im, n, "axis", 1, 0, int64_t(in.size()));
    target = {std::accumulate(in.begin(), in.begin() + axis, int64_t{1}, std::multiplies<>()), -1};
  } else {
    auto it = im.int_constants.find(n.input_size() > 1 ? n.input(1) : "");
    if (it == im.int_constants.end()) {
      im.fail(n, "the shape must be a constant");
    }
    target = it->second;
  }
  OnnxShape out;
  if (std::string e = reshape_target(OnnxShape(in.begin(), in.end()), target,
                                     attr_int(im, n, "allowzero", 0, 0, 1), out);
      !e.empty()) {
    im.fail(n, e);
  }
  return std::vector<int>(out.begin(), out.end());
}

void view_node(Importer& im, const onnx::NodeProto& n) {
  const std::vector<int> target = view_target(im, n);
  GraphNode g = unary(im, n, GraphOp::kView);
  g.to_dims = nchw_view(target, fmt::format("node '{}' ({}): its output", g.name, n.op_type()));
  add_node(im, std::move(g), target);
}

void permute_node(Importer& im, const onnx::NodeProto& n) {
  const size_t rank = im.shape_of(n, n.input(0)).size();
  if (rank != 4) {
    im.fail(n, fmt::format("a Transpose of a {}-D tensor is not supported (4-D only)", rank));
  }
  GraphNode g = unary(im, n, GraphOp::kPermute);
  g.perm = {3, 2, 1, 0};  // ONNX's default: the axes reversed
  if (const auto* a = find_attr(n, "perm")) {
    g.perm.assign(a->ints().begin(), a->ints().end());
  }
  if (g.perm.size() != 4) {
    im.fail(n, fmt::format("perm has {} values for a 4-D tensor", g.perm.size()));
  }
  add_node(im, std::move(g));
}

void layer_norm_node(Importer& im, const onnx::NodeProto& n) {
  const int rank = int(im.shape_of(n, n.input(0)).size());
  const int axis = int(attr_int(im, n, "axis", -1, -rank, rank - 1));
  if (axis != -1 && axis != rank - 1) {
    im.fail(n, "only the normalisation over the last axis is supported");
  }
  GraphNode g = unary(im, n, GraphOp::kLayerNorm);
  g.axis = feature_axis(im, n, -1);
  g.eps = attr_float(n, "epsilon", 1e-5f);
  g.weight = constant_input(im, n, 1, "scale");
  g.bias = n.input_size() > 2 && !n.input(2).empty()
               ? constant_input(im, n, 2, "bias")
               : FloatTensor{g.weight.dims, std::vector<float>(g.weight.size(), 0.0f)};
  add_node(im, std::move(g));
}

void batch_matmul_node(Importer& im, const onnx::NodeProto& n) {
  for (int i = 0; i < 2; ++i) {
    const size_t rank = im.shape_of(n, n.input(i)).size();
    if (rank != 4) {
      im.fail(n, fmt::format("a MatMul of two activations needs 4-D operands ([N, heads, rows, "
                             "columns]); '{}' has {} dims",
                             n.input(i), rank));
    }
  }
  GraphNode g = unary(im, n, GraphOp::kBatchMatMul);
  g.inputs.push_back(activation(im, n, 1));
  add_node(im, std::move(g));
}

// The node producing x, looking through a View of a Gemm read by that View alone (a Linear over
// the last axis of a 4-D to 6-D value: high_rank_import.cc).
auto gemm_producer(const Importer& im, const std::string& x) {
  auto p = im.producer.find(x);
  if (p == im.producer.end() || im.graph.nodes[p->second].op != GraphOp::kView) {
    return p;
  }
  const std::string& in = im.graph.nodes[p->second].inputs[0];
  auto q = im.producer.find(in);
  const auto readers = std::count_if(im.graph.nodes.begin(), im.graph.nodes.end(), [&](auto& g) {
    return std::find(g.inputs.begin(), g.inputs.end(), in) != g.inputs.end();
  });
  const bool gemm = q != im.producer.end() && im.graph.nodes[q->second].op == GraphOp::kGemm;
  // the units still the last axis of the viewed value
  return gemm && readers == 1 && im.shape.count(x) &&
                 im.shape.at(x).back() == im.graph.nodes[q->second].weight.dims[0]
             ? q
             : p;
}

// A Linear's bias added after its MatMul: folded into the Gemm when the Gemm's output is read
// by this Add alone.
// A Linear of rows viewed back (high_rank_import.cc) folds its bias the same way.
bool fold_bias(Importer& im, const onnx::NodeProto& n, const std::string& x, const FloatTensor& c) {
  auto p = gemm_producer(im, x);
  if (p == im.producer.end() || im.consumers[x] != 1) {
    return false;
  }
  if (const GraphNode& v = im.graph.nodes[p->second]; v.op == GraphOp::kView) {
    auto q = im.producer.find(v.inputs[0]);
    if (q == im.producer.end() || im.graph.nodes[q->second].op != GraphOp::kGemm) {
      return false;
    }
    p = q;  // the view's input is its own (no ONNX node reads it)
  }
  GraphNode& gemm = im.graph.nodes[p->second];
  if (gemm.op != GraphOp::kGemm || c.size() != gemm.bias.size() || c.size() == 1) {
    return false;
  }
  for (size_t i = 0; i < c.size(); ++i) {
    gemm.bias.data[i] += c.data[i];
  }
  im.alias[n.output(0)] = x;
  return true;
}

// The values of constant c when, broadcast to the shape `s` of a value of 4 dims or more, it
// varies along the view's channel axis alone (Swin v2's logit scale [heads, 1, 1] of the
// attention [B, heads, S, S]): one value per channel; else empty.
std::vector<float> channel_values(const std::vector<int>& s, const FloatTensor& c) {
  if (s.size() < 4 || c.dims.size() > s.size()) {
    return {};
  }
  const size_t axis = s.size() - 3;  // the view's channels (float_graph.h: nchw_view)
  std::vector<int> aligned(s.size(), 1);
  std::copy(c.dims.begin(), c.dims.end(), aligned.begin() + long(s.size() - c.dims.size()));
  for (size_t a = 0; a < s.size(); ++a) {
    if (aligned[a] != 1 && (a != axis || aligned[a] != s[a])) {
      return {};
    }
  }
  return aligned[axis] == s[axis] ? c.data : std::vector<float>{};
}

// x op c (or c op x) with a constant c: a folded bias, or x * alpha + beta for a scalar c, or x
// times (divided by) one constant per channel of the view.
bool constant_arithmetic(Importer& im, const onnx::NodeProto& n) {
  const std::string& t = n.op_type();
  if (n.input_size() != 2) {
    return false;
  }
  const int ci = im.constants.count(n.input(1)) ? 1 : im.constants.count(n.input(0)) ? 0 : -1;
  if (ci < 0) {
    return false;
  }
  const FloatTensor& c = im.constants.at(n.input(ci));
  GraphNode g;
  g.op = GraphOp::kScale;
  g.name = node_name(n);
  g.inputs = {activation(im, n, 1 - ci)};
  g.output = n.output(0);
  if (t == "Add" && fold_bias(im, n, g.inputs[0], c)) {
    return true;
  }
  if (std::vector<float> per = channel_values(im.shape_of(n, n.input(1 - ci)), c);
      c.size() > 1 && !per.empty() && (t == "Mul" || (t == "Div" && ci == 1))) {
    for (float& v : per) {
      v = t == "Mul" ? v : 1.0f / v;
    }
    g.alpha = 1, g.beta = 0;
    g.weight = FloatTensor{{int(per.size())}, std::move(per)};
    add_node(im, std::move(g));
    return true;
  }
  if (c.size() != 1) {
    im.fail(n, fmt::format("constant '{}' of {} values: only a scalar, a Linear's bias after "
                           "its MatMul, or a factor per channel, is supported",
                           n.input(ci), c.size()));
  }
  const float v = c.data[0];
  g.alpha = 1, g.beta = 0;
  if (t == "Add" || t == "Sub") {
    g.alpha = t == "Sub" && ci == 0 ? -1.0f : 1.0f;  // c - x
    g.beta = t == "Sub" && ci == 1 ? -v : v;
  } else if (t == "Mul" || ci == 1) {
    g.alpha = t == "Mul" ? v : 1.0f / v;
  } else {
    im.fail(n, "a constant divided by an activation is not supported");
  }
  add_node(im, std::move(g));
  return true;
}

}  // namespace

bool import_sequence_node(Importer& im, const onnx::NodeProto& n) {
  const std::string& t = n.op_type();
  if (t == "Reshape" || t == "Flatten") {
    view_node(im, n);
  } else if (t == "Transpose") {
    permute_node(im, n);
  } else if (t == "Softmax") {
    GraphNode g = unary(im, n, GraphOp::kSoftmax);
    g.axis = feature_axis(im, n, int(attr_int(im, n, "axis", -1, -4, 3)));
    add_node(im, std::move(g));
  } else if (t == "LayerNormalization") {
    layer_norm_node(im, n);
  } else if (t == "MatMul" && n.input_size() == 2 && !im.constants.count(n.input(1))) {
    batch_matmul_node(im, n);
  } else if (t == "Add" || t == "Sub" || t == "Mul" || t == "Div") {
    if (constant_arithmetic(im, n)) {
      return true;
    }
    if (t == "Sub" || t == "Div") {
      im.fail(n, fmt::format("{} of two activations is not supported (only with a constant)", t));
    }
    return false;
  } else {
    return false;
  }
  return true;
}

void import_fused(Importer& im, const onnx::NodeProto& out, const FusedOperator& f) {
  GraphNode g = f.node;
  const std::string x = g.inputs[0];
  if (im.constants.count(x)) {
    im.fail(out, fmt::format("{} of the constant '{}'", graph_op_name(g.op), x));
  }
  g.inputs = {im.resolve(x)};
  if (im.channels_last.count(x)) {  // over the last axis: the source's channels
    if (g.op == GraphOp::kLayerNorm && g.axis != -1 && g.axis != 3) {
      im.fail(out, "only the normalisation over the last axis is supported");
    }
    g.axis = 1;
    im.channels_last.insert(g.output);
    return add_node(im, std::move(g));
  }
  if (g.op == GraphOp::kLayerNorm) {
    const int rank = int(im.shape_of(out, x).size());
    if (g.axis != -1 && g.axis != rank - 1) {
      im.fail(out, "only the normalisation over the last axis is supported");
    }
    g.axis = view_axis(rank, -1);
  }
  add_node(im, std::move(g));
}

}  // namespace vta::compiler::onnx_in

#endif
