// Runs one compiled layer on a Target: packs the user's tensors into the blocked layouts,
// allocates device buffers, emits the program into the runtime adapter's sink (which makes the
// runtime serve the target and verifies every synchronised program), synchronises, reads the
// result back into the user's layout, and checks it bit for bit against the plain C++
// reference.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vta/compiler/scheduling/bound.h"
#include "vta/compiler/scheduling/schedule.h"
#include "vta/compiler/scheduling/workload.h"
#include "vta/compiler/target.h"
#include "vta/sim/stats.h"

namespace vta::compiler {

struct ConvData {
  std::vector<int8_t> x;         // N*C*H*W
  std::vector<int8_t> w;         // K*C*KH*KW
  std::vector<int32_t> bias;     // K (if the epilogue has a bias)
  std::vector<int8_t> residual;  // N*K*OH*OW (if the epilogue has a residual)
};
// Uniform int8 data in [-128, 127], bias in [-2^14, 2^14), from a seed.
ConvData random_conv_data(const Conv2dParams& p, const Epilogue& e, uint64_t seed);
// The same weights and bias without the input and residual, for a caller that brings its own
// (a network layer): the input's draws are skipped, not stored.
ConvData random_conv_weights(const Conv2dParams& p, const Epilogue& e, uint64_t seed);

struct MatmulData {
  std::vector<int8_t> a;      // M*K
  std::vector<int8_t> b;      // K*N
  std::vector<int32_t> bias;  // N
};
MatmulData random_matmul_data(const MatmulParams& p, const Epilogue& e, uint64_t seed);

// What one layer run produced and measured.
// Its scalar fields are described once, in layer_fields.cc (key, unit, description, accessor),
// which the JSON report, the worker codec (network -j N), Python and sweep rows read: a new
// scalar field needs its entry there.
struct LayerRun {
  std::string name, kind, shape;  // "resnet18.C8", "conv2d", "1x256x14x14 * ..."
  ConvSchedule schedule;
  Epilogue epilogue;
  std::string backend, config;
  std::vector<int8_t> out;  // user layout (NCHW, or M*N for matmul)
  Stats stats;
  double wall_seconds = 0;
  uint64_t macs = 0;                 // real multiply-accumulates
  uint64_t gemm_bound = 0;           // GEMM micro-op executions of the blocked layer (cycle bound)
  uint64_t peak_macs_per_cycle = 0;  // BATCH * BLOCK_IN * BLOCK_OUT
  uint64_t min_bytes = 0;            // every operand moved once, counted by the upstream rules
  LayerBound bound;                  // the honest bound (compute or memory, whichever is larger)
  Verdict verdict;                   // what keeps the run at its cycles (from the counters)
  size_t kernels = 0, kernel_uops = 0;
  // With CORES and a split (Target::layer_split): how the layer went to the cores,
  // "channels: 4 output-channel blocks: 2 + 2 on 2 cores" (empty: core 0, no split asked).
  std::string split;
  bool checked = false;
  size_t mismatches = 0;
  std::string first_mismatch;

  uint64_t moved_bytes() const;
  // Adds the counters, bounds and wall time of another program of the same layer (a layer run
  // as several programs: grouped convolutions, batch_matmul's planes).
  void add_program(const LayerRun& part);
  bool ok() const { return !checked || mismatches == 0; }
};

// Throws Error if the schedule does not fit the target's config, if the data do not match the
// shape, or for a runtime or program verifier failure. With `check`, compares the result with
// the reference (LayerRun::mismatches).
LayerRun run_conv2d(const Target& target, const Conv2dParams& p, const Epilogue& e,
                    const ConvSchedule& s, const ConvData& data, bool check);
// Matmul as a 1x1 convolution: rows of A become BATCH lanes x columns, K the input channels,
// N the output channels (schedule: tile_h 1, tile_w = rows/BATCH per tile).
LayerRun run_matmul(const Target& target, const MatmulParams& p, const Epilogue& e,
                    const ConvSchedule& s, const MatmulData& data, bool check);
// The convolution a matmul is mapped to on a config (its BATCH).
Conv2dParams matmul_as_conv(const MatmulParams& p, const HwConfig& cfg);

}  // namespace vta::compiler
