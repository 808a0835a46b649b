// Helpers shared by the operator definitions of the table (op_def.h): the window rules of
// convolutions and pools, the epilogue's JSON and text forms, the average of a window.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "vta/compiler/codegen/alu_pool.h"
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
// sum / count * 2^rescale, rounded to nearest (ties away from zero), saturated to int8.
int8_t scaled_mean(int64_t sum, int64_t count, int rescale);

// The window of pool layer `l` on input `in` for VTA's ALU (codegen/alu_pool.h).
PoolWindow pool_window(const NetworkLayer& l, const TensorShape& in);
// One operation per window element and output, the input read and the output written once.
HostWorkCount window_host_work(const NetworkLayer& l, const TensorShape& in);

// A scalar attribute of an operator (NetworkLayer::attrs): its JSON key, its value when absent,
// whether it must be an integer and its range.
struct AttrSpec {
  const char* key;
  double fallback;
  bool integer;
  double lo, hi;
};
// The quantization exponent `key` (scale 2^-e), -24..24.
AttrSpec exponent_attr(const char* key, int fallback);

double attr_value(const NetworkLayer& l, const AttrSpec& a);
// Reads the keys present in `j` (numbers; integers where the spec says so).
void read_attrs(const nlohmann::json& j, const std::string& source, NetworkLayer& l,
                const std::vector<AttrSpec>& specs);
void write_attrs(const NetworkLayer& l, const std::vector<AttrSpec>& specs,
                 nlohmann::ordered_json& j);
// Throws "<op> layer 'L': KEY must be ..." for a value out of its range, not finite or not an
// integer where one is needed.
void check_attrs(const NetworkLayer& l, const std::vector<AttrSpec>& specs);
// "key=value key=value" (values as %g).
std::string attrs_text(const NetworkLayer& l, const std::vector<AttrSpec>& specs);

// An operator that computes in float on the host, with its conversions explicit: the int8
// input dequantized (x = q * 2^-in_exp), `f` applied in float to the NCHW view, the result
// quantized (q = round(y * 2^out_exp), ties away from zero, saturated to int8).
NetworkTensor run_in_float(const NetworkTensor& in, int in_exp, int out_exp,
                           const std::function<FloatTensor(const FloatTensor&)>& f);
// How the IR's text form shows those conversions: "dequantize(2^-4) f32 quantize(2^-6)".
std::string float_conversions_text(int in_exp, int out_exp);

}  // namespace vta::compiler::ops
