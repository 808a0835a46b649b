// The IR's text form (ir/module.h).
#include <fmt/format.h>

#include "vta/compiler/codegen/lowered_program.h"
#include "vta/compiler/ir/module.h"

namespace vta::compiler::ir {

std::string TensorType::str() const {
  return fmt::format("{}[{}] NCHW{}", dtype == DType::kF32 ? "f32" : "i8", shape.str(),
                     exp ? fmt::format(" 2^-{}", *exp) : "");
}

std::string PackedLayout::str() const {
  return fmt::format("NCHW{}n{}c c {}->{} k {}->{}", batch, block_in, c, c_padded, k, k_padded);
}

namespace {

std::string window(const GraphNode& g) {
  return fmt::format("kernel={}x{} stride={}x{} pad={},{},{},{}", g.kh, g.kw, g.stride_h,
                     g.stride_w, g.pad_top, g.pad_left, g.pad_bottom, g.pad_right);
}

// A float-graph node's attributes.
std::string node_attributes(const GraphNode& g) {
  switch (g.op) {
    case GraphOp::kConv:
      return fmt::format("{} groups={} weight=f32[{}]", window(g), g.groups, g.weight.shape());
    case GraphOp::kMaxPool:
      return window(g);
    case GraphOp::kAvgPool:
      return fmt::format("{} count_include_pad={}", window(g), g.count_include_pad);
    case GraphOp::kClip:
      return fmt::format("min={:g} max={:g}", g.clip_lo, g.clip_hi);
    case GraphOp::kGemm:
      return fmt::format("weight=f32[{}]", g.weight.shape());
    default:
      return "";
  }
}

std::string operand_list(const std::vector<std::string>& names) {
  std::string s;
  for (const std::string& n : names) {
    s += (s.empty() ? "%" : ", %") + n;
  }
  return s;
}

std::string print_float_graph(const FloatGraph& g) {
  std::string s = fmt::format("module {} (float graph, {} nodes)\n", g.name, g.nodes.size());
  const auto dims = g.infer_shapes(g.name);
  auto type = [&](const std::string& t) {
    const std::vector<int>& d = dims.at(t);
    std::string shape;
    for (int v : d) {
      shape += (shape.empty() ? "" : "x") + std::to_string(v);
    }
    return fmt::format("f32[{}]", shape);
  };
  s += fmt::format("  input %{} : {}\n", g.input, type(g.input));
  for (const GraphNode& n : g.nodes) {
    const std::string attrs = node_attributes(n);
    s += fmt::format("  %{} = {}({}){}{} : {}  // {}\n", n.output, graph_op_name(n.op),
                     operand_list(n.inputs), attrs.empty() ? "" : " ", attrs, type(n.output),
                     n.name);
  }
  return s + fmt::format("  output %{}\n", g.output);
}

// One op's line: result, operator, operands, attributes, type and annotations.
std::string op_line(const Module& m, size_t i) {
  const NetworkLayer& l = m.net->layers[i];
  const OpDef* def = find_op_def(l.op);
  const std::string attrs = def && def->attributes ? def->attributes(l) : std::string();
  std::string s = fmt::format("  %{} = {}({}){}{}", l.name, l.op, operand_list(layer_operands(l)),
                              attrs.empty() ? "" : " ", attrs);
  if (auto t = m.types.find(l.name); t != m.types.end()) {
    s += " : " + t->second.str();
  }
  if (i < m.ops.size()) {
    const OpInfo& info = m.ops[i];
    s += fmt::format(" @{}", placement_name(info.place));
    s += info.place_reason.empty() ? "" : " placed=" + info.place_reason;
    s += info.packed ? fmt::format(" packed=({})", info.packed->str()) : "";
  }
  if (l.schedule) {
    s += fmt::format(" schedule=({}{})", l.schedule->describe(),
                     i < m.ops.size() && m.ops[i].auto_scheduled ? ", auto" : "");
  }
  if (i < m.ops.size() && m.ops[i].lowered) {
    s += fmt::format(" lowered=({})", lowered_summary(*m.ops[i].lowered));
  }
  return s + "\n";
}

std::string print_network(const Module& m) {
  const Network& net = *m.net;
  std::string s = fmt::format("module {} (int8 network, {} ops)\n", net.name, net.layers.size());
  s += fmt::format("  input %{}", net.input_name);
  if (auto t = m.types.find(net.input_name); t != m.types.end()) {
    s += " : " + t->second.str();
  } else {
    s += fmt::format(" : i8[{}x{}x{}x{}]", net.n, net.c, net.h, net.w);
  }
  s += "\n";
  for (size_t i = 0; i < net.layers.size(); ++i) {
    s += op_line(m, i);
  }
  return s + fmt::format("  output %{}\n",
                         net.layers.empty() ? net.input_name : net.layers.back().name);
}

}  // namespace

std::string print_module(const Module& m) {
  if (m.net) {
    return print_network(m);
  }
  if (m.float_graph) {
    return print_float_graph(*m.float_graph);
  }
  return fmt::format("module {} (empty)\n", m.name);
}

}  // namespace vta::compiler::ir
