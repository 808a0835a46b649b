#include "vta/compiler/run/layer_widths.h"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "vta/compiler/codegen/lane_packing.h"
#include "vta/compiler/references/reference_cache.h"
#include "vta/sim/error.h"

namespace vta::compiler {

namespace {

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

void saturate_lanes(std::vector<int8_t>& v, int bits) {
  if (bits < 8) {
    const int lo = lane_min(bits), hi = lane_max(bits);
    for (auto& x : v) {
      x = int8_t(std::clamp(int(x), lo, hi));
    }
  }
}

void wrap_lanes(std::vector<int8_t>& v, int bits) {
  if (bits < 8) {
    for (auto& x : v) {
      x = int8_t(sign_extend(x, bits));
    }
  }
}

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
  if (w.inp > 16 || w.wgt > 16) {
    throw Error(fmt::format(
        "network {}: config {} has {} lanes, and networks hold input and weight lanes of 1 to "
        "16 bits (int8_t tensors up to 8 bits, int32_t ones of int16 lanes in "
        "wide_network_run.h; a 32-bit accumulator leaves int32 lanes int16 precision); single "
        "conv2d and matmul layers run at every width (docs/element_widths.md)",
        network, cfg.model_name, w.describe()));
  }
}

Epilogue epilogue_at_widths(const Epilogue& e, const LayerWidths& w) {
  if (w.is_int8() || w.out > 16) {
    return e;
  }
  const int hi = lane_max(w.out), lo = lane_min(w.out);
  Epilogue n = e;
  if (n.clip_hi) {
    n.clip_hi = std::clamp(*n.clip_hi, lo, hi);
  }
  if (n.clip_lo) {
    n.clip_lo = std::clamp(*n.clip_lo, lo, hi);
  }
  return n;
}

Epilogue epilogue_at_widths(const Epilogue& e, const HwConfig& cfg) {
  return epilogue_at_widths(e, LayerWidths::of(cfg));
}

std::vector<int8_t> conv2d_reference_lanes(const Conv2dParams& p, const Epilogue& e,
                                           const std::vector<int8_t>& x,
                                           const std::vector<int8_t>& w,
                                           const std::vector<int32_t>& bias,
                                           const std::vector<int8_t>& residual,
                                           const LayerWidths& widths) {
  const Epilogue n = epilogue_at_widths(e, widths);
  if (widths.acc < 32) {
    return conv2d_reference_at(p, n, x, w, bias, residual, widths.accumulator());
  }
  std::vector<int8_t> out = *ReferenceCache::process().conv2d(p, n, x, w, bias, residual);
  wrap_lanes(out, widths.out);
  return out;
}

std::vector<int8_t> matmul_reference_lanes(const MatmulParams& p, const Epilogue& e,
                                           const std::vector<int8_t>& a,
                                           const std::vector<int8_t>& b,
                                           const std::vector<int32_t>& bias,
                                           const LayerWidths& widths) {
  const Epilogue n = epilogue_at_widths(e, widths);
  if (widths.acc < 32) {
    return matmul_reference_at(p, n, a, b, bias, widths.accumulator());
  }
  std::vector<int8_t> out = *ReferenceCache::process().matmul(p, n, a, b, bias);
  wrap_lanes(out, widths.out);
  return out;
}

ConvData random_conv_data_at(const Conv2dParams& p, const Epilogue& e, uint64_t seed,
                             const HwConfig& cfg) {
  const LayerWidths w = LayerWidths::of(cfg);
  ConvData d = random_conv_data(p, e, seed);
  wrap_lanes(d.x, w.inp);
  wrap_lanes(d.w, w.wgt);
  wrap_lanes(d.residual, w.out);
  return d;
}

MatmulData random_matmul_data_at(const MatmulParams& p, const Epilogue& e, uint64_t seed,
                                 const HwConfig& cfg) {
  const LayerWidths w = LayerWidths::of(cfg);
  MatmulData d = random_matmul_data(p, e, seed);
  wrap_lanes(d.a, w.inp);
  wrap_lanes(d.b, w.wgt);
  return d;
}

void check_conv_lanes(const std::string& layer, const ConvData& data, const LayerWidths& w) {
  check_lanes(layer, "input", data.x, std::min(w.inp, 8));
  check_lanes(layer, "weight", data.w, std::min(w.wgt, 8));  // residuals: int8 (ACC_8BIT)
}

}  // namespace vta::compiler
