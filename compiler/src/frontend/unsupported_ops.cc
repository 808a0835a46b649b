#ifdef VTA_HAVE_ONNX

#include "frontend/unsupported_ops.h"

#include <algorithm>
#include <map>
#include <set>
#include <vector>

#include <fmt/format.h>

namespace vta::compiler {

namespace {

// The graph's dataflow by node index: who produces a tensor, who reads it.
struct Dataflow {
  const onnx::GraphProto& g;
  std::map<std::string, int> producer;
  std::map<std::string, std::vector<int>> consumers;

  explicit Dataflow(const onnx::GraphProto& graph) : g(graph) {
    for (int i = 0; i < g.node_size(); ++i) {
      for (const std::string& out : g.node(i).output()) {
        producer[out] = i;
      }
      for (const std::string& in : g.node(i).input()) {
        consumers[in].push_back(i);
      }
    }
  }
  bool is(int i, const char* op) const { return i >= 0 && g.node(i).op_type() == op; }
  // The node producing input `k` of node i when it is an `op`, else -1.
  int input_from(int i, int k, const char* op) const {
    if (i < 0 || g.node(i).input_size() <= k) {
      return -1;
    }
    auto it = producer.find(g.node(i).input(k));
    return it != producer.end() && is(it->second, op) ? it->second : -1;
  }
  // The first node reading node i's output that is an `op`, else -1.
  int output_to(int i, const char* op) const {
    if (i < 0) {
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
  // Whether node i (a binary operator) also reads `tensor`.
  bool reads(int i, const std::string& tensor) const {
    for (const std::string& in : g.node(i).input()) {
      if (in == tensor) {
        return true;
      }
    }
    return false;
  }
};

// A matched decomposition: the operator it was and its nodes.
struct Decomposition {
  const char* what = nullptr;
  std::vector<int> nodes;
};

// Returns the nodes when every one of `required` was found (>= 0); optional ones are appended
// when found.
std::vector<int> all_found(std::vector<int> required, const std::vector<int>& optional = {}) {
  for (int i : required) {
    if (i < 0) {
      return {};
    }
  }
  for (int i : optional) {
    if (i >= 0) {
      required.push_back(i);
    }
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

std::vector<Decomposition> decompositions(const Dataflow& d) {
  std::vector<Decomposition> found;
  for (int i = 0; i < d.g.node_size(); ++i) {
    const std::string& op = d.g.node(i).op_type();
    Decomposition m;
    if (op == "Erf") {
      m = {"GELU", match_gelu(d, i)};
    } else if (op == "Sqrt") {
      m = {"LayerNormalization", match_layer_norm(d, i)};
    } else if (op == "Sigmoid") {
      m = {"SiLU", match_gated(d, i)};
    } else if (op == "HardSigmoid") {
      m = {"HardSwish", match_gated(d, i)};
    }
    if (!m.nodes.empty()) {
      found.push_back(std::move(m));
    }
  }
  return found;
}

std::string node_label(const onnx::NodeProto& n) {
  return n.name().empty() ? (n.output_size() ? n.output(0) : n.op_type()) : n.name();
}

// Where a decomposition sits: the common scope of its node names ("/blocks.0/mlp"), else its
// first node's name.
std::string scope_of(const Dataflow& d, const std::vector<int>& nodes) {
  std::string common = node_label(d.g.node(nodes[0]));
  for (int i : nodes) {
    const std::string name = node_label(d.g.node(i));
    size_t n = 0;
    while (n < common.size() && n < name.size() && common[n] == name[n]) {
      ++n;
    }
    common.resize(n);
  }
  const size_t slash = common.rfind('/');
  return slash != std::string::npos && slash > 0 ? common.substr(0, slash)
                                                 : "node '" + node_label(d.g.node(nodes[0])) + "'";
}

// The operator types of a decomposition in graph order, each once.
std::string op_list(const Dataflow& d, std::vector<int> nodes) {
  std::sort(nodes.begin(), nodes.end());
  std::vector<std::string> ops;
  for (int i : nodes) {
    const std::string& op = d.g.node(i).op_type();
    if (std::find(ops.begin(), ops.end(), op) == ops.end()) {
      ops.push_back(op);
    }
  }
  std::string text;
  for (const std::string& op : ops) {
    text += (text.empty() ? "" : ", ") + op;
  }
  return text;
}

// Findings in first-seen order: a key (operator or decomposition), its count and first place.
struct Tally {
  std::vector<std::string> order;
  std::map<std::string, std::pair<int, std::string>> seen;

  void add(const std::string& key, const std::string& first) {
    auto [it, fresh] = seen.emplace(key, std::pair<int, std::string>{0, first});
    if (fresh) {
      order.push_back(key);
    }
    ++it->second.first;
  }
};

// The decompositions holding at least one missing node (each node in one at most).
Tally missing_decompositions(const Dataflow& d, const std::function<bool(int)>& missing,
                             std::set<int>& grouped) {
  Tally found;
  for (const Decomposition& m : decompositions(d)) {
    if (std::none_of(m.nodes.begin(), m.nodes.end(), missing) ||
        std::any_of(m.nodes.begin(), m.nodes.end(), [&](int i) { return grouped.count(i); })) {
      continue;
    }
    grouped.insert(m.nodes.begin(), m.nodes.end());
    const std::string ops = op_list(d, m.nodes);
    found.add(fmt::format("{} ({})", ops, m.what),
              fmt::format("{} at {} ({})", ops, scope_of(d, m.nodes), m.what));
  }
  return found;
}

bool default_domain(const onnx::NodeProto& n) {
  return n.domain().empty() || n.domain() == "ai.onnx";
}

// Per node: whether the importer has no way to handle it.
std::vector<bool> missing_nodes(const onnx::GraphProto& g, const SupportRule& support) {
  std::set<std::string> constants;
  for (const auto& t : g.initializer()) {
    constants.insert(t.name());
  }
  std::vector<bool> missing;
  for (const onnx::NodeProto& n : g.node()) {
    const bool inputs_constant = std::all_of(n.input().begin(), n.input().end(), [&](auto& in) {
      return in.empty() || constants.count(in) > 0;
    });
    const NodeSupport s =
        default_domain(n) ? support(n.op_type(), inputs_constant) : NodeSupport::kUnsupported;
    if (s == NodeSupport::kFolded) {
      constants.insert(n.output().begin(), n.output().end());
    }
    missing.push_back(s == NodeSupport::kUnsupported);
  }
  return missing;
}

}  // namespace

std::string unsupported_operators(const onnx::GraphProto& g, const SupportRule& support) {
  const Dataflow d(g);
  const std::vector<bool> missing_node = missing_nodes(g, support);
  auto missing = [&](int i) { return bool(missing_node[size_t(i)]); };
  std::set<int> grouped;
  const Tally groups = missing_decompositions(d, missing, grouped);
  Tally ops;
  for (int i = 0; i < g.node_size(); ++i) {
    const onnx::NodeProto& n = g.node(i);
    if (!grouped.count(i) && missing(i)) {
      ops.add(default_domain(n) ? n.op_type()
                                : fmt::format("{} (domain '{}')", n.op_type(), n.domain()),
              node_label(n));
    }
  }
  if (ops.order.empty() && groups.order.empty()) {
    return {};
  }
  std::string text = fmt::format(
      "{} unsupported operator(s), every one listed (a decomposition "
      "by what it was):",
      ops.order.size() + groups.order.size());
  for (const std::string& op : ops.order) {
    const auto& [count, first] = ops.seen.at(op);
    text += fmt::format("\n  '{}': {} node{}, first at node '{}'", op, count, count == 1 ? "" : "s",
                        first);
  }
  for (const std::string& key : groups.order) {
    const auto& [count, first] = groups.seen.at(key);
    text += fmt::format("\n  {}{}", first, count == 1 ? "" : fmt::format(": {} times", count));
  }
  return text;
}

}  // namespace vta::compiler

#endif
