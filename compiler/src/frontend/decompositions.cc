#ifdef VTA_HAVE_ONNX

#include "frontend/decompositions.h"

#include <algorithm>

namespace vta::compiler {

Dataflow::Dataflow(const onnx::GraphProto& graph) : g(graph) {
  for (int i = 0; i < g.node_size(); ++i) {
    for (const std::string& out : g.node(i).output()) {
      producer[out] = i;
    }
    for (const std::string& in : g.node(i).input()) {
      consumers[in].push_back(i);
    }
  }
}

int Dataflow::input_from(int i, int k, const char* op) const {
  if (i < 0 || g.node(i).input_size() <= k) {
    return -1;
  }
  auto it = producer.find(g.node(i).input(k));
  return it != producer.end() && is(it->second, op) ? it->second : -1;
}

int Dataflow::output_to(int i, const char* op) const {
  if (i < 0 || g.node(i).output_size() == 0) {
    return -1;
  }
  auto it = consumers.find(g.node(i).output(0));
  if (it != consumers.end()) {
    for (int c : it->second) {
      if (is(c, op)) {
        return c;
      }
    }
  }
  return -1;
}

bool Dataflow::reads(int i, const std::string& tensor) const {
  for (const std::string& in : g.node(i).input()) {
    if (in == tensor) {
      return true;
    }
  }
  return false;
}

namespace {

// Returns the nodes when every one of `required` was found (>= 0); optional ones are appended
// while found (an optional one after a missing one is dropped: it follows it).
std::vector<int> all_found(std::vector<int> required, const std::vector<int>& optional = {}) {
  for (int i : required) {
    if (i < 0) {
      return {};
    }
  }
  for (int i : optional) {
    if (i < 0) {
      break;
    }
    required.push_back(i);
  }
  return required;
}

// GELU (erf form): x / sqrt(2) (or x * 1/sqrt(2)) -> Erf -> + 1 -> * x -> * 0.5.
std::vector<int> match_gelu(const Dataflow& d, int erf) {
  int scale = d.input_from(erf, 0, "Div");
  scale = scale >= 0 ? scale : d.input_from(erf, 0, "Mul");
  const int add = d.output_to(erf, "Add");
  const int mul = d.output_to(add, "Mul");
  return all_found({scale, erf, add, mul}, {d.output_to(mul, "Mul")});
}

// GELU, tanh approximation: 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))), from the Add
// of x and its cube to the last Mul.
std::vector<int> match_gelu_tanh(const Dataflow& d, int tanh) {
  int scale = d.input_from(tanh, 0, "Mul");
  int inner = d.input_from(scale, 0, "Add");
  inner = inner >= 0 ? inner : d.input_from(scale, 1, "Add");
  const int add = d.output_to(tanh, "Add");
  const int mul = d.output_to(add, "Mul");
  return all_found({inner, scale, tanh, add, mul}, {d.output_to(mul, "Mul")});
}

// LayerNormalization: ReduceMean, Sub, Pow, ReduceMean, Add (eps), Sqrt, Div, then the affine
// Mul and Add.
std::vector<int> match_layer_norm(const Dataflow& d, int sqrt) {
  const int eps = d.input_from(sqrt, 0, "Add");
  const int var = d.input_from(eps, 0, "ReduceMean");
  const int pow = d.input_from(var, 0, "Pow");
  const int sub = d.input_from(pow, 0, "Sub");
  const int mean = d.input_from(sub, 1, "ReduceMean");
  const int div = d.output_to(sqrt, "Div");
  const int gain = d.output_to(div, "Mul");
  return all_found({mean, sub, pow, var, eps, sqrt, div}, {gain, d.output_to(gain, "Add")});
}

// x * gate(x): SiLU (gate Sigmoid) or HardSwish (gate HardSigmoid).
std::vector<int> match_gated(const Dataflow& d, int gate) {
  const int mul = d.output_to(gate, "Mul");
  if (mul < 0 || !d.reads(mul, d.g.node(gate).input(0))) {
    return {};
  }
  return {gate, mul};
}

// F.normalize: x / Expand(Clip(ReduceL2(x), eps)).
std::vector<int> match_l2_normalize(const Dataflow& d, int norm) {
  const int clip = d.output_to(norm, "Clip");
  const int expand = d.output_to(clip, "Expand");
  const int div = d.output_to(expand, "Div");
  if (div < 0 || d.g.node(div).input(0) != d.g.node(norm).input(0) ||
      d.g.node(div).input(1) != d.g.node(expand).output(0)) {
    return {};
  }
  return {norm, clip, expand, div};
}

}  // namespace

std::vector<Decomposition> find_decompositions(const Dataflow& d) {
  std::vector<Decomposition> found;
  auto wellformed = [&](int i) {
    return d.g.node(i).input_size() > 0 && d.g.node(i).output_size() > 0;
  };
  for (int i = 0; i < d.g.node_size(); ++i) {
    if (!wellformed(i)) {
      continue;  // the importer names the node
    }
    const std::string& op = d.g.node(i).op_type();
    Decomposition m;
    if (op == "Erf") {
      m = {DecompositionKind::kGelu, "GELU", match_gelu(d, i)};
    } else if (op == "Tanh") {
      m = {DecompositionKind::kGeluTanh, "GELU, tanh approximation", match_gelu_tanh(d, i)};
    } else if (op == "Sqrt") {
      m = {DecompositionKind::kLayerNorm, "LayerNormalization", match_layer_norm(d, i)};
    } else if (op == "Sigmoid") {
      m = {DecompositionKind::kSilu, "SiLU", match_gated(d, i)};
    } else if (op == "HardSigmoid") {
      m = {DecompositionKind::kHardSwish, "HardSwish", match_gated(d, i)};
    } else if (op == "ReduceL2") {
      m = {DecompositionKind::kL2Normalize, "L2 normalization", match_l2_normalize(d, i)};
    }
    if (!m.nodes.empty() && std::all_of(m.nodes.begin(), m.nodes.end(), wellformed)) {
      found.push_back(std::move(m));
    }
  }
  return found;
}

}  // namespace vta::compiler

#endif
