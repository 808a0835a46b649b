// The operator table: the registered operators of op_list.inc and their lookup.
#include <fmt/format.h>

#include "vta/compiler/ops/op_def.h"
#include "vta/sim/error.h"

namespace vta::compiler {

namespace ops {
#define VTA_OP(def) const OpDef& def();
#include "op_list.inc"
#undef VTA_OP
}  // namespace ops

const char* placement_name(Placement p) {
  switch (p) {
    case Placement::kHost:
      return "host";
    case Placement::kVta:
      return "vta";
    case Placement::kUnplaced:
      break;
  }
  return "unplaced";
}

std::string TensorShape::str() const {
  return fmt::format("{}x{}x{}x{}", n, c, h, w);
}

const std::vector<const OpDef*>& op_defs() {
  static const std::vector<const OpDef*> defs{
#define VTA_OP(def) &ops::def(),
#include "op_list.inc"
#undef VTA_OP
  };
  return defs;
}

const OpDef* find_op_def(const std::string& name) {
  for (const OpDef* d : op_defs()) {
    if (d->name == name) {
      return d;
    }
  }
  return nullptr;
}

std::string known_op_names() {
  std::string list;
  for (const OpDef* d : op_defs()) {
    list += (list.empty() ? "" : ", ") + d->name;
  }
  return list;
}

const OpDef& op_def(const std::string& name) {
  if (const OpDef* d = find_op_def(name)) {
    return *d;
  }
  throw Error(fmt::format("unknown op '{}' (known: {})", name, known_op_names()));
}

const OpDef& op_def_for_graph_op(GraphOp op) {
  for (const OpDef* d : op_defs()) {
    if (d->from_graph_op == op) {
      return *d;
    }
  }
  throw Error(
      fmt::format("no network operator implements the float-graph operator {}", graph_op_name(op)));
}

std::vector<std::string> layer_operands(const NetworkLayer& l) {
  if (!l.inputs.empty()) {
    return l.inputs;
  }
  std::vector<std::string> in{l.input};
  if (!l.residual.empty()) {
    in.push_back(l.residual);
  }
  return in;
}

bool NetworkLayer::on_vta() const {
  const OpDef* d = find_op_def(op);
  return d && d->place && d->place(*this) == Placement::kVta;
}

}  // namespace vta::compiler
