#include "vta/compiler/run/wide_layer_runner.h"

#include <random>
#include <string>

#include <fmt/format.h>

#include "run/packed_conv_run.h"
#include "vta/compiler/codegen/kernel_fold.h"
#include "vta/compiler/codegen/lane_packing.h"
#include "vta/compiler/codegen/layout.h"
#include "vta/compiler/references/width_reference.h"
#include "vta/compiler/run/layer_widths.h"
#include "vta/sim/error.h"

namespace vta::compiler {

namespace {

// Moves int32_t values the way `move` moves bytes (blocking, folding: index permutations that
// fill the rest with zeros), one byte plane at a time, so the int8_t layout code serves both.
template <class Move>
std::vector<int32_t> move_planes(const std::vector<int32_t>& v, Move move) {
  std::vector<int32_t> out;
  for (int b = 0; b < 4; ++b) {
    std::vector<int8_t> plane(v.size());
    for (size_t i = 0; i < v.size(); ++i) {
      plane[i] = int8_t(uint8_t(uint32_t(v[i]) >> (8 * b)));
    }
    const std::vector<int8_t> moved = move(plane);
    out.resize(moved.size(), 0);
    for (size_t i = 0; i < moved.size(); ++i) {
      out[i] = int32_t(uint32_t(out[i]) | (uint32_t(uint8_t(moved[i])) << (8 * b)));
    }
  }
  return out;
}

// DRAM bytes of lanes of `bits` bits (1..32) held in int32_t.
std::vector<int8_t> pack_any(const std::vector<int32_t>& v, int bits) {
  if (bits >= 16) {
    return pack_wide_lanes(v, bits);
  }
  return pack_lanes(std::vector<int8_t>(v.begin(), v.end()), bits);
}

std::vector<int32_t> unpack_any(std::vector<int8_t> bytes, int bits, size_t count) {
  if (bits >= 16) {
    return unpack_wide_lanes(bytes, bits, count);
  }
  const std::vector<int8_t> lanes = unpack_lanes(std::move(bytes), bits, count);
  return std::vector<int32_t>(lanes.begin(), lanes.end());
}

std::vector<int32_t> random_lanes(size_t n, int bits, std::mt19937_64& rng) {
  std::vector<int32_t> v(n);
  for (auto& x : v) {
    x = sign_extend(int64_t(rng()), bits);
  }
  return v;
}

std::vector<int32_t> random_bias(size_t n, std::mt19937_64& rng) {
  std::uniform_int_distribution<int32_t> d(-(1 << 14), (1 << 14) - 1);
  std::vector<int32_t> v(n);
  for (auto& x : v) {
    x = d(rng);
  }
  return v;
}

void check_wide_data(const std::string& layer, const char* what, const std::vector<int32_t>& v,
                     size_t want, int bits) {
  if (v.size() != want) {
    throw Error(fmt::format("{}: {} has {} elements, expected {}", layer, what, v.size(), want));
  }
  for (size_t i = 0; i < v.size(); ++i) {
    if (!fits_lane(v[i], bits)) {
      throw Error(fmt::format("{}: {} value {} at index {} does not fit a {}-bit lane", layer, what,
                              v[i], i, bits));
    }
  }
}

void check_wide_layer(const std::string& layer, const Conv2dParams& p, const Epilogue& e,
                      const WideConvData& d, const HwConfig& cfg) {
  if (e.residual) {
    throw Error(
        fmt::format("{}: a residual epilogue needs output lanes of up to 8 bits (LOAD "
                    "ACC_8BIT reads one int8 byte per lane); config {} has int{} outputs",
                    layer, cfg.model_name, cfg.out_width));
  }
  check_wide_data(layer, "input", d.x, size_t(p.n) * p.c * p.h * p.w, cfg.inp_width);
  check_wide_data(layer, "weights", d.w, size_t(p.k) * p.c * p.kh * p.kw, cfg.wgt_width);
  if (e.bias && d.bias.size() != size_t(p.k)) {
    throw Error(fmt::format("{}: bias has {} elements, expected {}", layer, d.bias.size(), p.k));
  }
  e.check_channels(size_t(p.k), layer);
}

// The blocked DRAM images at the config's widths (folded first if the schedule folds).
PackedConv pack_wide_conv(const TilePlan& plan, const Conv2dParams& p, const ConvSchedule& s,
                          const HwConfig& cfg, const WideConvData& d) {
  const BlockedConv& g = plan.g;
  const Conv2dParams& q = g.p;  // the layer the plan computes
  std::vector<int32_t> x = d.x, w = d.w;
  if (s.fold_rows) {
    x = move_planes(x, [&](const std::vector<int8_t>& v) { return fold_input(p, s.fold_rows, v); });
    w = move_planes(w,
                    [&](const std::vector<int8_t>& v) { return fold_weights(p, s.fold_rows, v); });
  }
  PackedConv k;
  k.inp = pack_any(move_planes(x,
                               [&](const std::vector<int8_t>& v) {
                                 return pack_nchw(v, q.n, q.c, q.h, q.w, g.batch, g.block_in);
                               }),
                   cfg.inp_width);
  k.wgt = pack_any(move_planes(w,
                               [&](const std::vector<int8_t>& v) {
                                 return pack_oihw(v, q.k, q.c, q.kh, q.kw, g.block_out, g.block_in);
                               }),
                   cfg.wgt_width);
  if (plan.e.bias) {
    k.bias = pack_wide_lanes(pack_bias(d.bias, q.k, g.batch, g.block_out), cfg.acc_width);
  }
  if (plan.e.per_channel()) {
    const std::vector<int32_t> shifts(plan.e.shifts.begin(), plan.e.shifts.end());
    k.shifts = pack_wide_lanes(pack_bias(shifts, q.k, g.batch, g.block_out), cfg.acc_width);
  }
  return k;
}

}  // namespace

bool needs_wide_lanes(const HwConfig& cfg) {
  return cfg.inp_width > 8 || cfg.wgt_width > 8;
}

WideConvData random_wide_conv_data(const Conv2dParams& p, const Epilogue& e, uint64_t seed,
                                   const HwConfig& cfg) {
  std::mt19937_64 rng(seed);
  WideConvData d;
  d.x = random_lanes(size_t(p.n) * p.c * p.h * p.w, cfg.inp_width, rng);
  d.w = random_lanes(size_t(p.k) * p.c * p.kh * p.kw, cfg.wgt_width, rng);
  if (e.bias) {
    d.bias = random_bias(size_t(p.k), rng);
  }
  return d;
}

WideMatmulData random_wide_matmul_data(const MatmulParams& p, const Epilogue& e, uint64_t seed,
                                       const HwConfig& cfg) {
  std::mt19937_64 rng(seed);
  WideMatmulData d;
  d.a = random_lanes(size_t(p.m) * p.k, cfg.inp_width, rng);
  d.b = random_lanes(size_t(p.k) * p.n, cfg.wgt_width, rng);
  if (e.bias) {
    d.bias = random_bias(size_t(p.n), rng);
  }
  return d;
}

WideLayerRun run_conv2d_wide(const Target& target, const Conv2dParams& p, const Epilogue& layer_e,
                             const ConvSchedule& s, const WideConvData& data, bool check) {
  const HwConfig& cfg = target.config;
  const std::string layer = p.name.empty() ? "conv2d" : p.name;
  const Epilogue e = epilogue_at_widths(layer_e, cfg);
  check_wide_layer(layer, p, e, data, cfg);
  const TilePlan plan = TilePlan::make(p, e, s, cfg);
  const BlockedConv& g = plan.g;
  std::vector<int8_t> out_bytes;
  WideLayerRun w;
  w.run = run_packed_conv2d(target, p, plan, pack_wide_conv(plan, p, s, cfg, data), out_bytes);
  const size_t lanes = size_t(g.nb) * g.ocb * g.oh * g.ow * cfg.batch * cfg.block_out;
  w.out = move_planes(unpack_any(std::move(out_bytes), cfg.out_width, lanes),
                      [&](const std::vector<int8_t>& v) {
                        return unpack_nchw(v, p.n, p.k, g.oh, g.ow, g.batch, g.block_out);
                      });
  if (check) {
    const std::vector<int32_t> ref =
        conv2d_reference_at(p, e, data.x, data.w, data.bias, std::vector<int32_t>{},
                            LayerWidths::of(cfg).accumulator());
    w.run.checked = true;
    for (size_t i = 0; i < ref.size(); ++i) {
      if (ref[i] != w.out[i] && w.run.mismatches++ == 0) {
        w.run.first_mismatch = fmt::format("output {}: got {}, expected {}", i, w.out[i], ref[i]);
      }
    }
  }
  return w;
}

WideLayerRun run_matmul_wide(const Target& target, const MatmulParams& p, const Epilogue& e,
                             const ConvSchedule& s, const WideMatmulData& data, bool check) {
  p.validate();
  if (data.a.size() != size_t(p.m) * p.k || data.b.size() != size_t(p.k) * p.n) {
    throw Error(fmt::format("matmul '{}': operand sizes do not match {}", p.name, p.describe()));
  }
  // As run_matmul: row m of A is lane m % BATCH of column m / BATCH of a 1x1 convolution.
  const Conv2dParams c = matmul_as_conv(p, target.config);
  const size_t batch = size_t(c.n);
  WideConvData d;
  d.x.assign(size_t(c.n) * c.c * c.w, 0);
  d.w.resize(size_t(p.n) * p.k);
  for (size_t m = 0; m < size_t(p.m); ++m) {
    for (size_t k = 0; k < size_t(p.k); ++k) {
      d.x[((m % batch) * c.c + k) * c.w + m / batch] = data.a[m * p.k + k];
    }
  }
  for (size_t n = 0; n < size_t(p.n); ++n) {
    for (size_t k = 0; k < size_t(p.k); ++k) {
      d.w[n * p.k + k] = data.b[k * p.n + n];
    }
  }
  d.bias = data.bias;
  WideLayerRun w = run_conv2d_wide(target, c, e, s, d, false);
  std::vector<int32_t> out(size_t(p.m) * p.n);
  for (size_t m = 0; m < size_t(p.m); ++m) {
    for (size_t n = 0; n < size_t(p.n); ++n) {
      out[m * p.n + n] = w.out[((m % batch) * c.k + n) * c.w + m / batch];
    }
  }
  w.out = std::move(out);
  w.run.kind = "matmul";
  w.run.shape = p.describe();
  w.run.macs = p.macs();
  if (check) {
    const std::vector<int32_t> ref = matmul_reference_at(
        p, w.run.epilogue, data.a, data.b, data.bias, LayerWidths::of(target.config).accumulator());
    w.run.checked = true;
    for (size_t i = 0; i < ref.size(); ++i) {
      if (ref[i] != w.out[i] && w.run.mismatches++ == 0) {
        w.run.first_mismatch =
            fmt::format("row {} col {}: got {}, expected {}", i / p.n, i % p.n, w.out[i], ref[i]);
      }
    }
  }
  return w;
}

}  // namespace vta::compiler
