#include "ops/op_common.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <tuple>

#include <fmt/format.h>

#include "ops/lane_kernels.h"
#include "vta/sim/error.h"

namespace vta::compiler::ops {

Conv2dParams conv_params(const NetworkLayer& l, const TensorShape& in) {
  Conv2dParams p;
  p.name = l.name;
  p.n = in.n, p.c = in.c, p.h = in.h, p.w = in.w, p.k = l.k, p.kh = l.kh, p.kw = l.kw;
  p.stride_h = l.stride_h, p.stride_w = l.stride_w;
  p.pad_top = l.pad_top, p.pad_left = l.pad_left, p.pad_bottom = l.pad_bottom;
  p.pad_right = l.pad_right;
  return p;
}

namespace {

void check_window_fields(const NetworkLayer& l) {
  auto at_least = [&](const char* field, int v, int min) {
    if (v < min) {
      throw Error(
          fmt::format("{} layer '{}': {} must be >= {} (got {})", l.op, l.name, field, min, v));
    }
  };
  at_least("kernel height", l.kh, 1);
  at_least("kernel width", l.kw, 1);
  at_least("stride_h", l.stride_h, 1);
  at_least("stride_w", l.stride_w, 1);
  at_least("pad_top", l.pad_top, 0);
  at_least("pad_left", l.pad_left, 0);
  at_least("pad_bottom", l.pad_bottom, 0);
  at_least("pad_right", l.pad_right, 0);
}

void check_window_output(const NetworkLayer& l, const TensorShape& out) {
  if (out.h > kMaxTensorDim || out.w > kMaxTensorDim) {
    throw Error(fmt::format("{} layer '{}': output {} exceeds {} per dimension", l.op, l.name,
                            out.str(), kMaxTensorDim));
  }
  if (uint64_t(out.n) * uint64_t(out.c) * uint64_t(out.h) * uint64_t(out.w) > kMaxLayerBytes) {
    throw Error(fmt::format("{} layer '{}': output {} is larger than {} MiB", l.op, l.name,
                            out.str(), kMaxLayerBytes >> 20));
  }
}

}  // namespace

TensorShape window_shape(const NetworkLayer& l, const TensorShape& in) {
  check_window_fields(l);
  // 64-bit: the sums of user-given values must not wrap.
  const int64_t ph = int64_t(in.h) + l.pad_top + l.pad_bottom;
  const int64_t pw = int64_t(in.w) + l.pad_left + l.pad_right;
  if (l.kh > ph || l.kw > pw) {
    throw Error(fmt::format("{} layer '{}': kernel {}x{} exceeds the padded input {}x{}", l.op,
                            l.name, l.kh, l.kw, ph, pw));
  }
  // A window that is padding only has no maximum; this also bounds the output size.
  for (auto [field, pad, kernel] : {std::tuple<const char*, int, int>{"pad_top", l.pad_top, l.kh},
                                    {"pad_bottom", l.pad_bottom, l.kh},
                                    {"pad_left", l.pad_left, l.kw},
                                    {"pad_right", l.pad_right, l.kw}}) {
    if (pad >= kernel) {
      throw Error(fmt::format("{} layer '{}': {} = {} must be smaller than the kernel ({})", l.op,
                              l.name, field, pad, kernel));
    }
  }
  const TensorShape out{in.n, in.c,
                        int(window_output_size(in.h, l.pad_top, l.pad_bottom, l.kh, l.stride_h)),
                        int(window_output_size(in.w, l.pad_left, l.pad_right, l.kw, l.stride_w))};
  check_window_output(l, out);
  return out;
}

std::string window_attributes(const NetworkLayer& l) {
  return fmt::format("kernel={}x{} stride={}x{} pad={},{},{},{}", l.kh, l.kw, l.stride_h,
                     l.stride_w, l.pad_top, l.pad_left, l.pad_bottom, l.pad_right);
}

std::string epilogue_attribute(const Epilogue& e) {
  const std::string d = e.describe();
  return d == "none" ? std::string() : fmt::format(" epilogue=({})", d);
}

nlohmann::ordered_json epilogue_json(const Epilogue& ep) {
  nlohmann::ordered_json e = nlohmann::ordered_json::object();
  if (ep.bias) {
    e["bias"] = true;
  }
  if (ep.per_channel()) {
    e["shift"] = ep.shifts;
  } else if (ep.shift) {
    e["shift"] = ep.shift;
  }
  if (ep.residual_shift) {
    e["residual_shift"] = ep.residual_shift;
  }
  if (ep.relu) {
    e["relu"] = true;
  }
  if (ep.clip_lo) {
    e["clip_lo"] = *ep.clip_lo;
  }
  if (ep.clip_hi) {
    e["clip_hi"] = *ep.clip_hi;
  }
  return e;
}

void write_window_json(const NetworkLayer& l, nlohmann::ordered_json& j) {
  j["kernel"] = {l.kh, l.kw};
  j["stride"] = {l.stride_h, l.stride_w};
  j["pad"] = {l.pad_top, l.pad_left, l.pad_bottom, l.pad_right};
}

void check_weight_sizes(const NetworkLayer& l, uint64_t weights, uint64_t outputs) {
  if (l.weights && l.weights->size() != weights) {
    throw Error(fmt::format("layer '{}' carries {} weights but needs {}", l.name, l.weights->size(),
                            weights));
  }
  if (l.weights_i16 && l.weights_i16->size() != weights) {
    throw Error(fmt::format("layer '{}' carries {} int16 weights but needs {}", l.name,
                            l.weights_i16->size(), weights));
  }
  if ((l.weights || l.weights_i16) && l.epilogue.bias && (!l.bias || l.bias->size() != outputs)) {
    throw Error(fmt::format("layer '{}' carries {} bias values but needs {}", l.name,
                            l.bias ? l.bias->size() : 0, outputs));
  }
  l.epilogue.check_channels(outputs, fmt::format("layer '{}'", l.name));
}

const NetworkTensor& named_tensor(const OpContext& ctx, const std::string& name) {
  auto it = ctx.tensors.find(name);
  if (it == ctx.tensors.end()) {
    throw Error(fmt::format("network {}: layer '{}' reads unknown tensor '{}'", ctx.net.name,
                            ctx.layer.name, name));
  }
  return it->second;
}

int8_t scaled_mean(int64_t sum, int64_t count, int rescale) {
  return int8_t(scaled_mean_in(sum, count, rescale, -128, 127));
}

PoolWindow pool_window(const NetworkLayer& l, const TensorShape& in) {
  const TensorShape s = window_shape(l, in);
  PoolWindow p;
  p.n = in.n, p.c = in.c, p.h = in.h, p.w = in.w;
  p.kh = l.kh, p.kw = l.kw, p.stride_h = l.stride_h, p.stride_w = l.stride_w;
  p.pad_top = l.pad_top, p.pad_left = l.pad_left;
  p.oh = s.h, p.ow = s.w;
  return p;
}

HostWorkCount window_host_work(const NetworkLayer& l, const TensorShape& in) {
  const TensorShape s = window_shape(l, in);
  const uint64_t outs = uint64_t(s.n) * uint64_t(s.c) * uint64_t(s.h) * uint64_t(s.w);
  const uint64_t ins = uint64_t(in.n) * uint64_t(in.c) * uint64_t(in.h) * uint64_t(in.w);
  return {HostWork::kElementwise, outs * uint64_t(l.kh) * uint64_t(l.kw), ins + outs};
}

NetworkTensor average_pool(const NetworkTensor& in, const NetworkLayer& l) {
  return average_pool_lanes(in, l, -128, 127);
}

AttrSpec exponent_attr(const char* key, int fallback) {
  return AttrSpec{key, double(fallback), true, -24, 24};
}

double attr_value(const NetworkLayer& l, const AttrSpec& a) {
  auto it = l.attrs.find(a.key);
  return it == l.attrs.end() ? a.fallback : it->second;
}

void read_attrs(const nlohmann::json& j, const std::string& source, NetworkLayer& l,
                const std::vector<AttrSpec>& specs) {
  for (const AttrSpec& a : specs) {
    if (!j.contains(a.key)) {
      continue;
    }
    if (a.integer ? !j[a.key].is_number_integer() : !j[a.key].is_number()) {
      throw Error(fmt::format("{}: layer '{}' key '{}' must be {}", source, l.name, a.key,
                              a.integer ? "an integer" : "a number"));
    }
    l.attrs[a.key] = j[a.key].get<double>();
  }
}

void write_attrs(const NetworkLayer& l, const std::vector<AttrSpec>& specs,
                 nlohmann::ordered_json& j) {
  for (const AttrSpec& a : specs) {
    const double v = attr_value(l, a);
    if (a.integer) {
      j[a.key] = int(v);
    } else {
      j[a.key] = v;
    }
  }
}

void check_attrs(const NetworkLayer& l, const std::vector<AttrSpec>& specs) {
  for (const AttrSpec& a : specs) {
    const double v = attr_value(l, a);
    if (!std::isfinite(v) || v < a.lo || v > a.hi || (a.integer && v != std::floor(v))) {
      throw Error(fmt::format("{} layer '{}': {} must be {} in {:g}..{:g} (got {:g})", l.op, l.name,
                              a.key, a.integer ? "an integer" : "a number", a.lo, a.hi, v));
    }
  }
}

std::string attrs_text(const NetworkLayer& l, const std::vector<AttrSpec>& specs) {
  std::string s;
  for (const AttrSpec& a : specs) {
    s += fmt::format("{}{}={:g}", s.empty() ? "" : " ", a.key, attr_value(l, a));
  }
  return s;
}

NetworkTensor run_in_float(const NetworkTensor& in, int in_exp, int out_exp,
                           const std::function<FloatTensor(const FloatTensor&)>& f) {
  return run_in_float_lanes(in, in_exp, out_exp, f, -128, 127);
}

std::string float_conversions_text(int in_exp, int out_exp) {
  return fmt::format("dequantize(2^-{}) f32 quantize(2^-{})", in_exp, out_exp);
}

}  // namespace vta::compiler::ops
