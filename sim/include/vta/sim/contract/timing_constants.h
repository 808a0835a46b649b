// Constants of the timing contract (sim/README.md) that the cycle model and the RTL must share.
// hw/gen/gen_vta_params emits them into the Verilog parameter header, so the RTL never restates
// them.
#pragma once

#include <cstdint>

namespace vta {

// Cycles from the issue of a GEMM/ALU uop iteration to the write of its result (uop read,
// operand read, multiply / ALU, accumulate and write): the end cycle of a GEMM with N
// iterations is S + N + kComputePipelineDepth.
constexpr uint64_t kComputePipelineDepth = 4;

// Read clients of the memory interface in priority order (lowest wins), as the upstream VME;
// the RTL's arbiter tags bursts with these numbers.
enum ReadClient : int { kClientFetch = 0, kClientUop, kClientInp, kClientWgt, kClientAcc };
constexpr int kNumReadClients = 5;
constexpr const char* kReadClientName[kNumReadClients] = {"fetch", "uop", "inp", "wgt", "acc"};

}  // namespace vta
