#ifdef VTA_HAVE_ONNX

#include "frontend/fused_import.h"

#include <cmath>

#include "frontend/decompositions.h"

namespace vta::compiler {

namespace {

// The scalar constant among node i's inputs (the one that is not `activation`), or NaN.
float scalar_operand(const Dataflow& d, const std::map<std::string, FloatTensor>& constants, int i,
                     const std::string& activation) {
  for (const std::string& in : d.g.node(i).input()) {
    auto it = constants.find(in);
    if (in != activation && it != constants.end() && it->second.size() == 1) {
      return it->second.data[0];
    }
  }
  return NAN;
}

bool near(float v, double want) {
  return std::fabs(double(v) - want) <= 1e-4 * std::fabs(want);
}

// The values of node i's inner nodes are read by no node outside `nodes` (and are not the
// graph's output).
bool self_contained(const Dataflow& d, const std::vector<int>& nodes, int output_node) {
  const std::set<int> inside(nodes.begin(), nodes.end());
  for (int i : nodes) {
    if (i == output_node) {
      continue;
    }
    for (const auto& out : d.g.output()) {
      if (out.name() == d.g.node(i).output(0)) {
        return false;
      }
    }
    auto it = d.consumers.find(d.g.node(i).output(0));
    for (int c : it == d.consumers.end() ? std::vector<int>() : it->second) {
      if (!inside.count(c)) {
        return false;
      }
    }
  }
  return true;
}

// GELU: scale, Erf, Add, Mul (x times), Mul 0.5; nodes as match_gelu gives them.
bool gelu_operator(const Dataflow& d, const std::map<std::string, FloatTensor>& c,
                   const std::vector<int>& n, GraphNode& g) {
  if (n.size() != 5) {
    return false;
  }
  const std::string& x = d.g.node(n[0]).input(0);
  const float s = scalar_operand(d, c, n[0], x);
  const bool divides = d.is(n[0], "Div");
  if (!(divides ? near(s, std::sqrt(2.0)) : near(s, std::sqrt(0.5))) ||
      !near(scalar_operand(d, c, n[2], d.g.node(n[1]).output(0)), 1.0) || !d.reads(n[3], x) ||
      !near(scalar_operand(d, c, n[4], d.g.node(n[3]).output(0)), 0.5)) {
    return false;
  }
  g.op = GraphOp::kGelu;
  g.inputs = {x};
  return true;
}

// The single axis of a ReduceMean (attribute 'axes'), or 0 for none (never a feature axis).
int reduced_axis(const onnx::NodeProto& n) {
  for (const auto& a : n.attribute()) {
    if (a.name() == "axes" && a.ints_size() == 1) {
      return int(a.ints(0));
    }
  }
  return 0;
}

// LayerNormalization: mean, Sub, Pow 2, mean, Add eps, Sqrt, Div[, Mul gain[, Add bias]].
bool layer_norm_operator(const Dataflow& d, const std::map<std::string, FloatTensor>& c,
                         const std::vector<int>& n, GraphNode& g) {
  const std::string& x = d.g.node(n[0]).input(0);
  const int axis = reduced_axis(d.g.node(n[0]));
  const float eps = scalar_operand(d, c, n[4], d.g.node(n[3]).output(0));
  if (d.g.node(n[1]).input(0) != x || axis != reduced_axis(d.g.node(n[3])) ||
      !near(scalar_operand(d, c, n[2], d.g.node(n[1]).output(0)), 2.0) || !(eps >= 0) ||
      d.g.node(n[6]).input(0) != d.g.node(n[1]).output(0)) {
    return false;
  }
  auto vector_operand = [&](int i, const std::string& activation, FloatTensor& out) {
    for (const std::string& in : d.g.node(i).input()) {
      if (in != activation && c.count(in)) {
        out = c.at(in);
        return true;
      }
    }
    return false;
  };
  g.op = GraphOp::kLayerNorm;
  g.inputs = {x};
  g.axis = axis;
  g.eps = eps;
  if (n.size() == 9) {
    FloatTensor gain, bias;
    if (!vector_operand(n[7], d.g.node(n[6]).output(0), gain) ||
        !vector_operand(n[8], d.g.node(n[7]).output(0), bias) || gain.size() != bias.size()) {
      return false;
    }
    g.weight = std::move(gain), g.bias = std::move(bias);
  }
  return n.size() == 7 || n.size() == 9;
}

// L2 normalisation over one axis (keepdims), the Clip's lower bound its eps, no upper bound: a
// LayerNorm in its L2 form.
bool l2_normalize_operator(const Dataflow& d, const std::map<std::string, FloatTensor>& c,
                           const std::vector<int>& n, GraphNode& g) {
  const onnx::NodeProto& norm = d.g.node(n[0]);
  const onnx::NodeProto& clip = d.g.node(n[1]);
  bool keepdims = true;
  for (const auto& a : norm.attribute()) {
    keepdims = a.name() == "keepdims" ? a.i() != 0 : keepdims;
  }
  auto lo = c.find(clip.input_size() > 1 ? clip.input(1) : "");
  if (!keepdims || lo == c.end() || lo->second.size() != 1 || !(lo->second.data[0] >= 0) ||
      (clip.input_size() > 2 && !clip.input(2).empty()) || reduced_axis(norm) == 0) {
    return false;
  }
  g.op = GraphOp::kLayerNorm;
  g.l2 = true;
  g.inputs = {norm.input(0)};
  g.axis = reduced_axis(norm);
  g.eps = lo->second.data[0];
  return true;
}

}  // namespace

std::vector<FusedOperator> fused_operators(const onnx::GraphProto& g,
                                           const std::map<std::string, FloatTensor>& constants) {
  const Dataflow d(g);
  std::vector<FusedOperator> found;
  for (const Decomposition& m : find_decompositions(d)) {
    FusedOperator f;
    f.output_node = m.nodes.back();
    const bool ok = m.kind == DecompositionKind::kGelu
                        ? gelu_operator(d, constants, m.nodes, f.node)
                    : m.kind == DecompositionKind::kL2Normalize
                        ? l2_normalize_operator(d, constants, m.nodes, f.node)
                        : m.kind == DecompositionKind::kLayerNorm &&
                              layer_norm_operator(d, constants, m.nodes, f.node);
    if (!ok || !self_contained(d, m.nodes, f.output_node)) {
      continue;
    }
    const onnx::NodeProto& out = g.node(f.output_node);
    f.node.name = out.name().empty() ? out.output(0) : out.name();
    f.node.output = out.output(0);
    f.nodes.insert(m.nodes.begin(), m.nodes.end());
    found.push_back(std::move(f));
  }
  return found;
}

}  // namespace vta::compiler

#endif
