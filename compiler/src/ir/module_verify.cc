// The IR's invariants (ir/module.h), checked by the pass manager after every pass.
#include <fmt/format.h>

#include "ir/shape_inference.h"
#include "vta/compiler/ir/module.h"
#include "vta/sim/error.h"

namespace vta::compiler::ir {

namespace {

// Every value has a type of the inferred shape, and nothing else has one.
void verify_types(const Module& m, const std::map<std::string, TensorShape>& shapes) {
  if (m.types.empty()) {
    return;
  }
  for (const auto& [name, shape] : shapes) {
    auto t = m.types.find(name);
    if (t == m.types.end()) {
      throw Error(fmt::format("value '%{}' has no type", name));
    }
    if (t->second.shape != shape) {
      throw Error(fmt::format("value '%{}' has type {} but its op gives {}", name, t->second.str(),
                              shape.str()));
    }
  }
  if (m.types.size() != shapes.size()) {
    throw Error(fmt::format("{} types for {} values", m.types.size(), shapes.size()));
  }
}

// Placements the operator can run in; packed layouts and lowered programs only on VTA ops.
void verify_ops(const Module& m) {
  const Network& net = *m.net;
  if (m.ops.empty()) {
    return;
  }
  if (m.ops.size() != net.layers.size()) {
    throw Error(fmt::format("{} op annotations for {} ops", m.ops.size(), net.layers.size()));
  }
  for (size_t i = 0; i < m.ops.size(); ++i) {
    const NetworkLayer& l = net.layers[i];
    const OpDef& def = op_def(l.op);
    const OpInfo& info = m.ops[i];
    const bool runnable = (info.place == Placement::kVta && def.vta.run) ||
                          (info.place == Placement::kHost && def.run_host);
    if (!runnable) {
      throw Error(fmt::format("op '%{}' ({}) cannot run placed {}", l.name, l.op,
                              placement_name(info.place)));
    }
    if (info.packed && info.place != Placement::kVta) {
      throw Error(fmt::format("host op '%{}' ({}) has a packed layout", l.name, l.op));
    }
    if (info.lowered && info.place != Placement::kVta) {
      throw Error(fmt::format("host op '%{}' ({}) has a lowered VTA program", l.name, l.op));
    }
  }
}

}  // namespace

void verify_module(const Module& m) {
  if (m.float_graph && m.net) {
    throw Error(fmt::format("module {} holds both a float graph and a network", m.name));
  }
  if (m.float_graph) {
    m.float_graph->validate(m.name);
    return;
  }
  if (!m.net) {
    return;
  }
  const auto shapes = infer_network_shapes(*m.net);
  verify_types(m, shapes);
  verify_ops(m);
}

}  // namespace vta::compiler::ir
