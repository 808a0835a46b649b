// The VTA job of a two-operand elementwise operator run as one ALU program (add, mul): the
// job's input is a, the layer's `residual` tensor b; the operator gives its plan and its int8
// reference, the rest is the same for every such operator.
#pragma once

#include <utility>
#include <vector>

#include "ops/op_common.h"
#include "vta/compiler/codegen/alu_elementwise.h"
#include "vta/compiler/run/alu_runner.h"

namespace vta::compiler::ops {

using BinaryAluPlan = AluAddPlan (*)(const NetworkLayer&, const TensorShape&, const HwConfig&);
using BinaryAluReference = NetworkTensor (*)(const NetworkLayer&, const NetworkTensor&,
                                             const std::vector<int8_t>&);

inline void make_binary_alu_job(const OpContext& ctx, NetworkLayerJob& job) {
  job.conv.x = ctx.in.data;
  job.conv.residual = named_tensor(ctx, ctx.layer.residual).data;
}

inline NetworkTensor binary_alu_job_reference(const NetworkLayer& l, const NetworkLayerJob& job,
                                              BinaryAluReference reference) {
  NetworkTensor a = job.input_shape;
  a.data = job.conv.x;
  return reference(l, a, job.conv.residual);
}

inline VtaLayerResult run_binary_alu_job(const Target& target, const NetworkLayer& l,
                                         const NetworkLayerJob& job, const NetworkOptions& opt,
                                         BinaryAluPlan plan, BinaryAluReference reference) {
  const NetworkTensor& s = job.input_shape;
  const AluAddPlan p = plan(l, TensorShape{s.n, s.c, s.h, s.w}, target.config);
  std::vector<int8_t> ref;
  if (opt.check) {
    ref = binary_alu_job_reference(l, job, reference).data;
  }
  LayerRun run =
      run_alu_add(target, l.name, p, job.conv.x, job.conv.residual, opt.check ? &ref : nullptr);
  NetworkTensor out{s.n, s.c, s.h, s.w, run.out};
  return {std::move(run), std::move(out)};
}

}  // namespace vta::compiler::ops
