// The honest bound of a layer and the verdict on what limits a run.
//
// A layer cannot finish faster than its compute unit or its DRAM allow:
//   compute bound = GEMM micro-ops + the epilogue's minimum ALU issue cycles (both issue on the
//                   compute unit, one micro-op per cycle; a vector ALU op takes two cycles)
//                   + the bus cycles of the bias and residual, which the compute unit loads,
//   memory bound  = the minimum DRAM bytes (every operand moved once) at the design's
//                   bandwidth (dram_cycles: reads and writes have separate channels; with the
//                   DRAM model its sustained rate on the one DRAM data bus as well),
//   bound         = the larger of the two; the run's verdict names what keeps it above it.
#pragma once

#include <cstdint>
#include <string>

#include "vta/compiler/scheduling/schedule.h"
#include "vta/compiler/scheduling/workload.h"
#include "vta/sim/dram_spec.h"
#include "vta/sim/hw_config.h"
#include "vta/sim/memory_model.h"
#include "vta/sim/stats.h"

namespace vta::compiler {

// Core cycles to move the given bytes at the design's bandwidth: the analytic bandwidth of the
// config's memory model (vta/sim/memory_model.h; the formulas are in each model's file,
// sim/src/<model>_memory_model.cc). The one place the compiler estimates memory time (bound,
// verdict and the scheduler's cost model).
double dram_cycles(double read_bytes, double write_bytes, const HwConfig& cfg);
// The same bandwidth as rates, for callers that ask many times under one config.
MemoryTransferRates dram_transfer_rates(const HwConfig& cfg);

// Core cycles from a read request to its first data beat, for the cost model: the memory
// model's analytic read latency.
double dram_read_latency(const HwConfig& cfg);

// Minimum DRAM traffic of a blocked layer, by the upstream counting rules: the input pixels
// some window reads (all of them unless the stride skips some), weights, bias and residual
// read once, the output written once.
struct MinimumBytes {
  uint64_t read = 0, write = 0;  // by the upstream counting rules
  // Of `read`: bias and residual as counted, and as the DMA moves them over the bus (a LOAD
  // ACC_8BIT element is BATCH x BLOCK_OUT bytes in DRAM but counts as an accumulator element).
  uint64_t acc_counted = 0, acc_moved = 0;
  uint64_t total() const { return read + write; }
  uint64_t dram_read() const { return read - acc_counted + acc_moved; }
};
MinimumBytes minimum_bytes(const BlockedConv& g, const Epilogue& e, const HwConfig& cfg);

// ALU issue cycles the epilogue needs at least: per accumulator element 1 per immediate op
// (shift, max, min) and 2 per vector op (bias, residual); a residual that initialises the
// accumulator (residual_initialises_acc) costs one immediate shift instead, none without one.
uint64_t epilogue_alu_cycles(const Epilogue& e, uint64_t acc_elems, bool residual_init);

struct LayerBound {
  uint64_t gemm_cycles = 0;      // GEMM micro-ops of the blocked layer
  uint64_t alu_cycles = 0;       // epilogue_alu_cycles over every output element
  uint64_t acc_load_cycles = 0;  // bus cycles of the bias and residual loads (compute unit)
  uint64_t compute_cycles = 0;   // gemm_cycles + alu_cycles + acc_load_cycles
  MinimumBytes bytes;
  double memory_cycles = 0;  // dram_cycles(bytes.dram_read(), bytes.write)
  double cycles = 0;         // max(compute_cycles, memory_cycles)
  bool memory_binds() const { return memory_cycles > double(compute_cycles); }
  const char* binding() const { return memory_binds() ? "memory" : "compute"; }
};
// `bytes`: the minimum traffic (with a kernel fold, the smaller of the layer as written and
// the folded one); `g`: the layer the GEMMs execute.
LayerBound layer_bound(const BlockedConv& g, const Epilogue& e, const MinimumBytes& bytes,
                       const HwConfig& cfg);

// What keeps a run at its cycle count: a short key and a sentence a user can act on.
struct Verdict {
  std::string key;  // gemm_issue | alu_epilogue | dram_bandwidth | dram_latency | untimed
  std::string advice;
};
// Runs within kAtBound of their bound are at the bound (GEMM issue, ALU epilogue or DRAM
// bandwidth, whichever binds). Slower ones: a compute unit busy >= 90% of the cycles is the
// limit (GEMM issue, or ALU epilogue when ALU ops are >= 30% of its busy cycles); otherwise the
// bytes moved (DRAM bandwidth) when they need more cycles than the compute bound, else DRAM
// latency and the dependencies between the units.
constexpr double kAtBound = 1.10;
// `s`: the run's counters.
Verdict verdict_of(const LayerBound& b, const Stats& s, const HwConfig& cfg);

}  // namespace vta::compiler
