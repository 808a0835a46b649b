// Shape inference over a network: every layer's output shape from its operator's entry of the
// table, which also validates the layer (Network::validate).
#include "ir/shape_inference.h"

#include <fmt/format.h>

#include "vta/sim/error.h"

namespace vta::compiler {

namespace {

void check_input(const Network& net, const std::string& where) {
  for (auto [field, v] :
       {std::pair<const char*, int>{"n", net.n}, {"c", net.c}, {"h", net.h}, {"w", net.w}}) {
    if (v < 1 || v > kMaxTensorDim) {
      throw Error(
          fmt::format("{}: input {} must be in 1..{} (got {})", where, field, kMaxTensorDim, v));
    }
  }
  if (uint64_t(net.n) * uint64_t(net.c) * uint64_t(net.h) * uint64_t(net.w) > kMaxLayerBytes) {
    throw Error(fmt::format("{}: input {}x{}x{}x{} is larger than {} MiB", where, net.n, net.c,
                            net.h, net.w, kMaxLayerBytes >> 20));
  }
}

}  // namespace

std::map<std::string, TensorShape> infer_network_shapes(const Network& net) {
  const std::string where = fmt::format("network {}", net.name);
  check_input(net, where);
  std::map<std::string, TensorShape> shapes;
  shapes[net.input_name] = TensorShape{net.n, net.c, net.h, net.w};
  for (const NetworkLayer& l : net.layers) {
    auto it = shapes.find(l.input);
    if (it == shapes.end()) {
      throw Error(fmt::format("{}: layer '{}' reads unknown tensor '{}'", where, l.name, l.input));
    }
    if (shapes.count(l.name)) {
      throw Error(fmt::format("{}: layer name '{}' is used twice", where, l.name));
    }
    try {
      const OpDef* def = find_op_def(l.op);
      if (!def) {
        throw Error(fmt::format("layer '{}' has unknown op '{}' (known: {})", l.name, l.op,
                                known_op_names()));
      }
      shapes[l.name] = def->infer_shape(ShapeContext{l, it->second, shapes});
    } catch (const Error& ex) {
      throw Error(fmt::format("{}: {}", where, ex.what()));
    }
  }
  return shapes;
}

void Network::validate() const {
  infer_network_shapes(*this);
}

}  // namespace vta::compiler
