// The host activations of the operator table (sigmoid, tanh): y = f(x) per element, on the
// host. In int8 the input has the scale 2^-in_exp and the output 2^-out_exp:
// q_out = round(f(q_in * 2^-in_exp) * 2^out_exp) (ties away from zero), saturated to int8. The
// int8 execution is its own reference (one function, double precision).
#pragma once

#include "ops/op_common.h"

namespace vta::compiler::ops {

// The entry of activation `name` computing `f`, imported from the float graph's `op`.
OpDef host_activation_op(const char* name, GraphOp op, double (*f)(double));

}  // namespace vta::compiler::ops
