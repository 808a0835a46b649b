// Helpers shared by the operator definitions of the table (op_def.h): the window rules of
// convolutions and pools, the epilogue's JSON and text forms, the average of a window.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "vta/compiler/ops/op_def.h"
#include "vta/compiler/scheduling/workload.h"

namespace vta::compiler::ops {

// The conv2d parameters of layer `l` on input `in` (all channels, no group split).
Conv2dParams conv_params(const NetworkLayer& l, const TensorShape& in);

// Output shape of a pooling window (maxpool, avgpool); throws Error naming the layer for
// parameters without one (kernel or stride below 1, a negative pad, a pad not smaller than the
// kernel, a kernel beyond the padded input, an output too large).
TensorShape window_shape(const NetworkLayer& l, const TensorShape& in);

// "kernel=KHxKW stride=SHxSW pad=T,L,B,R".
std::string window_attributes(const NetworkLayer& l);
// " epilogue=(...)" or "" for an epilogue that does nothing.
std::string epilogue_attribute(const Epilogue& e);

// The keys of an epilogue as written by Network::to_json.
nlohmann::ordered_json epilogue_json(const Epilogue& e);
// Writes "kernel", "stride" and "pad" as arrays.
void write_window_json(const NetworkLayer& l, nlohmann::ordered_json& j);

// Explicit weights and bias (if any) must have the sizes the layer needs.
void check_weight_sizes(const NetworkLayer& l, uint64_t weights, uint64_t outputs);

// A tensor by name among the earlier ones; throws naming the layer.
const NetworkTensor& named_tensor(const OpContext& ctx, const std::string& name);

// Average pool of `in` with the window of `l` (count_include_pad, rescale): the sum over the
// window's real pixels over their count (or the whole window), times 2^rescale, rounded to
// nearest (ties away from zero), saturated to int8.
NetworkTensor average_pool(const NetworkTensor& in, const NetworkLayer& l);

}  // namespace vta::compiler::ops
