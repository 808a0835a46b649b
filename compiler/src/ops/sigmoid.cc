// sigmoid: y = 1 / (1 + e^-x) (ONNX Sigmoid), on the host (host_activation.h: its int8 form).
#include <cmath>

#include "ops/host_activation.h"

namespace vta::compiler::ops {

namespace {

double logistic(double x) {
  return 1.0 / (1.0 + std::exp(-x));
}

}  // namespace

const OpDef& sigmoid_op() {
  static const OpDef def = host_activation_op("sigmoid", GraphOp::kSigmoid, logistic);
  return def;
}

}  // namespace vta::compiler::ops
