// Runs the operators VTA executes on its ALU alone (a max pool, codegen/alu_pool.h; a clamped
// sum, codegen/alu_elementwise.h) on a Target: packs the NCHW operands with BLOCK_OUT channels
// per element, runs the program, reads the output back and, given a reference, compares it bit
// for bit.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "vta/compiler/codegen/alu_elementwise.h"
#include "vta/compiler/codegen/alu_pool.h"
#include "vta/compiler/codegen/recording_sink.h"
#include "vta/compiler/run/layer_runner.h"

namespace vta::compiler {

// `x`: N*C*H*W int8. With `reference` (N*C*OH*OW), LayerRun::checked and its mismatches.
// Throws vta::Error when no plan fits the target's config or x has the wrong size.
LayerRun run_alu_pool(const Target& target, const std::string& name, const PoolWindow& p,
                      const std::vector<int8_t>& x, const std::vector<int8_t>* reference);

// The program of the pool, recorded without running (buffers "data" and "res").
std::unique_ptr<RecordingSink> lower_alu_pool(const HwConfig& cfg, const PoolWindow& p);

// `a`, `b`: N*C*H*W int8 each (the plan's shape; `b` unused by a unary plan); with
// `reference`, as run_alu_pool.
LayerRun run_alu_add(const Target& target, const std::string& name, const AluAddPlan& plan,
                     const std::vector<int8_t>& a, const std::vector<int8_t>& b,
                     const std::vector<int8_t>* reference);
// The program of the sum (buffers "a", "b" and "res").
std::unique_ptr<RecordingSink> lower_alu_add(const AluAddPlan& plan);

}  // namespace vta::compiler
