// tanh: y = tanh(x) (ONNX Tanh; MaxViT's classifier), on the host (host_activation.h: its int8
// form).
#include <cmath>

#include "ops/host_activation.h"

namespace vta::compiler::ops {

namespace {

double hyperbolic_tangent(double x) {
  return std::tanh(x);
}

}  // namespace

const OpDef& tanh_op() {
  static const OpDef def = host_activation_op("tanh", GraphOp::kTanh, hyperbolic_tangent);
  return def;
}

}  // namespace vta::compiler::ops
