// Shape inference over a network through the operator table.
#pragma once

#include <map>
#include <string>

#include "vta/compiler/frontend/network.h"
#include "vta/compiler/ops/op_def.h"

namespace vta::compiler {

// The shape of every tensor (the input included); throws vta::Error "network N: ..." naming the
// layer for anything that cannot run (the rules of Network::validate).
std::map<std::string, TensorShape> infer_network_shapes(const Network& net);

}  // namespace vta::compiler
