// The product of two int8 activations per plane (attention's Q K^T and its weighted values) on
// VTA's GEMM core, requantised exactly as the host does it: q = round(acc * 2^scale), ties away
// from zero, saturated to int8, where acc is the int32 sum of a plane's products.
//
// Per plane, A (M x K) is the GEMM's input and B (K x P), repacked on the host into the weight
// layout (B^T in BLOCK_OUT x BLOCK_IN tiles), its weights: one matmul program per plane
// (run_matmul). With r = -scale > 0 the GEMM epilogue's rounding shift (Epilogue::round: the
// sum's sign in a scratch region of the accumulator, (acc - [acc < 0]) >> (r - 1), + 1, >> 1)
// and its clamp give q. r is capped at 31: with K <= 65535 every |acc| <= K * 2^14 < 2^30 rounds
// to 0 from r = 31 on, as at any larger r. With scale = 0 the GEMM's clamp is the result; with
// scale > 0 one ALU program over all planes shifts the clamped sum left (saturated: values
// beyond int8 stay beyond it) and clamps again.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "vta/compiler/codegen/alu_elementwise.h"
#include "vta/compiler/run/layer_runner.h"

namespace vta::compiler {

struct BatchMatmulPlan {
  int planes = 1, m = 1, k = 1, p = 1;
  int scale = 0;                  // out_exp - a_exp - b_exp: q = round(acc * 2^scale)
  MatmulParams gemm;              // one plane: M x K times K x P
  Epilogue epilogue;              // rounding right shift, clamp to int8
  std::optional<AluAddPlan> alu;  // the left shift over all planes

  std::string describe() const;  // "8 x 6x8 * 8x6, scale 2^-3"
  // Throws vta::Error naming `name` for sizes the GEMM or the ALU cannot take.
  static BatchMatmulPlan make(const std::string& name, int planes, int m, int k, int p, int scale,
                              const HwConfig& cfg);
};

// Plane `plane`'s weight operand of the GEMM (K x P) from b (planes x K x P): the host's
// repacking of an activation into the weights VTA reads.
std::vector<int8_t> batch_matmul_weights(const BatchMatmulPlan& plan, const std::vector<int8_t>& b,
                                         int plane);
// Values the host repacking reads and writes for `planes` planes of B (K x P): B read once, the
// weight operand written.
uint64_t batch_matmul_repack_values(int planes, int k, int p);

// VTA cycles by the automatic schedule's estimate (auto_schedule.h) for every plane's program
// and the ALU program's (alu_add_cycle_estimate), each with the start of a program.
uint64_t batch_matmul_cycle_estimate(const BatchMatmulPlan& plan, const HwConfig& cfg);
// The automatic schedule of one plane's GEMM.
ConvSchedule batch_matmul_schedule(const BatchMatmulPlan& plan, const HwConfig& cfg);

// `a`: planes x M x K, `b`: planes x K x P (int8, row-major). The run's counters are the sum
// over the programs. With `reference` (planes x M x P), LayerRun::checked and its mismatches.
LayerRun run_batch_matmul(const Target& target, const BatchMatmulPlan& plan, const ConvSchedule& s,
                          const std::vector<int8_t>& a, const std::vector<int8_t>& b,
                          const std::vector<int8_t>* reference);

}  // namespace vta::compiler
