// Runs a max pool on VTA's ALU (codegen/alu_pool.h) on a Target: packs the NCHW input with
// BLOCK_OUT channels per element, runs the program, reads the output back and, given a
// reference, compares it bit for bit.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "vta/compiler/codegen/alu_pool.h"
#include "vta/compiler/codegen/recording_sink.h"
#include "vta/compiler/run/layer_runner.h"

namespace vta::compiler {

// `x`: N*C*H*W int8. With `reference` (N*C*OH*OW), LayerRun::checked and its mismatches.
// Throws vta::Error when no plan fits the target's config or x has the wrong size.
LayerRun run_alu_maxpool(const Target& target, const std::string& name, const PoolWindow& p,
                         const std::vector<int8_t>& x, const std::vector<int8_t>* reference);

// The program of the pool, recorded without running (buffers "data" and "res").
std::unique_ptr<RecordingSink> lower_alu_maxpool(const HwConfig& cfg, const PoolWindow& p);

}  // namespace vta::compiler
