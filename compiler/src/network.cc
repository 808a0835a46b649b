#include "vta/compiler/network.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <random>
#include <tuple>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "vta/compiler/auto_schedule.h"
#include "vta/compiler/fast_reference.h"
#include "vta/compiler/json_file.h"
#include "vta/compiler/reference_cache.h"
#include "vta/sim/error.h"
#include "vta/sim/json_read.h"

namespace vta::compiler {

namespace {

using Tensor = NetworkTensor;

// Reads an int or [a, b] pair; `what` names the key in errors.
void read_pair(const nlohmann::json& v, const std::string& what, int& a, int& b) {
  if (v.is_array() && v.size() == 2) {
    a = json_int32(v[0], what + "[0]"), b = json_int32(v[1], what + "[1]");
  } else {
    a = b = json_int32(v, what);
  }
}

void read_pad(const nlohmann::json& v, const std::string& what, NetworkLayer& l) {
  auto at = [&](size_t k) { return json_int32(v[k], fmt::format("{}[{}]", what, k)); };
  if (v.is_array() && v.size() == 4) {
    l.pad_top = at(0), l.pad_left = at(1);
    l.pad_bottom = at(2), l.pad_right = at(3);
  } else if (v.is_array() && v.size() == 2) {
    l.pad_top = l.pad_bottom = at(0);
    l.pad_left = l.pad_right = at(1);
  } else {
    l.pad_top = l.pad_left = l.pad_bottom = l.pad_right = json_int32(v, what);
  }
}

struct Shape {
  int n = 0, c = 0, h = 0, w = 0;
  std::string str() const { return fmt::format("{}x{}x{}x{}", n, c, h, w); }
};

// The JSON keys each op reads (to_json writes a subset); empty for an unknown op.
std::vector<std::string> op_keys(const std::string& op) {
  if (op == "conv2d") {
    return {"name", "op",       "input",    "k",        "kernel", "stride",
            "pad",  "residual", "epilogue", "schedule", "groups"};
  }
  if (op == "avgpool") {
    return {"name", "op", "input", "kernel", "stride", "pad", "count_include_pad", "rescale"};
  }
  if (op == "add") {
    return {"name", "op", "input", "residual", "epilogue"};
  }
  if (op == "concat") {
    return {"name", "op", "inputs"};
  }
  if (op == "dense") {
    return {"name", "op", "input", "units", "epilogue", "schedule"};
  }
  if (op == "maxpool") {
    return {"name", "op", "input", "kernel", "stride", "pad"};
  }
  if (op == "global_avgpool") {
    return {"name", "op", "input", "rescale"};
  }
  return {};
}

// Throws "<where> has unknown key '<key>' (known: ...)" for the first key of `j` not in
// `known` (a typo such as "kernal" would otherwise be ignored silently).
void check_keys(const nlohmann::json& j, const std::vector<std::string>& known,
                const std::string& where) {
  if (!j.is_object()) {
    throw Error(where + " must be a JSON object");
  }
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (std::find(known.begin(), known.end(), it.key()) == known.end()) {
      std::string list;
      for (const std::string& k : known) {
        list += (list.empty() ? "" : ", ") + k;
      }
      throw Error(fmt::format("{} has unknown key '{}' (known: {})", where, it.key(), list));
    }
  }
}

Conv2dParams conv_params(const NetworkLayer& l, const Shape& in) {
  Conv2dParams p;
  p.name = l.name;
  p.n = in.n, p.c = in.c, p.h = in.h, p.w = in.w, p.k = l.k, p.kh = l.kh, p.kw = l.kw;
  p.stride_h = l.stride_h, p.stride_w = l.stride_w;
  p.pad_top = l.pad_top, p.pad_left = l.pad_left, p.pad_bottom = l.pad_bottom;
  p.pad_right = l.pad_right;
  return p;
}

MatmulParams dense_params(const NetworkLayer& l, const Shape& in) {
  MatmulParams p;
  p.name = l.name;
  p.m = in.n, p.k = in.c * in.h * in.w, p.n = l.units;
  return p;
}

// Output shape of a host maxpool or avgpool; throws Error naming the layer for parameters
// without one.
Shape maxpool_shape(const NetworkLayer& l, const Shape& in) {
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
  const Shape out{in.n, in.c, int((ph - l.kh) / l.stride_h + 1), int((pw - l.kw) / l.stride_w + 1)};
  if (out.h > kMaxTensorDim || out.w > kMaxTensorDim) {
    throw Error(fmt::format("{} layer '{}': output {} exceeds {} per dimension", l.op, l.name,
                            out.str(), kMaxTensorDim));
  }
  if (uint64_t(out.n) * out.c * out.h * out.w > kMaxLayerBytes) {
    throw Error(fmt::format("{} layer '{}': output {} is larger than {} MiB", l.op, l.name,
                            out.str(), kMaxLayerBytes >> 20));
  }
  return out;
}

int shift_for_fan_in(int fan_in) {
  // Keeps the shifted accumulator of random int8 weights around +-40 (see network.h).
  return std::clamp(int(std::lround(std::log2(std::sqrt(double(fan_in)) * 83.0))), 0, 31);
}

std::vector<int8_t> random_int8(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> d(-128, 127);
  std::vector<int8_t> v(n);
  for (auto& x : v) {
    x = int8_t(d(rng));
  }
  return v;
}

Tensor host_maxpool(const Tensor& in, const NetworkLayer& l) {
  Tensor out;
  out.n = in.n, out.c = in.c;
  const Shape s = maxpool_shape(l, Shape{in.n, in.c, in.h, in.w});
  out.h = s.h, out.w = s.w;
  out.data.resize(size_t(out.n) * out.c * out.h * out.w);
  for (int n = 0; n < out.n; ++n) {
    for (int c = 0; c < out.c; ++c) {
      for (int y = 0; y < out.h; ++y) {
        for (int x = 0; x < out.w; ++x) {
          int best = -128;  // padding never wins
          for (int ky = 0; ky < l.kh; ++ky) {
            for (int kx = 0; kx < l.kw; ++kx) {
              int iy = y * l.stride_h - l.pad_top + ky, ix = x * l.stride_w - l.pad_left + kx;
              if (iy < 0 || iy >= in.h || ix < 0 || ix >= in.w) {
                continue;
              }
              best = std::max(best, int(in.data[((size_t(n) * in.c + c) * in.h + iy) * in.w + ix]));
            }
          }
          out.data[((size_t(n) * out.c + c) * out.h + y) * out.w + x] = int8_t(best);
        }
      }
    }
  }
  return out;
}

// sum / count * 2^rescale, rounded to nearest (ties away from zero), saturated to int8.
int8_t scaled_mean(int64_t sum, int64_t count, int rescale) {
  const int64_t num = std::abs(sum) << std::max(rescale, 0);
  const int64_t den = count << std::max(-rescale, 0);
  const int64_t q = std::min<int64_t>((num + den / 2) / den, 128);
  return int8_t(std::clamp<int64_t>(sum < 0 ? -q : q, -128, 127));
}

// Average pool: the sum over the window's real pixels divided by their count (or by the whole
// window with count_include_pad), times 2^rescale, rounded to nearest (ties away from zero).
Tensor host_avgpool(const Tensor& in, const NetworkLayer& l) {
  const Shape s = maxpool_shape(l, Shape{in.n, in.c, in.h, in.w});
  Tensor out{in.n, in.c, s.h, s.w, std::vector<int8_t>(size_t(in.n) * in.c * s.h * s.w)};
  for (int nc = 0; nc < in.n * in.c; ++nc) {
    for (int y = 0; y < s.h; ++y) {
      for (int x = 0; x < s.w; ++x) {
        int64_t sum = 0;  // a window may cover up to kMaxLayerBytes int8 values
        int count = 0;
        for (int ky = 0; ky < l.kh; ++ky) {
          for (int kx = 0; kx < l.kw; ++kx) {
            int iy = y * l.stride_h - l.pad_top + ky, ix = x * l.stride_w - l.pad_left + kx;
            if (iy >= 0 && iy < in.h && ix >= 0 && ix < in.w) {
              sum += in.data[(size_t(nc) * in.h + iy) * in.w + ix];
              ++count;
            }
          }
        }
        const int div = l.count_include_pad ? l.kh * l.kw : count;
        out.data[(size_t(nc) * s.h + y) * s.w + x] = scaled_mean(sum, div, l.rescale);
      }
    }
  }
  return out;
}

// Global average pool: an average pool whose window is the whole input.
Tensor host_global_avgpool(const Tensor& in, const NetworkLayer& l) {
  NetworkLayer whole = l;
  whole.kh = in.h, whole.kw = in.w;
  whole.stride_h = whole.stride_w = 1;
  whole.pad_top = whole.pad_left = whole.pad_bottom = whole.pad_right = 0;
  return host_avgpool(in, whole);
}

// a + b of two int8 tensors of one scale, then the layer's lower bound and clip_hi, saturated
// to int8.
Tensor host_add(const Tensor& a, const Tensor& b, const NetworkLayer& l) {
  Tensor out = a;
  const int lo = std::max(-128, l.epilogue.lower_bound().value_or(-128));
  const int hi = std::min(127, l.epilogue.clip_hi.value_or(127));
  for (size_t i = 0; i < out.data.size(); ++i) {
    out.data[i] = int8_t(std::clamp(int(a.data[i]) + int(b.data[i]), lo, hi));
  }
  return out;
}

Tensor host_concat(const std::vector<const Tensor*>& in) {
  Tensor out{in[0]->n, 0, in[0]->h, in[0]->w, {}};
  for (const Tensor* t : in) {
    out.c += t->c;
  }
  for (int n = 0; n < out.n; ++n) {
    for (const Tensor* t : in) {
      const size_t per = size_t(t->c) * t->h * t->w;
      out.data.insert(out.data.end(), t->data.begin() + long(n * per),
                      t->data.begin() + long((n + 1) * per));
    }
  }
  return out;
}

// A grouped convolution on the host: each group through the reference (same arithmetic and
// epilogue as a VTA layer).
Tensor host_grouped_conv(const Tensor& in, const NetworkLayer& l, const ConvData& d) {
  Conv2dParams p = conv_params(l, Shape{in.n, in.c / l.groups, in.h, in.w});
  p.k = l.k / l.groups;
  const int oh = p.out_h(), ow = p.out_w();
  Tensor out{in.n, l.k, oh, ow, std::vector<int8_t>(size_t(in.n) * l.k * oh * ow)};
  const size_t in_plane = size_t(in.h) * in.w, out_plane = size_t(oh) * ow;
  const size_t wper = size_t(p.k) * p.c * p.kh * p.kw;
  for (int g = 0; g < l.groups; ++g) {
    std::vector<int8_t> x(size_t(in.n) * p.c * in_plane);
    for (int n = 0; n < in.n; ++n) {
      std::copy_n(in.data.begin() + long((size_t(n) * in.c + size_t(g) * p.c) * in_plane),
                  size_t(p.c) * in_plane, x.begin() + long(size_t(n) * p.c * in_plane));
    }
    const std::vector<int8_t> w(d.w.begin() + long(g * wper), d.w.begin() + long((g + 1) * wper));
    std::vector<int32_t> bias;
    if (l.epilogue.bias) {
      bias.assign(d.bias.begin() + g * p.k, d.bias.begin() + (g + 1) * p.k);
    }
    const std::vector<int8_t> y = conv2d_reference_fast(p, l.epilogue, x, w, bias, {});
    for (int n = 0; n < in.n; ++n) {
      std::copy_n(y.begin() + long(size_t(n) * p.k * out_plane), size_t(p.k) * out_plane,
                  out.data.begin() + long((size_t(n) * l.k + size_t(g) * p.k) * out_plane));
    }
  }
  return out;
}

}  // namespace

namespace {

// Explicit weights and bias (if any) must have the sizes the layer needs.
void check_weight_sizes(const NetworkLayer& l, uint64_t weights, uint64_t outputs) {
  if (l.weights && l.weights->size() != weights) {
    throw Error(fmt::format("layer '{}' carries {} weights but needs {}", l.name, l.weights->size(),
                            weights));
  }
  if (l.weights && l.epilogue.bias && (!l.bias || l.bias->size() != outputs)) {
    throw Error(fmt::format("layer '{}' carries {} bias values but needs {}", l.name,
                            l.bias ? l.bias->size() : 0, outputs));
  }
}

// Output shape of a conv2d (grouped ones: each group a convolution of C/groups channels).
Shape conv_shape(const NetworkLayer& l, const Shape& in) {
  if (l.groups < 1 || in.c % l.groups || l.k % l.groups) {
    throw Error(
        fmt::format("conv2d layer '{}': {} groups do not divide {} input and {} output "
                    "channels",
                    l.name, l.groups, in.c, l.k));
  }
  if (l.groups > 1 && !l.residual.empty()) {
    throw Error(fmt::format("grouped conv2d layer '{}' cannot take a residual", l.name));
  }
  Conv2dParams p = conv_params(l, Shape{in.n, in.c / l.groups, in.h, in.w});
  p.k = l.k / l.groups;
  p.validate();
  check_weight_sizes(l, uint64_t(l.k) * p.c * p.kh * p.kw, uint64_t(l.k));
  return Shape{p.n, l.k, p.out_h(), p.out_w()};
}

// Output shape of an add (both operands of one shape) or a concat (along the channels).
Shape merge_shape(const NetworkLayer& l, const Shape& in,
                  const std::map<std::string, Shape>& shapes) {
  const std::vector<std::string> others =
      l.op == "add"
          ? std::vector<std::string>{l.residual}
          : std::vector<std::string>(l.inputs.begin() + (l.inputs.empty() ? 0 : 1), l.inputs.end());
  if (l.op == "concat" && l.inputs.empty()) {
    throw Error(fmt::format("concat layer '{}' has no inputs", l.name));
  }
  Shape out = in;
  for (const std::string& o : others) {
    auto it = shapes.find(o);
    if (it == shapes.end()) {
      throw Error(fmt::format("layer '{}' reads unknown tensor '{}'", l.name, o));
    }
    const Shape& s = it->second;
    const bool fits =
        l.op == "add" ? s.str() == in.str() : (s.n == in.n && s.h == in.h && s.w == in.w);
    if (!fits) {
      throw Error(fmt::format("{} layer '{}': operand '{}' has shape {}, '{}' has {}", l.op, l.name,
                              l.input, in.str(), o, s.str()));
    }
    out.c += l.op == "concat" ? s.c : 0;
  }
  return out;
}

}  // namespace

Network Network::from_json(const nlohmann::json& j, const std::string& source) {
  Network net;
  try {
    check_keys(j, {"name", "seed", "input", "layers"}, source);
    net.name = j.value("name", std::string("network"));
    net.seed =
        j.contains("seed")
            ? static_cast<uint64_t>(json_int(j["seed"], source + ": key 'seed'", 0, INT64_MAX))
            : 1;
    const auto& in = j.at("input");
    check_keys(in, {"name", "n", "c", "h", "w"}, source + ": input");
    net.input_name = in.value("name", std::string("data"));
    auto input_dim = [&](const char* key) {
      return json_int32(in.at(key), fmt::format("{}: input key '{}'", source, key));
    };
    net.n = in.contains("n") ? input_dim("n") : 1;
    net.c = input_dim("c");
    net.h = input_dim("h");
    net.w = input_dim("w");
    for (const auto& lj : j.at("layers")) {
      NetworkLayer l;
      l.name = lj.at("name").get<std::string>();
      l.op = lj.at("op").get<std::string>();
      const auto keys = op_keys(l.op);
      if (keys.empty()) {
        throw Error(
            fmt::format("{}: layer '{}' has unknown op '{}' (known: conv2d, dense, "
                        "maxpool, global_avgpool, avgpool, add, concat)",
                        source, l.name, l.op));
      }
      check_keys(lj, keys, fmt::format("{}: {} layer '{}'", source, l.op, l.name));
      if (l.op == "concat") {
        l.inputs = lj.at("inputs").get<std::vector<std::string>>();
        l.input = l.inputs.empty() ? std::string() : l.inputs[0];
      } else {
        l.input = lj.at("input").get<std::string>();
      }
      l.residual = lj.value("residual", std::string());
      const std::string where = fmt::format("{}: layer '{}' key", source, l.name);
      l.groups = lj.contains("groups") ? json_int32(lj["groups"], where + " 'groups'", 1) : 1;
      l.rescale =
          lj.contains("rescale") ? json_int32(lj["rescale"], where + " 'rescale'", -24, 24) : 0;
      l.count_include_pad = lj.contains("count_include_pad") &&
                            json_bool(lj["count_include_pad"], where + " 'count_include_pad'");
      if (lj.contains("kernel")) {
        read_pair(lj["kernel"], where + " 'kernel'", l.kh, l.kw);
      }
      if (lj.contains("stride")) {
        read_pair(lj["stride"], where + " 'stride'", l.stride_h, l.stride_w);
      }
      if (lj.contains("pad")) {
        read_pad(lj["pad"], where + " 'pad'", l);
      }
      l.k = lj.contains("k") ? json_int32(lj["k"], where + " 'k'") : 0;
      l.units = lj.contains("units") ? json_int32(lj["units"], where + " 'units'") : 0;
      if (lj.contains("epilogue")) {
        l.epilogue = Epilogue::from_json(lj["epilogue"], source + ": layer " + l.name);
      }
      if (lj.contains("schedule")) {
        l.schedule = ConvSchedule::from_json(lj["schedule"], source + ": layer " + l.name);
      }
      if (l.op == "conv2d" && l.k < 1) {
        throw Error(fmt::format("{}: conv2d layer '{}' needs \"k\" >= 1", source, l.name));
      }
      if (l.op == "dense" && l.units < 1) {
        throw Error(fmt::format("{}: dense layer '{}' needs \"units\" >= 1", source, l.name));
      }
      l.epilogue.residual = !l.residual.empty();
      net.layers.push_back(std::move(l));
    }
  } catch (const nlohmann::json::exception& ex) {
    throw Error(fmt::format("{}: invalid network description: {}", source, ex.what()));
  }
  try {
    net.validate();
  } catch (const Error& ex) {
    throw Error(fmt::format("{}: {}", source, ex.what()));
  }
  return net;
}

void Network::validate() const {
  const std::string where = fmt::format("network {}", name);
  for (auto [field, v] : {std::pair<const char*, int>{"n", n}, {"c", c}, {"h", h}, {"w", w}}) {
    if (v < 1 || v > kMaxTensorDim) {
      throw Error(
          fmt::format("{}: input {} must be in 1..{} (got {})", where, field, kMaxTensorDim, v));
    }
  }
  if (uint64_t(n) * c * h * w > kMaxLayerBytes) {
    throw Error(fmt::format("{}: input {}x{}x{}x{} is larger than {} MiB", where, n, c, h, w,
                            kMaxLayerBytes >> 20));
  }
  std::map<std::string, Shape> shapes;
  shapes[input_name] = Shape{n, c, h, w};
  for (const NetworkLayer& l : layers) {
    auto it = shapes.find(l.input);
    if (it == shapes.end()) {
      throw Error(fmt::format("{}: layer '{}' reads unknown tensor '{}'", where, l.name, l.input));
    }
    if (shapes.count(l.name)) {
      throw Error(fmt::format("{}: layer name '{}' is used twice", where, l.name));
    }
    const Shape in = it->second;
    Shape out;
    try {
      if (l.op == "conv2d") {
        out = conv_shape(l, in);
        if (!l.residual.empty()) {
          auto r = shapes.find(l.residual);
          if (r == shapes.end()) {
            throw Error(
                fmt::format("layer '{}' adds unknown residual tensor '{}'", l.name, l.residual));
          }
          if (r->second.str() != out.str()) {
            throw Error(
                fmt::format("residual '{}' of layer '{}' has shape {} but the layer's output "
                            "is {}",
                            l.residual, l.name, r->second.str(), out.str()));
          }
        }
      } else if (l.op == "dense") {
        if (!l.residual.empty()) {
          throw Error(fmt::format("dense layer '{}' cannot take a residual", l.name));
        }
        const uint64_t fan_in = uint64_t(in.c) * in.h * in.w;
        if (fan_in > uint64_t(kMaxTensorDim)) {
          throw Error(fmt::format("dense layer '{}': input of {} values per sample exceeds {}",
                                  l.name, fan_in, kMaxTensorDim));
        }
        dense_params(l, in).validate();
        check_weight_sizes(l, fan_in * uint64_t(l.units), uint64_t(l.units));
        out = Shape{in.n, l.units, 1, 1};
      } else if (l.op == "maxpool" || l.op == "avgpool") {
        out = maxpool_shape(l, in);
      } else if (l.op == "add" || l.op == "concat") {
        out = merge_shape(l, in, shapes);
      } else if (l.op == "global_avgpool") {
        out = Shape{in.n, in.c, 1, 1};
      } else {
        throw Error(fmt::format(
            "layer '{}' has unknown op '{}' (known: conv2d, dense, maxpool, global_avgpool, "
            "avgpool, add, concat)",
            l.name, l.op));
      }
    } catch (const Error& ex) {
      throw Error(fmt::format("{}: {}", where, ex.what()));
    }
    shapes[l.name] = out;
  }
}

nlohmann::ordered_json Network::to_json() const {
  nlohmann::ordered_json j;
  j["name"] = name;
  j["seed"] = seed;
  j["input"] = {{"name", input_name}, {"n", n}, {"c", c}, {"h", h}, {"w", w}};
  j["layers"] = nlohmann::ordered_json::array();
  for (const NetworkLayer& l : layers) {
    nlohmann::ordered_json lj;
    lj["name"] = l.name;
    lj["op"] = l.op;
    lj["input"] = l.input;
    if (l.op == "conv2d") {
      lj["k"] = l.k;
    }
    if (l.op == "dense") {
      lj["units"] = l.units;
    }
    if (l.op == "conv2d" && l.groups > 1) {
      lj["groups"] = l.groups;
    }
    if (l.op == "concat") {
      lj.erase("input");
      lj["inputs"] = l.inputs;
    }
    if (l.op == "avgpool") {
      lj["count_include_pad"] = l.count_include_pad;
    }
    if ((l.op == "avgpool" || l.op == "global_avgpool") && l.rescale) {
      lj["rescale"] = l.rescale;
    }
    if (l.op == "conv2d" || l.op == "maxpool" || l.op == "avgpool") {
      lj["kernel"] = {l.kh, l.kw};
      lj["stride"] = {l.stride_h, l.stride_w};
      lj["pad"] = {l.pad_top, l.pad_left, l.pad_bottom, l.pad_right};
    }
    if (!l.residual.empty()) {
      lj["residual"] = l.residual;
    }
    if (l.op == "conv2d" || l.op == "dense" || l.op == "add") {
      nlohmann::ordered_json e;
      if (l.epilogue.bias) {
        e["bias"] = true;
      }
      if (l.epilogue.shift) {
        e["shift"] = l.epilogue.shift;
      }
      if (l.epilogue.relu) {
        e["relu"] = true;
      }
      if (l.epilogue.clip_lo) {
        e["clip_lo"] = *l.epilogue.clip_lo;
      }
      if (l.epilogue.clip_hi) {
        e["clip_hi"] = *l.epilogue.clip_hi;
      }
      lj["epilogue"] = e;
    }
    if (l.schedule) {
      lj["schedule"] = l.schedule->to_json();
    }
    j["layers"].push_back(lj);
  }
  return j;
}

Network Network::from_file(const std::string& path) {
  return from_json(read_json_file(path, "network"), path);
}

Network Network::load(const std::string& name_or_path) {
  if (name_or_path == "resnet18" || name_or_path == "resnet-18") {
    return resnet18();
  }
  return from_file(name_or_path);
}

Network Network::resnet18(int n) {
  Network net;
  net.name = "resnet18";
  net.seed = 18;
  net.n = n, net.c = 3, net.h = net.w = 224;
  auto conv = [&](const std::string& name, const std::string& input, int cin, int k, int kernel,
                  int stride, bool relu, const std::string& residual = "") {
    NetworkLayer l;
    l.name = name, l.op = "conv2d", l.input = input, l.residual = residual, l.k = k;
    l.kh = l.kw = kernel, l.stride_h = l.stride_w = stride;
    l.pad_top = l.pad_left = l.pad_bottom = l.pad_right = kernel / 2;
    l.epilogue.shift = shift_for_fan_in(cin * kernel * kernel);
    l.epilogue.residual = !residual.empty();
    if (relu) {
      l.epilogue.relu = true;
    } else {
      l.epilogue.clip_lo = -128;
    }
    l.epilogue.clip_hi = 127;
    net.layers.push_back(l);
  };
  conv("C1", "data", 3, 64, 7, 2, true);
  NetworkLayer pool;
  pool.name = "pool1", pool.op = "maxpool", pool.input = "C1";
  pool.kh = pool.kw = 3, pool.stride_h = pool.stride_w = 2;
  pool.pad_top = pool.pad_left = pool.pad_bottom = pool.pad_right = 1;
  net.layers.push_back(pool);
  std::string x = "pool1";
  int cin = 64;
  const int widths[] = {64, 128, 256, 512};
  for (int stage = 0; stage < 4; ++stage) {
    const int cout = widths[stage];
    for (int block = 0; block < 2; ++block) {
      const std::string p = fmt::format("layer{}.{}", stage + 1, block);
      const int stride = (stage > 0 && block == 0) ? 2 : 1;
      std::string shortcut = x;
      if (stride != 1 || cin != cout) {
        conv(p + ".down", x, cin, cout, 1, stride, false);
        shortcut = p + ".down";
      }
      conv(p + ".conv1", x, cin, cout, 3, stride, true);
      conv(p + ".conv2", p + ".conv1", cout, cout, 3, 1, true, shortcut);
      x = p + ".conv2";
      cin = cout;
    }
  }
  NetworkLayer gap;
  gap.name = "avgpool", gap.op = "global_avgpool", gap.input = x;
  net.layers.push_back(gap);
  NetworkLayer fc;
  fc.name = "fc", fc.op = "dense", fc.input = "avgpool", fc.units = 1000;
  fc.epilogue.shift = shift_for_fan_in(512);
  fc.epilogue.clip_lo = -128;
  fc.epilogue.clip_hi = 127;
  net.layers.push_back(fc);
  return net;
}

namespace {

// A network tensor an earlier layer produced (or the input); throws for a layer that reads an
// unknown tensor or reuses a name.
const Tensor& layer_input(const Network& net, const NetworkLayer& l,
                          const std::map<std::string, Tensor>& tensors) {
  auto it = tensors.find(l.input);
  if (it == tensors.end()) {
    throw Error(
        fmt::format("network {}: layer '{}' reads unknown tensor '{}'", net.name, l.name, l.input));
  }
  if (tensors.count(l.name)) {
    throw Error(fmt::format("network {}: layer name '{}' is used twice", net.name, l.name));
  }
  return it->second;
}

// A tensor by name (the second operand of add, the inputs of concat).
const Tensor& named_tensor(const Network& net, const NetworkLayer& l, const std::string& name,
                           const std::map<std::string, Tensor>& tensors) {
  auto it = tensors.find(name);
  if (it == tensors.end()) {
    throw Error(
        fmt::format("network {}: layer '{}' reads unknown tensor '{}'", net.name, l.name, name));
  }
  return it->second;
}

ConvData conv_layer_data(const Network& net, const NetworkLayer& l, const Conv2dParams& p,
                         const Tensor& in, const std::map<std::string, Tensor>& tensors,
                         uint64_t seed);

// Runs a host layer (pooling, add, concat, grouped conv2d) and notes it in `host_ops`; nothing
// for a VTA layer.
std::optional<Tensor> run_host_layer(const Network& net, const NetworkLayer& l, const Tensor& in,
                                     const std::map<std::string, Tensor>& tensors, uint64_t seed,
                                     std::vector<std::string>& host_ops) {
  if (l.op == "conv2d" && l.groups > 1) {
    Conv2dParams p = conv_params(l, Shape{in.n, in.c / l.groups, in.h, in.w});
    p.k = l.k / l.groups;
    Tensor out = host_grouped_conv(in, l, conv_layer_data(net, l, p, in, tensors, seed));
    host_ops.push_back(fmt::format("{}: conv2d {}x{} s{} with {} groups on host ({} MACs)", l.name,
                                   l.kh, l.kw, l.stride_h, l.groups,
                                   p.macs() * uint64_t(l.groups)));
    return out;
  }
  if (l.op == "avgpool") {
    host_ops.push_back(
        fmt::format("{}: avgpool {}x{} s{} on host", l.name, l.kh, l.kw, l.stride_h));
    return host_avgpool(in, l);
  }
  if (l.op == "add") {
    host_ops.push_back(fmt::format("{}: add on host", l.name));
    return host_add(in, named_tensor(net, l, l.residual, tensors), l);
  }
  if (l.op == "concat") {
    std::vector<const Tensor*> parts;
    for (const std::string& name : l.inputs) {
      parts.push_back(&named_tensor(net, l, name, tensors));
    }
    host_ops.push_back(fmt::format("{}: concat of {} tensors on host", l.name, parts.size()));
    return host_concat(parts);
  }
  if (l.op == "maxpool") {
    Tensor out = host_maxpool(in, l);
    host_ops.push_back(
        fmt::format("{}: maxpool {}x{} s{} on host", l.name, l.kh, l.kw, l.stride_h));
    return out;
  }
  if (l.op == "global_avgpool") {
    Tensor out = host_global_avgpool(in, l);
    host_ops.push_back(fmt::format("{}: global average pool on host", l.name));
    return out;
  }
  return std::nullopt;
}

// What a VTA layer produced.
struct VtaLayerResult {
  LayerRun run;
  Tensor out;
};

// The layer's random weights (and bias) with its actual input and residual tensors.
ConvData conv_layer_data(const Network& net, const NetworkLayer& l, const Conv2dParams& p,
                         const Tensor& in, const std::map<std::string, Tensor>& tensors,
                         uint64_t seed) {
  ConvData d = random_conv_data(p, l.epilogue, seed);
  d.x = in.data;
  if (l.weights) {
    d.w = *l.weights;  // grouped layers: every group's weights, sliced by the host conv
    d.bias = l.bias ? *l.bias : std::vector<int32_t>();
  }
  if (!l.epilogue.residual) {
    return d;
  }
  auto r = tensors.find(l.residual);
  if (r == tensors.end()) {
    throw Error(fmt::format("network {}: layer '{}' adds unknown residual tensor '{}'", net.name,
                            l.name, l.residual));
  }
  const std::string want = fmt::format("{}x{}x{}x{}", p.n, p.k, p.out_h(), p.out_w());
  if (r->second.shape() != want) {
    throw Error(
        fmt::format("network {}: residual '{}' of layer '{}' has shape {} but the "
                    "layer's output is {}",
                    net.name, l.residual, l.name, r->second.shape(), want));
  }
  d.residual = r->second.data;
  return d;
}

// The layer's own schedule, else a tuned (opt.tune_candidates) or the automatic one.
ConvSchedule conv_layer_schedule(const Target& target, const NetworkLayer& l, const Conv2dParams& p,
                                 const ConvData& d, const NetworkOptions& opt) {
  if (l.schedule) {
    return *l.schedule;
  }
  if (opt.tune_candidates) {
    const TuneResult t = tune_conv2d(target, p, l.epilogue, d, opt.tune_candidates, false);
    return t.trials[t.best].schedule;
  }
  return auto_schedule(p, l.epilogue, target.config);
}

// The layer's parameters and data: its random weights (and bias) with its actual input (and
// residual) tensors.
Conv2dParams conv_layer_params(const NetworkLayer& l, const Tensor& in) {
  Conv2dParams p = conv_params(l, Shape{in.n, in.c, in.h, in.w});
  p.validate();
  return p;
}

MatmulParams dense_layer_params(const Network& net, const NetworkLayer& l, const Tensor& in) {
  if (!l.residual.empty()) {
    throw Error(
        fmt::format("network {}: dense layer '{}' cannot take a residual", net.name, l.name));
  }
  return dense_params(l, Shape{in.n, in.c, in.h, in.w});
}

MatmulData dense_layer_data(const NetworkLayer& l, const MatmulParams& p, const Tensor& in,
                            uint64_t seed) {
  MatmulData d = random_matmul_data(p, l.epilogue, seed);
  d.a = in.data;  // NCHW flattened per sample = row of A
  if (l.weights) {
    d.b = *l.weights;
    d.bias = l.bias ? *l.bias : std::vector<int32_t>();
  }
  return d;
}

VtaLayerResult run_conv_layer(const Target& target, const NetworkLayer& l, const Conv2dParams& p,
                              const ConvData& d, const NetworkOptions& opt) {
  const ConvSchedule s = conv_layer_schedule(target, l, p, d, opt);
  LayerRun run = run_conv2d(target, p, l.epilogue, s, d, opt.check);
  Tensor out{p.n, p.k, p.out_h(), p.out_w(), run.out};
  return {std::move(run), std::move(out)};
}

VtaLayerResult run_dense_layer(const Target& target, const NetworkLayer& l, const MatmulParams& p,
                               const MatmulData& d, const NetworkOptions& opt) {
  const HwConfig& cfg = target.config;
  const ConvSchedule s =
      l.schedule ? *l.schedule : auto_schedule(matmul_as_conv(p, cfg), l.epilogue, cfg);
  LayerRun run = run_matmul(target, p, l.epilogue, s, d, opt.check);
  Tensor out{p.m, p.n, 1, 1, run.out};
  return {std::move(run), std::move(out)};
}

// One VTA layer of run_network: its data, then the run.
VtaLayerResult run_vta_layer(const Target& target, const Network& net, const NetworkLayer& l,
                             const Tensor& in, const std::map<std::string, Tensor>& tensors,
                             uint64_t seed, const NetworkOptions& opt) {
  if (l.op == "conv2d") {
    const Conv2dParams p = conv_layer_params(l, in);
    return run_conv_layer(target, l, p, conv_layer_data(net, l, p, in, tensors, seed), opt);
  }
  const MatmulParams p = dense_layer_params(net, l, in);
  return run_dense_layer(target, l, p, dense_layer_data(l, p, in, seed), opt);
}

// The weight seed of the layer at `index` (0-based) of the network.
uint64_t layer_seed(const Network& net, size_t index) {
  return net.seed * 1000003u + uint64_t(index + 1);
}

// A VTA layer's job (see reference_layer_jobs) with its data; its reference output as the
// tensor it produces.
Tensor prepare_layer_job(const Network& net, const NetworkLayer& l, const Tensor& in,
                         const std::map<std::string, Tensor>& tensors, NetworkLayerJob& job) {
  ReferenceCache& cache = ReferenceCache::process();
  if (l.op == "conv2d") {
    const Conv2dParams p = conv_layer_params(l, in);
    job.conv = conv_layer_data(net, l, p, in, tensors, job.seed);
    const ConvData& d = job.conv;
    return Tensor{p.n, p.k, p.out_h(), p.out_w(),
                  *cache.conv2d(p, l.epilogue, d.x, d.w, d.bias, d.residual)};
  }
  const MatmulParams p = dense_layer_params(net, l, in);
  job.dense = dense_layer_data(l, p, in, job.seed);
  const MatmulData& d = job.dense;
  return Tensor{p.m, p.n, 1, 1, *cache.matmul(p, l.epilogue, d.a, d.b, d.bias)};
}

}  // namespace

std::string NetworkTensor::shape() const {
  return fmt::format("{}x{}x{}x{}", n, c, h, w);
}

namespace {

// The network's input tensor: its own data, else random from the seed.
Tensor network_input(const Network& net) {
  const size_t size = size_t(net.n) * net.c * net.h * net.w;
  if (net.input_data && net.input_data->size() != size) {
    throw Error(fmt::format("network {}: input data has {} values for the input {}x{}x{}x{}",
                            net.name, net.input_data->size(), net.n, net.c, net.h, net.w));
  }
  return Tensor{net.n, net.c, net.h, net.w,
                net.input_data ? *net.input_data : random_int8(size, net.seed)};
}

}  // namespace

std::map<std::string, NetworkTensor> reference_network_tensors(const Network& net) {
  net.validate();
  std::map<std::string, Tensor> tensors;
  tensors[net.input_name] = network_input(net);
  std::vector<std::string> host_ops;
  for (size_t i = 0; i < net.layers.size(); ++i) {
    const NetworkLayer& l = net.layers[i];
    const Tensor& in = layer_input(net, l, tensors);
    if (std::optional<Tensor> h =
            run_host_layer(net, l, in, tensors, layer_seed(net, i), host_ops)) {
      tensors[l.name] = std::move(*h);
      continue;
    }
    NetworkLayerJob job;
    job.seed = layer_seed(net, i);
    tensors[l.name] = prepare_layer_job(net, l, in, tensors, job);
  }
  return tensors;
}

NetworkJobs reference_layer_jobs(const Network& net) {
  net.validate();
  std::map<std::string, Tensor> tensors;
  tensors[net.input_name] = network_input(net);
  NetworkJobs result;
  for (size_t i = 0; i < net.layers.size(); ++i) {
    const NetworkLayer& l = net.layers[i];
    try {
      const Tensor& in = layer_input(net, l, tensors);
      if (std::optional<Tensor> pooled =
              run_host_layer(net, l, in, tensors, layer_seed(net, i), result.host_ops)) {
        tensors[l.name] = std::move(*pooled);
        continue;
      }
      NetworkLayerJob job;
      job.layer = i;
      job.seed = layer_seed(net, i);
      job.input_shape = {in.n, in.c, in.h, in.w, {}};
      tensors[l.name] = prepare_layer_job(net, l, in, tensors, job);
      result.jobs.push_back(std::move(job));
    } catch (const Error& ex) {
      // Running the layer would fail the same way: the layers before it still run.
      result.failure = NetworkJobs::Failure{i, ex.what()};
      break;
    }
  }
  return result;
}

LayerRun run_layer_job(const Target& target, const Network& net, const NetworkLayerJob& job,
                       const NetworkOptions& opt) {
  const NetworkLayer& l = net.layers.at(job.layer);
  TargetStep step(target, "layers", l.name);
  VtaLayerResult v =
      l.op == "conv2d"
          ? run_conv_layer(target, l, conv_layer_params(l, job.input_shape), job.conv, opt)
          : run_dense_layer(target, l, dense_layer_params(net, l, job.input_shape), job.dense, opt);
  step.done(v.run.stats);
  return std::move(v.run);
}

NetworkRun run_network(const Target& target, const Network& net, const NetworkOptions& opt) {
  net.validate();  // also for networks built in code: every shape below is then valid
  std::map<std::string, Tensor> tensors;
  tensors[net.input_name] = network_input(net);
  NetworkRun result;
  const std::string& last = net.layers.empty() ? net.input_name : net.layers.back().name;

  uint64_t layer_index = 0;
  for (const NetworkLayer& l : net.layers) {
    ++layer_index;
    const Tensor& in = layer_input(net, l, tensors);
    const uint64_t seed = layer_seed(net, layer_index - 1);
    if (std::optional<Tensor> pooled = run_host_layer(net, l, in, tensors, seed, result.host_ops)) {
      tensors[l.name] = std::move(*pooled);
      continue;
    }
    TargetStep step(target, "layers", l.name);
    VtaLayerResult v = run_vta_layer(target, net, l, in, tensors, seed, opt);
    step.done(v.run.stats);
    if (opt.on_layer) {
      opt.on_layer(v.run);
    }
    tensors[l.name] = std::move(v.out);
    result.runs.push_back(std::move(v.run));
  }
  result.output = tensors[last].data;
  return result;
}

}  // namespace vta::compiler
