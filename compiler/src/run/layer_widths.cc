#include "vta/compiler/run/layer_widths.h"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "vta/compiler/codegen/lane_packing.h"
#include "vta/sim/error.h"

namespace vta::compiler {

namespace {

void fit_lanes(std::vector<int8_t>& v, int bits) {
  if (bits < 8) {
    for (auto& x : v) {
      x = int8_t(sign_extend(x, bits));
    }
  }
}

void check_lanes(const std::string& layer, const char* what, const std::vector<int8_t>& v,
                 int bits) {
  for (size_t i = 0; i < v.size(); ++i) {
    if (!fits_lane(v[i], bits)) {
      throw Error(fmt::format("{}: {} value {} at index {} does not fit a {}-bit lane [{}, {}]",
                              layer, what, int(v[i]), i, bits, -(1 << (bits - 1)),
                              (1 << (bits - 1)) - 1));
    }
  }
}

}  // namespace

LayerWidths LayerWidths::of(const HwConfig& cfg) {
  return LayerWidths{cfg.inp_width, cfg.wgt_width, cfg.acc_width, cfg.out_width};
}

std::string LayerWidths::describe() const {
  return fmt::format("int{} x int{} -> int{}", inp, wgt, acc);
}

void check_layer_widths(const HwConfig& cfg, const std::string& layer) {
  const LayerWidths w = LayerWidths::of(cfg);
  if (w.inp > 8 || w.wgt > 8) {
    throw Error(fmt::format(
        "{}: config {} has {} lanes: the compiler's conv2d and matmul hold input and weight "
        "lanes of 1 to 8 bits in int8_t (LOG_INP_WIDTH, LOG_WGT_WIDTH <= 3); wider lanes take "
        "run_conv2d_wide / run_matmul_wide (wide_layer_runner.h; vtasim conv2d and matmul do)",
        layer, cfg.model_name, w.describe()));
  }
}

void check_network_widths(const HwConfig& cfg, const std::string& network) {
  const LayerWidths w = LayerWidths::of(cfg);
  if (!w.is_int8()) {
    throw Error(fmt::format(
        "network {}: config {} has {} lanes, and the network path (ONNX import, quantization, "
        "host operators) is int8 for now (int8 x int8 -> int32); single conv2d and matmul "
        "layers run at every width (docs/element_widths.md)",
        network, cfg.model_name, w.describe()));
  }
}

Epilogue epilogue_at_widths(const Epilogue& e, const HwConfig& cfg) {
  const LayerWidths w = LayerWidths::of(cfg);
  if (w.is_int8() || w.out > 16) {
    return e;
  }
  const int hi = (1 << (w.out - 1)) - 1, lo = -(1 << (w.out - 1));
  Epilogue n = e;
  if (n.clip_hi) {
    n.clip_hi = std::clamp(*n.clip_hi, lo, hi);
  }
  if (n.clip_lo) {
    n.clip_lo = std::clamp(*n.clip_lo, lo, hi);
  }
  return n;
}

ConvData random_conv_data_at(const Conv2dParams& p, const Epilogue& e, uint64_t seed,
                             const HwConfig& cfg) {
  const LayerWidths w = LayerWidths::of(cfg);
  ConvData d = random_conv_data(p, e, seed);
  fit_lanes(d.x, w.inp);
  fit_lanes(d.w, w.wgt);
  fit_lanes(d.residual, w.out);
  return d;
}

MatmulData random_matmul_data_at(const MatmulParams& p, const Epilogue& e, uint64_t seed,
                                 const HwConfig& cfg) {
  const LayerWidths w = LayerWidths::of(cfg);
  MatmulData d = random_matmul_data(p, e, seed);
  fit_lanes(d.a, w.inp);
  fit_lanes(d.b, w.wgt);
  return d;
}

void check_conv_lanes(const std::string& layer, const ConvData& data, const LayerWidths& w) {
  check_lanes(layer, "input", data.x, std::min(w.inp, 8));
  check_lanes(layer, "weight", data.w, std::min(w.wgt, 8));  // residuals: int8 (ACC_8BIT)
}

}  // namespace vta::compiler
