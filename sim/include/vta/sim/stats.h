// Stats: what a backend reports about everything it ran since the last clear.
// The seven upstream counters follow the exact fsim counting rules (vta-reference.md 5.1) on
// every backend; timed backends add `cycles` and their own named counters.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace vta {

// A backend-specific counter with its unit and meaning (e.g. "load.stall_token_cycles").
struct NamedCounter {
  std::string name;
  double value = 0;
  std::string unit;         // "cycles", "bytes", "bytes/cycle", "ratio", ...
  std::string description;  // one line
};

struct Stats {
  // ---- upstream fsim counters ----
  uint64_t inp_load_nbytes = 0;   // bytes, LOAD INP with x_size > 0: x*y*INP_ELEM_BYTES
  uint64_t wgt_load_nbytes = 0;   // bytes, LOAD WGT: x*y*WGT_ELEM_BYTES
  uint64_t acc_load_nbytes = 0;   // bytes, LOAD ACC and ACC_8BIT: x*y*ACC_ELEM_BYTES
  uint64_t uop_load_nbytes = 0;   // bytes, LOAD UOP: x*y*4
  uint64_t out_store_nbytes = 0;  // bytes, STORE: x*y*OUT_ELEM_BYTES
  uint64_t gemm_counter = 0;      // micro-op executions of GEMMs with reset_reg = 0
  uint64_t alu_counter = 0;       // micro-op executions of ALU instructions
  // ---- ours ----
  std::array<uint64_t, 8> insn_count{};  // instructions executed, indexed by opcode
  uint64_t runs = 0;                     // VTADeviceRun calls served
  bool timed = false;                    // true on cycle/rtl: `cycles` is meaningful
  uint64_t cycles = 0;                   // clock cycles, summed over runs
  std::vector<NamedCounter> extra;       // backend-specific counters

  // Adds `value` to the named counter, creating it on first use.
  void add(const std::string& name, double value, const std::string& unit,
           const std::string& description);
  const NamedCounter* find(const std::string& name) const;
  // Adds the upstream counters, instruction counts, runs and cycles of `o` (a later run or
  // layer); `timed` and the backend's own counters are left to the caller.
  void add_counts(const Stats& o);
  void clear() { *this = Stats{}; }
  // JSON object: the seven upstream keys first (upstream order), then insn counts, cycles (timed
  // backends only) and the extra counters as {"name": value}.
  nlohmann::ordered_json to_json() const;
};

}  // namespace vta
