#include "vta/compiler/run/batch_matmul_runner.h"

#include <algorithm>

#include <fmt/format.h>

#include "vta/compiler/run/alu_runner.h"
#include "vta/compiler/scheduling/auto_schedule.h"
#include "vta/compiler/scheduling/bound.h"
#include "vta/sim/error.h"

namespace vta::compiler {

namespace {

// From r = 31 on every |acc| < 2^30 rounds to 0 (see the header).
constexpr int kMaxRightShift = 31;
// A left shift by 8 saturates every nonzero int8 value.
constexpr int kSaturatingLeftShift = 8;

// The ALU steps of a left shift after the GEMM's clamp, before the final clamp to int8.
std::vector<AluStep> left_shift_steps(int scale) {
  if (scale < kSaturatingLeftShift) {  // |a| <= 128: a << scale fits
    return {{kAluShr, -scale}};
  }
  return {{kAluMax, -1}, {kAluMin, 1}, {kAluShr, -kSaturatingLeftShift}};
}

// Plane `plane` of `x` (planes x rows x cols).
std::vector<int8_t> plane_of(const std::vector<int8_t>& x, int plane, int rows, int cols) {
  const size_t size = size_t(rows) * size_t(cols);
  return {x.begin() + long(size_t(plane) * size), x.begin() + long(size_t(plane + 1) * size)};
}

void compare_planes(const BatchMatmulPlan& plan, LayerRun& r, const std::vector<int8_t>& ref) {
  r.checked = true;
  const size_t m = size_t(plan.m), p = size_t(plan.p);
  for (size_t i = 0; i < ref.size(); ++i) {
    if (ref[i] != r.out[i] && r.mismatches++ == 0) {
      r.first_mismatch = fmt::format("plane {} row {} col {}: got {}, expected {}", i / (m * p),
                                     (i / p) % m, i % p, int(r.out[i]), int(ref[i]));
    }
  }
}

}  // namespace

std::string BatchMatmulPlan::describe() const {
  return fmt::format("{} x {}x{} * {}x{}, scale 2^{}", planes, m, k, k, p, scale);
}

BatchMatmulPlan BatchMatmulPlan::make(const std::string& name, int planes, int m, int k, int p,
                                      int scale, const HwConfig& cfg) {
  BatchMatmulPlan plan;
  plan.planes = planes, plan.m = m, plan.k = k, plan.p = p, plan.scale = scale;
  if (planes < 1 || k > kMaxTensorDim) {
    throw Error(fmt::format("batch_matmul '{}': {} planes of K = {} (1..{} needed)", name, planes,
                            k, kMaxTensorDim));
  }
  plan.gemm.name = name;
  plan.gemm.m = m, plan.gemm.k = k, plan.gemm.n = p;
  plan.gemm.validate();
  plan.epilogue.clip_lo = -128, plan.epilogue.clip_hi = 127;
  if (scale < 0) {
    plan.epilogue.shift = std::min(-scale, kMaxRightShift);
    plan.epilogue.round = true;
  }
  if (scale > 0) {
    const uint64_t values = uint64_t(planes) * uint64_t(m) * uint64_t(p);
    if (values >= (uint64_t(1) << 31)) {
      throw Error(fmt::format("batch_matmul '{}': {} output values are too many for the ALU", name,
                              values));
    }
    plan.alu =
        AluAddPlan::make_unary(1, int(values), 1, 1, left_shift_steps(scale), -128, 127, cfg);
  }
  return plan;
}

std::vector<int8_t> batch_matmul_weights(const BatchMatmulPlan& plan, const std::vector<int8_t>& b,
                                         int plane) {
  return plane_of(b, plane, plan.k, plan.p);  // K x P: run_matmul lays it out as B^T tiles
}

uint64_t batch_matmul_repack_values(int planes, int k, int p) {
  return 2 * uint64_t(planes) * uint64_t(k) * uint64_t(p);
}

ConvSchedule batch_matmul_schedule(const BatchMatmulPlan& plan, const HwConfig& cfg) {
  return auto_schedule(matmul_as_conv(plan.gemm, cfg), plan.epilogue, cfg);
}

uint64_t batch_matmul_cycle_estimate(const BatchMatmulPlan& plan, const HwConfig& cfg) {
  const Conv2dParams c = matmul_as_conv(plan.gemm, cfg);
  const TilePlan tiles =
      TilePlan::make(c, plan.epilogue, auto_schedule(c, plan.epilogue, cfg), cfg);
  const double start = 2 * dram_read_latency(cfg);
  uint64_t cycles = uint64_t(estimate_cycles(tiles, cfg) + start) * uint64_t(plan.planes);
  if (plan.alu) {
    cycles += alu_add_cycle_estimate(*plan.alu, cfg) + uint64_t(start);
  }
  return cycles;
}

LayerRun run_batch_matmul(const Target& target, const BatchMatmulPlan& plan, const ConvSchedule& s,
                          const std::vector<int8_t>& a, const std::vector<int8_t>& b,
                          const std::vector<int8_t>* reference) {
  const size_t planes = size_t(plan.planes);
  if (a.size() != planes * size_t(plan.m) * size_t(plan.k) ||
      b.size() != planes * size_t(plan.k) * size_t(plan.p)) {
    throw Error(fmt::format("batch_matmul '{}': operands of {} and {} values do not fit {}",
                            plan.gemm.name, a.size(), b.size(), plan.describe()));
  }
  std::vector<int8_t> out;
  out.reserve(planes * size_t(plan.m) * size_t(plan.p));
  LayerRun r;
  for (int pl = 0; pl < plan.planes; ++pl) {
    MatmulData d{plane_of(a, pl, plan.m, plan.k), batch_matmul_weights(plan, b, pl), {}};
    const LayerRun part = run_matmul(target, plan.gemm, plan.epilogue, s, d, false);
    out.insert(out.end(), part.out.begin(), part.out.end());
    if (pl == 0) {
      r = part;
    } else {
      r.add_program(part);
    }
  }
  r.macs = uint64_t(planes) * uint64_t(plan.m) * uint64_t(plan.k) * uint64_t(plan.p);
  if (plan.alu) {
    const LayerRun alu = run_alu_add(target, plan.gemm.name, *plan.alu, out, {}, nullptr);
    r.add_program(alu);
    r.out = alu.out;
  } else {
    r.out = std::move(out);
  }
  r.verdict = verdict_of(r.bound, r.stats, target.config);
  r.kind = "batch_matmul";
  r.shape = plan.describe();
  if (reference) {
    compare_planes(plan, r, *reference);
  }
  return r;
}

}  // namespace vta::compiler
