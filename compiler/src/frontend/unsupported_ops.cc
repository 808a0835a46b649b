#ifdef VTA_HAVE_ONNX

#include "frontend/unsupported_ops.h"

#include "frontend/decompositions.h"

#include <algorithm>
#include <map>
#include <set>
#include <vector>

#include <fmt/format.h>

namespace vta::compiler {

namespace {

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
  for (const Decomposition& m : find_decompositions(d)) {
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

std::string unsupported_operators(const onnx::GraphProto& g, const SupportRule& support,
                                  const std::set<int>& fused) {
  const Dataflow d(g);
  const std::vector<bool> missing_node = missing_nodes(g, support);
  auto missing = [&](int i) { return !fused.count(i) && missing_node[size_t(i)]; };
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
