// batch_matmul: the product of two int8 activations, per sample n and channel c the H x W
// matrices (A: N x C x M x K, the input; B: N x C x K x P, the "residual" operand): attention's
// scores (Q K^T) and its weighted values. Exact: int32 accumulation, then the power-of-two
// requantisation q = round(acc * 2^(out_exp - a_exp - b_exp)) (ties away from zero), saturated
// to int8. On the host, or on VTA's GEMM core with B repacked on the host into the weight
// layout (run/batch_matmul_runner.h), whichever the estimates make faster (choose_placement;
// VTA's side includes the host's repacking).
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "ops/lane_kernels.h"
#include "ops/op_common.h"
#include "vta/compiler/codegen/lowered_program.h"
#include "vta/compiler/ops/float_math.h"
#include "vta/compiler/run/batch_matmul_runner.h"
#include "vta/sim/error.h"

namespace vta::compiler::ops {

namespace {

const std::vector<AttrSpec>& matmul_attrs() {
  static const std::vector<AttrSpec> specs{exponent_attr("a_exp", 4), exponent_attr("b_exp", 4),
                                           exponent_attr("out_exp", 4)};
  return specs;
}

// "p": the width of B (the output's), which the placement's estimates need from the layer
// alone; optional (0: not given, the layer then stays on the host), checked against B.
const std::vector<AttrSpec>& width_attr() {
  static const std::vector<AttrSpec> specs{{"p", 0, true, 0, double(kMaxTensorDim)}};
  return specs;
}

int attr(const NetworkLayer& l, size_t i) {
  return int(attr_value(l, matmul_attrs()[i]));
}

int width(const NetworkLayer& l) {
  return int(attr_value(l, width_attr()[0]));
}

void read_matmul(const nlohmann::json& j, const std::string& source, NetworkLayer& l) {
  read_attrs(j, source, l, matmul_attrs());
  read_attrs(j, source, l, width_attr());
}

void write_matmul(const NetworkLayer& l, nlohmann::ordered_json& j) {
  write_attrs(l, matmul_attrs(), j);
  if (width(l)) {
    write_attrs(l, width_attr(), j);
  }
}

TensorShape matmul_shape(const ShapeContext& ctx) {
  const NetworkLayer& l = ctx.layer;
  check_attrs(l, matmul_attrs());
  check_attrs(l, width_attr());
  auto b = ctx.shapes.find(l.residual);
  if (b == ctx.shapes.end()) {
    throw Error(fmt::format("layer '{}' reads unknown tensor '{}'", l.name, l.residual));
  }
  const TensorShape& a = ctx.in;
  std::vector<int> out;
  if (std::string e = batch_matmul_dims({a.n, a.c, a.h, a.w},
                                        {b->second.n, b->second.c, b->second.h, b->second.w}, out);
      !e.empty()) {
    throw Error(fmt::format("batch_matmul layer '{}': {}", l.name, e));
  }
  if (width(l) && width(l) != out[3]) {
    throw Error(fmt::format("batch_matmul layer '{}': \"p\" is {} but '{}' is {} wide", l.name,
                            width(l), l.residual, out[3]));
  }
  return TensorShape{out[0], out[1], out[2], out[3]};
}

// Without a design to compare on (choose_placement decides with one).
Placement place_matmul(const NetworkLayer&) {
  return Placement::kHost;
}

std::string matmul_attributes(const NetworkLayer& l) {
  return fmt::format("{} i8 x i8 -> i32 shift={}", attrs_text(l, matmul_attrs()),
                     attr(l, 0) + attr(l, 1) - attr(l, 2));
}

int product_scale(const NetworkLayer& l) {
  return attr(l, 2) - attr(l, 0) - attr(l, 1);
}

// The int8 reference: a (planes x M x K) times b (planes x K x P).
NetworkTensor matmul_reference(const NetworkLayer& l, const NetworkTensor& a,
                               const std::vector<int8_t>& b) {
  return batch_matmul_lanes(a, b, product_scale(l), -128, 127);
}

// On either path: int8 lanes, or the wide lanes of wide_network_run.h (exact int64 sums,
// saturated to the output lane).
template <class Ctx>
TensorOf<Ctx> run_matmul(const Ctx& ctx, std::string& note) {
  const NetworkLayer& l = ctx.layer;
  const TensorOf<Ctx>& a = ctx.in;
  const TensorOf<Ctx>& b = tensor_named(ctx, l.residual);
  note = fmt::format("{}: batch_matmul {}x{}x{} x {} planes ({}) on host", l.name, a.h, a.w, b.w,
                     a.n * a.c,
                     host_hi(ctx) == 127 ? "int8, int32 accumulation" : "int64 accumulation");
  return batch_matmul_lanes(a, b.data, product_scale(l), host_lo(ctx), host_hi(ctx));
}

// The layer's plan on VTA for input `in` (A) and the output width P its shape gives.
BatchMatmulPlan vta_plan(const NetworkLayer& l, const TensorShape& in, int p, const HwConfig& cfg) {
  return BatchMatmulPlan::make(l.name, in.n * in.c, in.h, in.w, p, product_scale(l), cfg);
}

// P from B, the layer's residual, whose shape the job's data gives: K x P per plane.
int job_p(const NetworkLayerJob& job) {
  const NetworkTensor& s = job.input_shape;
  return int(job.conv.residual.size() / (size_t(s.n) * size_t(s.c) * size_t(s.w)));
}

// The plan for input `in` with the layer's "p"; throws when the layer does not give it.
BatchMatmulPlan layer_plan(const NetworkLayer& l, const TensorShape& in, const HwConfig& cfg) {
  if (!width(l)) {
    throw Error(
        fmt::format("batch_matmul layer '{}' does not give the width of B (\"p\")", l.name));
  }
  return vta_plan(l, in, width(l), cfg);
}

// The int8 MACs; A, B and the output read or written once. Without "p": B square (K x K).
HostWorkCount matmul_host_work(const NetworkLayer& l, const TensorShape& in) {
  const uint64_t planes = uint64_t(in.n) * uint64_t(in.c), m = uint64_t(in.h);
  const uint64_t k = uint64_t(in.w), p = width(l) ? uint64_t(width(l)) : k;
  return {HostWork::kInt8Mac, planes * m * k * p, planes * (m * k + k * p + m * p)};
}

// On VTA the host repacks B into the weight layout: one operation per value read or written.
HostWorkCount matmul_repack_work(const NetworkLayer& l, const TensorShape& in) {
  const uint64_t values = batch_matmul_repack_values(in.n * in.c, in.w, width(l));
  return {HostWork::kElementwise, values, values};
}

uint64_t matmul_cycles(const NetworkLayer& l, const TensorShape& in, const HwConfig& cfg) {
  return batch_matmul_cycle_estimate(layer_plan(l, in, cfg), cfg);
}

// One plane's GEMM program (the run repeats it for every plane, then the ALU's requantisation).
std::shared_ptr<const RecordingSink> lower_matmul(const NetworkLayer& l, const TensorShape& in,
                                                  const HwConfig& cfg) {
  const BatchMatmulPlan plan = layer_plan(l, in, cfg);
  return lower_conv2d(cfg, matmul_as_conv(plan.gemm, cfg), plan.epilogue,
                      batch_matmul_schedule(plan, cfg));
}

void make_matmul_job(const OpContext& ctx, NetworkLayerJob& job) {
  job.conv.x = ctx.in.data;
  job.conv.residual = named_tensor(ctx, ctx.layer.residual).data;
}

NetworkTensor matmul_job_reference(const NetworkLayer& l, const NetworkLayerJob& job) {
  NetworkTensor a = job.input_shape;
  a.data = job.conv.x;
  return matmul_reference(l, a, job.conv.residual);
}

VtaLayerResult run_matmul_job(const Target& target, const Network&, const NetworkLayer& l,
                              const NetworkLayerJob& job, const NetworkOptions& opt) {
  const NetworkTensor& s = job.input_shape;
  const TensorShape in{s.n, s.c, s.h, s.w};
  const BatchMatmulPlan plan = vta_plan(l, in, job_p(job), target.config);
  std::vector<int8_t> ref;
  if (opt.check) {
    ref = matmul_job_reference(l, job).data;
  }
  LayerRun run = run_batch_matmul(target, plan, batch_matmul_schedule(plan, target.config),
                                  job.conv.x, job.conv.residual, opt.check ? &ref : nullptr);
  NetworkTensor out{s.n, s.c, s.h, plan.p, run.out};
  return {std::move(run), std::move(out)};
}

}  // namespace

const OpDef& batch_matmul_op() {
  static const OpDef def = [] {
    OpDef d;
    d.name = "batch_matmul";
    d.json_keys = {"name", "op", "input", "residual", "a_exp", "b_exp", "out_exp", "p"};
    d.from_graph_op = GraphOp::kBatchMatMul;
    d.read_json = read_matmul;
    d.write_json = write_matmul;
    d.infer_shape = matmul_shape;
    d.place = place_matmul;
    d.attributes = matmul_attributes;
    d.run_host = run_matmul<OpContext>;
    d.run_host_wide = run_matmul<WideOpContext>;
    d.host_work = matmul_host_work;
    d.vta_host_work = matmul_repack_work;
    d.vta.make_job = make_matmul_job;
    d.vta.reference = matmul_job_reference;
    d.vta.run = run_matmul_job;
    d.vta.lower = lower_matmul;
    d.vta.estimate_cycles = matmul_cycles;
    return d;
  }();
  return def;
}

}  // namespace vta::compiler::ops
