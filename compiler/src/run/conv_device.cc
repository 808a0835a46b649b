#include "run/conv_device.h"

#include <fmt/format.h>

#include "vta/compiler/codegen/kernel_fold.h"
#include "vta/compiler/codegen/lane_packing.h"
#include "vta/compiler/codegen/layout.h"
#include "vta/compiler/references/reference_cache.h"
#include "vta/compiler/references/width_reference.h"
#include "vta/compiler/scheduling/bound.h"
#include "vta/sim/error.h"

namespace vta::compiler {

namespace {

// Counts the elements of r.out that differ from `ref`; `where(i)` names element i.
template <typename Where>
void compare_with_reference(LayerRun& r, const std::vector<int8_t>& ref, const Where& where) {
  r.checked = true;
  for (size_t i = 0; i < ref.size(); ++i) {
    if (ref[i] == r.out[i]) {
      continue;
    }
    if (r.mismatches++ == 0) {
      r.first_mismatch =
          fmt::format("{}: got {}, expected {}", where(i), int(r.out[i]), int(ref[i]));
    }
  }
}

}  // namespace

size_t conv_output_bytes(const BlockedConv& g, const HwConfig& cfg) {
  return size_t(g.nb) * g.ocb * g.oh * g.ow * cfg.out_elem_bytes;
}

ConvDeviceTensors upload(ProgramSink& sink, const TilePlan& plan, const HwConfig& cfg,
                         const PackedConv& packed, size_t zero_bytes, bool with_output) {
  ConvDeviceTensors t;
  t.inp = DeviceBuffer::from(sink, packed.inp);
  t.wgt = DeviceBuffer::from(sink, packed.wgt);
  if (with_output) {
    t.out = DeviceBuffer(sink, conv_output_bytes(plan.g, cfg));
  }
  if (plan.e.bias) {
    t.bias = DeviceBuffer::from(sink, packed.bias);
  }
  if (plan.e.residual) {
    t.residual = DeviceBuffer::from(sink, packed.residual);
  }
  if (zero_bytes) {
    t.zeros = DeviceBuffer::from(sink, std::vector<int8_t>(zero_bytes));
  }
  if (plan.e.per_channel()) {
    t.shifts = DeviceBuffer::from(sink, packed.shifts);
  }
  return t;
}

// The DRAM images of int8_t-held lanes (1..8 bits) at the config's widths: activations and
// weights blocked and lane-packed (the identity at 8 bits), bias and per-channel shifts as
// accumulator lanes (one ACC element per channel block), residuals one byte a lane (ACC_8BIT).
PackedConv pack_conv(const TilePlan& plan, const HwConfig& cfg, const ConvData& data) {
  const BlockedConv& g = plan.g;
  const Conv2dParams& p = g.p;
  PackedConv k;
  k.inp = pack_lanes(pack_nchw(data.x, p.n, p.c, p.h, p.w, g.batch, g.block_in), cfg.inp_width);
  k.wgt =
      pack_lanes(pack_oihw(data.w, p.k, p.c, p.kh, p.kw, g.block_out, g.block_in), cfg.wgt_width);
  if (plan.e.bias) {
    k.bias = pack_wide_lanes(pack_bias(data.bias, p.k, g.batch, g.block_out), cfg.acc_width);
  }
  if (plan.e.residual) {
    k.residual = pack_nchw(data.residual, p.n, p.k, g.oh, g.ow, g.batch, g.block_out);
  }
  if (plan.e.per_channel()) {
    const std::vector<int32_t> shifts(plan.e.shifts.begin(), plan.e.shifts.end());
    k.shifts = pack_wide_lanes(pack_bias(shifts, p.k, g.batch, g.block_out), cfg.acc_width);
  }
  return k;
}

void check_conv_data(const Conv2dParams& p, const Epilogue& e, const ConvData& data) {
  auto expect = [&](const char* what, size_t got, size_t want) {
    if (got != want) {
      throw Error(fmt::format("{}: {} has {} elements, expected {}", p.name, what, got, want));
    }
  };
  expect("input", data.x.size(), size_t(p.n) * p.c * p.h * p.w);
  expect("weights", data.w.size(), size_t(p.k) * p.c * p.kh * p.kw);
  if (e.bias) {
    expect("bias", data.bias.size(), size_t(p.k));
  }
  if (e.residual) {
    expect("residual", data.residual.size(), size_t(p.n) * p.k * p.out_h() * p.out_w());
  }
  if (e.per_channel()) {
    expect("per-channel shifts", e.shifts.size(), size_t(p.k));
  }
}

// The run's description and the figures that follow from the plan alone. `p` is the layer as
// written; the plan's layer differs from it when the schedule folds the kernel window.
LayerBound conv_bound(const Conv2dParams& p, const TilePlan& plan, const HwConfig& cfg) {
  // A fold may need fewer bytes than the channel-padded layer: the smaller minimum counts.
  MinimumBytes bytes = minimum_bytes(BlockedConv::make(p, cfg), plan.e, cfg);
  const MinimumBytes planned = minimum_bytes(plan.g, plan.e, cfg);
  if (planned.total() < bytes.total()) {
    bytes = planned;
  }
  return layer_bound(plan.g, plan.e, bytes, cfg);
}

LayerRun describe_conv_run(const Target& target, const Conv2dParams& p, const TilePlan& plan) {
  const HwConfig& cfg = target.config;
  LayerRun r;
  r.name = p.name.empty() ? "conv2d" : p.name;
  r.kind = "conv2d";
  r.shape = p.describe();
  r.schedule = plan.s;
  r.epilogue = plan.e;
  r.backend = target.backend;
  r.config = cfg.model_name;
  r.macs = p.macs();
  r.gemm_bound = plan.g.gemm_uop_count();
  r.peak_macs_per_cycle = uint64_t(cfg.batch) * cfg.block_in * cfg.block_out;
  r.bound = conv_bound(p, plan, cfg);
  r.min_bytes = r.bound.bytes.total();
  return r;
}

// The data of the layer the plan computes: with a fold, the folded input and weights.
ConvData planned_data(const Conv2dParams& p, const ConvSchedule& s, const ConvData& data) {
  ConvData d;
  d.x = fold_input(p, s.fold_rows, data.x);
  d.w = fold_weights(p, s.fold_rows, data.w);
  d.bias = data.bias;
  d.residual = data.residual;
  return d;
}

// A and B of a matmul as the input and weights of its convolution: row m of A is lane
// m % BATCH of column m / BATCH.
ConvData matmul_conv_data(const MatmulParams& p, const Conv2dParams& c, const MatmulData& data) {
  const int batch = c.n;
  ConvData d;
  d.x.assign(size_t(c.n) * c.c * c.w, 0);
  for (int m = 0; m < p.m; ++m) {
    for (int k = 0; k < p.k; ++k) {
      d.x[(size_t(m % batch) * c.c + k) * c.w + m / batch] = data.a[size_t(m) * p.k + k];
    }
  }
  d.w.resize(size_t(p.n) * p.k);
  for (int n = 0; n < p.n; ++n) {
    for (int k = 0; k < p.k; ++k) {
      d.w[size_t(n) * p.k + k] = data.b[size_t(k) * p.n + n];
    }
  }
  d.bias = data.bias;
  return d;
}

// Throws Error for a matmul whose operands do not match its shape or that asks for a residual.
void check_matmul_data(const MatmulParams& p, const Epilogue& e, const MatmulData& data) {
  p.validate();
  if (e.residual) {
    throw Error(fmt::format("matmul '{}': residual epilogue is not supported", p.name));
  }
  if (data.a.size() != size_t(p.m) * p.k || data.b.size() != size_t(p.k) * p.n) {
    throw Error(fmt::format("matmul '{}': operand sizes do not match {}", p.name, p.describe()));
  }
}

// The convolution's output back as C (M x N).
std::vector<int8_t> matmul_output(const MatmulParams& p, const Conv2dParams& c,
                                  const std::vector<int8_t>& conv_out) {
  const int batch = c.n;
  std::vector<int8_t> out(size_t(p.m) * p.n);
  for (int m = 0; m < p.m; ++m) {
    for (int n = 0; n < p.n; ++n) {
      out[size_t(m) * p.n + n] = conv_out[(size_t(m % batch) * c.k + n) * c.w + m / batch];
    }
  }
  return out;
}

// The output of a convolution `p` (epilogue at the config's widths) against its reference.
void check_conv_output(LayerRun& r, const Conv2dParams& p, const Epilogue& e, const ConvData& data,
                       const LayerWidths& widths) {
  const size_t ow = size_t(p.out_w()), oh = size_t(p.out_h()), k = size_t(p.k);
  const auto ref =
      widths.is_int8()
          ? ReferenceCache::process().conv2d(p, e, data.x, data.w, data.bias, data.residual)
          : std::make_shared<const std::vector<int8_t>>(conv2d_reference_at(
                p, e, data.x, data.w, data.bias, data.residual, widths.accumulator()));
  compare_with_reference(r, *ref, [&](size_t i) {
    return fmt::format("n {} k {} y {} x {}", i / (ow * oh * k), (i / (ow * oh)) % k, (i / ow) % oh,
                       i % ow);
  });
}

// The output of a matmul (`e` as written; r.epilogue at the config's widths) against its
// reference.
void check_matmul_output(LayerRun& r, const MatmulParams& p, const Epilogue& e,
                         const MatmulData& data, const LayerWidths& widths) {
  const auto ref = widths.is_int8()
                       ? ReferenceCache::process().matmul(p, e, data.a, data.b, data.bias)
                       : std::make_shared<const std::vector<int8_t>>(matmul_reference_at(
                             p, r.epilogue, data.a, data.b, data.bias, widths.accumulator()));
  compare_with_reference(r, *ref,
                         [&](size_t i) { return fmt::format("row {} col {}", i / p.n, i % p.n); });
}

}  // namespace vta::compiler
