// Average pools on VTA's ALU (codegen/alu_pool.h), for avgpool and global_avgpool: the sum of
// the taps, then the host's rounding as an ALU shift. Exact only when every output's divisor is
// the same power of two (count_include_pad, or every window inside the input) and the shift is
// one the immediates hold; the form is checked against the host's int8 mean for every sum the
// window can give when it is chosen.
#pragma once

#include "ops/op_common.h"

namespace vta::compiler::ops {

// The ALU window of pool layer `l` (kernel, stride, pads, count_include_pad, rescale) on input
// `in`; throws vta::Error naming the layer when it has no exact form.
PoolWindow alu_average_window(const NetworkLayer& l, const TensorShape& in);

// The VTA hooks of a pool layer in window form (global_avgpool: its whole-input window).
void make_average_pool_job(const OpContext& ctx, NetworkLayerJob& job);
NetworkTensor average_pool_job_reference(const NetworkLayer& l, const NetworkLayerJob& job);
VtaLayerResult run_average_pool_job(const Target& target, const NetworkLayer& l,
                                    const NetworkLayerJob& job, const NetworkOptions& opt);
std::shared_ptr<const RecordingSink> lower_average_pool(const NetworkLayer& l,
                                                        const TensorShape& in, const HwConfig& cfg);
uint64_t average_pool_cycles(const NetworkLayer& l, const TensorShape& in, const HwConfig& cfg);

}  // namespace vta::compiler::ops
