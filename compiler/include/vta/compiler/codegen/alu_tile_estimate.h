// The cycle estimate of an ALU-only program (max pool, elementwise operators): the program's
// start, then per tile its loads and ALU kernels on the compute unit (a kernel's LOAD UOP the
// first time it is used) and its store; with two accumulator slots one tile's store overlaps
// the next tile's compute, so the longer of the two chains decides.
#pragma once

#include <algorithm>
#include <cstdint>
#include <set>
#include <string>

#include "vta/compiler/codegen/micro_kernel.h"
#include "vta/compiler/scheduling/bound.h"

namespace vta::compiler {

class AluTileEstimate {
 public:
  explicit AluTileEstimate(const HwConfig& cfg)
      : m_cfg(cfg), m_latency(uint64_t(dram_read_latency(cfg))), m_compute(2 * m_latency) {}

  // One LOAD of `bytes` on the compute unit.
  uint64_t load(double bytes) const {
    return m_latency + uint64_t(dram_cycles(bytes, 0, m_cfg)) + 1;
  }
  // One ALU instruction running `k`, plus its LOAD UOP when `key` is new to the program.
  uint64_t kernel(const MicroKernel& k, const std::string& key) {
    const uint64_t run = k.use_imm ? k.executions() + 4 : 2 * k.executions() + 3;
    return run + (m_kernels.insert(key).second ? m_latency + 2 : 0);
  }
  // A tile whose compute took `compute` cycles and whose output is `out_bytes`.
  void add_tile(uint64_t compute, double out_bytes) {
    const uint64_t store =
        uint64_t(m_cfg.dram_write_latency_cycles) + uint64_t(dram_cycles(0, out_bytes, m_cfg));
    m_first_compute = m_tiles++ == 0 ? compute : m_first_compute;
    m_last_store = store;
    m_compute += compute;
    m_store += store;
  }
  uint64_t total(int slots) const {
    if (slots == 1) {
      return m_compute + m_store;
    }
    return std::max(m_compute + m_last_store, m_first_compute + m_store);
  }

 private:
  const HwConfig& m_cfg;
  uint64_t m_latency;
  uint64_t m_compute, m_store = 0, m_first_compute = 0, m_last_store = 0, m_tiles = 0;
  std::set<std::string> m_kernels;
};

}  // namespace vta::compiler
