#include "ops/average_pool_alu.h"

#include <algorithm>

#include <fmt/format.h>

#include "vta/compiler/run/alu_runner.h"
#include "vta/sim/error.h"

namespace vta::compiler::ops {

namespace {

// The divisor every output shares: the whole window with count_include_pad or when no window
// reaches outside the input; 0 when the outputs' divisors differ.
int shared_divisor(const NetworkLayer& l, const TensorShape& in) {
  const TensorShape s = window_shape(l, in);
  const bool inside = l.pad_top == 0 && l.pad_left == 0 && (s.h - 1) * l.stride_h + l.kh <= in.h &&
                      (s.w - 1) * l.stride_w + l.kw <= in.w;
  return l.count_include_pad || inside ? l.kh * l.kw : 0;
}

int log2_exact(int v) {
  int k = 0;
  while (v > 1 && v % 2 == 0) {
    v /= 2, ++k;
  }
  return v == 1 ? k : -1;
}

// Whether `finish`, clamped to int8, gives the host's mean for every sum of `div` int8 values.
bool exact(const std::vector<AluStep>& finish, int div, int rescale) {
  for (int64_t sum = -128 * int64_t(div); sum <= 127 * int64_t(div); ++sum) {
    const int32_t v = std::clamp(apply_alu_steps(finish, int32_t(sum), 0), -128, 127);
    if (v != scaled_mean(sum, div, rescale)) {
      return false;
    }
  }
  return true;
}

std::vector<AluStep> finish_steps(int div, int r) {
  // |sum| <= 128 div: one SHR 15 of its copy gives its sign up to 2^15.
  std::vector<AluStep> s;
  if (r < 0) {
    s = {{kAluMax, -128}, {kAluMin, 128}};  // saturates either way; the shift cannot wrap
  }
  const std::vector<AluStep> shift = round_shift_steps(r, 128 * int64_t(div) < (1 << 15) ? 1 : 2);
  s.insert(s.end(), shift.begin(), shift.end());
  return s;
}

}  // namespace

PoolWindow alu_average_window(const NetworkLayer& l, const TensorShape& in) {
  const int div = shared_divisor(l, in), k = log2_exact(div), r = k - l.rescale;
  if (div == 0 || k < 0) {
    throw Error(
        fmt::format("{} layer '{}': its windows do not share one power-of-two divisor ({}x{}, "
                    "count_include_pad={}, pad={},{})",
                    l.op, l.name, l.kh, l.kw, l.count_include_pad, l.pad_top, l.pad_left));
  }
  if (r < -15 || r > 15 || div > 4096) {
    throw Error(fmt::format(
        "{} layer '{}': a shift of {} (beyond -15..15) or a window of more than 4,096 values", l.op,
        l.name, r));
  }
  PoolWindow p = pool_window(l, in);
  p.average = true;
  p.finish = finish_steps(div, r);
  if (!exact(p.finish, div, l.rescale)) {
    throw Error(fmt::format("{} layer '{}': no exact integer form on the ALU", l.op, l.name));
  }
  return p;
}

void make_average_pool_job(const OpContext& ctx, NetworkLayerJob& job) {
  job.conv.x = ctx.in.data;
}

NetworkTensor average_pool_job_reference(const NetworkLayer& l, const NetworkLayerJob& job) {
  NetworkTensor in = job.input_shape;
  in.data = job.conv.x;
  return average_pool(in, l);
}

VtaLayerResult run_average_pool_job(const Target& target, const NetworkLayer& l,
                                    const NetworkLayerJob& job, const NetworkOptions& opt) {
  const NetworkTensor& s = job.input_shape;
  const PoolWindow p = alu_average_window(l, TensorShape{s.n, s.c, s.h, s.w});
  std::vector<int8_t> ref;
  if (opt.check) {
    ref = average_pool_job_reference(l, job).data;
  }
  LayerRun run = run_alu_pool(target, l.name, p, job.conv.x, opt.check ? &ref : nullptr);
  NetworkTensor out{p.n, p.c, p.oh, p.ow, run.out};
  return {std::move(run), std::move(out)};
}

std::shared_ptr<const RecordingSink> lower_average_pool(const NetworkLayer& l,
                                                        const TensorShape& in,
                                                        const HwConfig& cfg) {
  return lower_alu_pool(cfg, alu_average_window(l, in));
}

uint64_t average_pool_cycles(const NetworkLayer& l, const TensorShape& in, const HwConfig& cfg) {
  return alu_pool_cycle_estimate(AluPoolPlan::make(alu_average_window(l, in), cfg), cfg);
}

}  // namespace vta::compiler::ops
