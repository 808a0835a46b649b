#include "vta/compiler/scheduling/workload.h"

#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "vta/compiler/reports/json_file.h"
#include "vta/sim/error.h"
#include "vta/sim/json_read.h"

namespace vta::compiler {

uint64_t Conv2dParams::macs() const {
  return uint64_t(n) * k * out_h() * out_w() * c * kh * kw;
}

namespace {

// Sum of the int8 tensor sizes, as a message when it exceeds kMaxLayerBytes.
void check_layer_bytes(const std::string& what, uint64_t in, uint64_t wgt, uint64_t out) {
  const uint64_t total = in + wgt + out;
  if (total > kMaxLayerBytes) {
    throw Error(fmt::format(
        "{}: tensors need {} MiB (input {} + weights {} + output {} bytes), more than the {} MiB "
        "a layer may use in the simulated DRAM",
        what, (total + (1 << 20) - 1) >> 20, in, wgt, out, kMaxLayerBytes >> 20));
  }
}

}  // namespace

void Conv2dParams::validate() const {
  auto positive = [&](const char* field, int v) {
    if (v < 1) {
      throw Error(fmt::format("conv2d '{}': {} must be >= 1 (got {})", name, field, v));
    }
    if (v > kMaxTensorDim) {
      throw Error(fmt::format("conv2d '{}': {} = {} exceeds {} (16-bit ISA size fields)", name,
                              field, v, kMaxTensorDim));
    }
  };
  positive("n", n);
  positive("c", c);
  positive("h", h);
  positive("w", w);
  positive("k", k);
  positive("kernel height", kh);
  positive("kernel width", kw);
  positive("stride_h", stride_h);
  positive("stride_w", stride_w);
  for (auto [field, v] : {std::pair<const char*, int>{"pad_top", pad_top},
                          {"pad_bottom", pad_bottom},
                          {"pad_left", pad_left},
                          {"pad_right", pad_right}}) {
    if (v < 0) {
      throw Error(fmt::format("conv2d '{}': {} must be >= 0 (got {})", name, field, v));
    }
    if (v > 15) {
      throw Error(fmt::format(
          "conv2d '{}': {} = {} exceeds the 4-bit DMA pad field of LOAD (max 15)", name, field, v));
    }
  }
  if (h + pad_top + pad_bottom < kh) {
    throw Error(fmt::format("conv2d '{}': kernel height {} exceeds padded input height {}", name,
                            kh, h + pad_top + pad_bottom));
  }
  if (w + pad_left + pad_right < kw) {
    throw Error(fmt::format("conv2d '{}': kernel width {} exceeds padded input width {}", name, kw,
                            w + pad_left + pad_right));
  }
  check_layer_bytes(fmt::format("conv2d '{}'", name), uint64_t(n) * c * h * w,
                    uint64_t(k) * c * kh * kw, uint64_t(n) * k * out_h() * out_w());
}

std::string Conv2dParams::describe() const {
  std::string pad = (pad_top == pad_bottom && pad_left == pad_right && pad_top == pad_left)
                        ? fmt::format("{}", pad_top)
                        : fmt::format("{},{},{},{}", pad_top, pad_left, pad_bottom, pad_right);
  std::string stride =
      stride_h == stride_w ? fmt::format("{}", stride_h) : fmt::format("{},{}", stride_h, stride_w);
  return fmt::format("{}x{}x{}x{} * {}x{}x{} s{} p{} -> {}x{}x{}", n, c, h, w, k, kh, kw, stride,
                     pad, k, out_h(), out_w());
}

Epilogue Epilogue::channels(size_t first, size_t count) const {
  Epilogue e = *this;
  if (per_channel()) {
    e.shifts.assign(shifts.begin() + long(first), shifts.begin() + long(first + count));
  }
  return e;
}

void Epilogue::check_channels(size_t k, const std::string& layer) const {
  if (per_channel() && shifts.size() != k) {
    throw Error(
        fmt::format("{}: {} per-channel shifts for {} output channels", layer, shifts.size(), k));
  }
}

void Epilogue::validate() const {
  if (shift < 0 || shift > 31) {
    throw Error(fmt::format("epilogue: shift {} out of range 0..31", shift));
  }
  for (size_t k = 0; k < shifts.size(); ++k) {
    if (shifts[k] < 0 || shifts[k] > 31) {
      throw Error(
          fmt::format("epilogue: shift {} of output channel {} out of range 0..31", shifts[k], k));
    }
  }
  auto imm = [](const char* what, std::optional<int> v) {
    if (v && (*v < -32768 || *v > 32767)) {
      throw Error(fmt::format("epilogue: {} = {} does not fit the 16-bit ALU immediate", what, *v));
    }
  };
  imm("clip_lo", clip_lo);
  imm("clip_hi", clip_hi);
  auto lo = lower_bound();
  if (lo && clip_hi && *lo > *clip_hi) {
    throw Error(fmt::format("epilogue: lower bound {} exceeds clip_hi {}", *lo, *clip_hi));
  }
  if (round && (per_channel() || shift < 1 || residual)) {
    throw Error("epilogue: round needs one shift of 1..31 for every channel and no residual");
  }
  if (residual_shift < 0 || residual_shift > 8) {
    throw Error(fmt::format("epilogue: residual_shift {} out of range 0..8", residual_shift));
  }
}

std::string Epilogue::describe() const {
  std::string s;
  auto add = [&](const std::string& part) { s += (s.empty() ? "" : ", ") + part; };
  if (bias) {
    add("+bias");
  }
  if (per_channel()) {
    const auto [lo, hi] = std::minmax_element(shifts.begin(), shifts.end());
    add(*lo == *hi ? fmt::format(">>[{}]", *lo) : fmt::format(">>[{}..{}]", *lo, *hi));
  } else if (shift) {
    add(fmt::format(round ? ">>{} rounded" : ">>{}", shift));
  }
  if (residual) {
    add(residual_shift ? fmt::format("+residual>>{}", residual_shift) : "+residual");
  }
  if (auto lo = lower_bound()) {
    add(fmt::format("max {}", *lo));
  }
  if (clip_hi) {
    add(fmt::format("min {}", *clip_hi));
  }
  return s.empty() ? "none" : s;
}

Epilogue Epilogue::from_json(const nlohmann::json& j, const std::string& source) {
  if (!j.is_object()) {
    throw Error(source + ": epilogue must be a JSON object");
  }
  Epilogue e;
  for_each_json_key(j, source, "epilogue", [&](const std::string& key, const nlohmann::json& v) {
    const std::string what = fmt::format("{}: epilogue key '{}'", source, key);
    if (key == "bias") {
      e.bias = json_bool(v, what);
    } else if (key == "shift" && v.is_array()) {
      if (v.empty()) {
        throw Error(what + ": per-channel shifts need at least one value");
      }
      for (const auto& x : v) {
        e.shifts.push_back(json_int32(x, what));
      }
    } else if (key == "shift") {
      e.shift = json_int32(v, what);
    } else if (key == "residual") {
      e.residual = json_bool(v, what);
    } else if (key == "relu") {
      e.relu = json_bool(v, what);
    } else if (key == "round") {
      e.round = json_bool(v, what);
    } else if (key == "residual_shift") {
      e.residual_shift = json_int32(v, what);
    } else if (key == "clip_lo" || key == "max") {
      e.clip_lo = json_int32(v, what);
    } else if (key == "clip_hi" || key == "min") {
      e.clip_hi = json_int32(v, what);
    } else {
      throw Error(
          fmt::format("{}: unknown epilogue key '{}' (known: bias, shift, residual, "
                      "relu, clip_lo/max, clip_hi/min, round, residual_shift)",
                      source, key));
    }
  });
  e.validate();
  return e;
}

nlohmann::json Epilogue::to_json() const {
  nlohmann::json j;
  j["bias"] = bias;
  if (per_channel()) {
    j["shift"] = shifts;
  } else {
    j["shift"] = shift;
  }
  j["residual"] = residual;
  j["relu"] = relu;
  if (clip_lo) {
    j["clip_lo"] = *clip_lo;
  }
  if (clip_hi) {
    j["clip_hi"] = *clip_hi;
  }
  if (round) {
    j["round"] = true;
  }
  if (residual_shift) {
    j["residual_shift"] = residual_shift;
  }
  return j;
}

void MatmulParams::validate() const {
  if (m < 1 || k < 1 || n < 1) {
    throw Error(fmt::format("matmul '{}': m, k, n must be >= 1 (got {}, {}, {})", name, m, k, n));
  }
  for (auto [field, v] : {std::pair<const char*, int>{"m", m}, {"k", k}, {"n", n}}) {
    if (v > kMaxTensorDim) {
      throw Error(fmt::format("matmul '{}': {} = {} exceeds {} (16-bit ISA size fields)", name,
                              field, v, kMaxTensorDim));
    }
  }
  check_layer_bytes(fmt::format("matmul '{}'", name), uint64_t(m) * k, uint64_t(k) * n,
                    uint64_t(m) * n);
}

std::string MatmulParams::describe() const {
  return fmt::format("{}x{} * {}x{}", m, k, k, n);
}

const std::vector<NamedConvLayer>& resnet18_conv_layers() {
  static const std::vector<NamedConvLayer> layers = [] {
    struct Row {
      const char* name;
      int hw, ic, oc, k, pad, stride;
    };
    const Row rows[] = {
        {"C1", 224, 3, 64, 7, 3, 2},   {"C2", 56, 64, 64, 3, 1, 1},
        {"C3", 56, 64, 128, 3, 1, 2},  {"C4", 56, 64, 128, 1, 0, 2},
        {"C5", 28, 128, 128, 3, 1, 1}, {"C6", 28, 128, 256, 3, 1, 2},
        {"C7", 28, 128, 256, 1, 0, 2}, {"C8", 14, 256, 256, 3, 1, 1},
        {"C9", 14, 256, 512, 3, 1, 2}, {"C10", 14, 256, 512, 1, 0, 2},
        {"C11", 7, 512, 512, 3, 1, 1},
    };
    std::vector<NamedConvLayer> out;
    for (const Row& r : rows) {
      NamedConvLayer l;
      l.params.name = std::string("resnet18.") + r.name;
      l.params.n = 1;
      l.params.c = r.ic;
      l.params.h = l.params.w = r.hw;
      l.params.k = r.oc;
      l.params.kh = l.params.kw = r.k;
      l.params.stride_h = l.params.stride_w = r.stride;
      l.params.pad_top = l.params.pad_bottom = l.params.pad_left = l.params.pad_right = r.pad;
      l.epilogue.shift = 8;
      l.epilogue.clip_lo = 0;
      l.epilogue.clip_hi = 127;
      out.push_back(l);
    }
    return out;
  }();
  return layers;
}

NamedConvLayer find_named_layer(const std::string& name) {
  std::string key = name;
  for (const char* prefix : {"resnet18.", "resnet-18.", "resnet18_"}) {
    if (key.rfind(prefix, 0) == 0) {
      key = key.substr(std::string(prefix).size());
    }
  }
  std::string known;
  for (const auto& l : resnet18_conv_layers()) {
    std::string short_name = l.params.name.substr(std::string("resnet18.").size());
    if (short_name == key) {
      return l;
    }
    known += (known.empty() ? "" : ", ") + l.params.name;
  }
  throw Error(fmt::format("unknown layer '{}' (known: {})", name, known));
}

}  // namespace vta::compiler
