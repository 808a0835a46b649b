// Building VTA programs directly as instruction streams in simulated DRAM, the way upstream's
// hardware tests do (tests/hardware/common/test_lib.cc: get2DLoadStoreInsn, getGEMMInsn,
// getALUInsn, getFinishInsn), plus tensor packing helpers and the upstream counter rules
// (vta-reference.md 5.1) computed independently of any backend.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "vta/sim/backend.h"
#include "vta/sim/dram.h"
#include "vta/sim/hw_config.h"
#include "vta/sim/isa.h"
#include "vta/sim/stats.h"

namespace vta::testprog {

// Dependency flags of one instruction.
struct Deps {
  bool pop_prev = false;
  bool pop_next = false;
  bool push_prev = false;
  bool push_next = false;
};

// 2D LOAD/STORE (opcode kOpLoad or kOpStore); pads are (y_pad_0, y_pad_1, x_pad_0, x_pad_1).
Insn make_load_store(uint32_t opcode, uint32_t memory_type, uint32_t sram_base, uint32_t dram_base,
                     uint32_t y_size, uint32_t x_size, uint32_t x_stride, Deps deps = {},
                     uint32_t y_pad_0 = 0, uint32_t y_pad_1 = 0, uint32_t x_pad_0 = 0,
                     uint32_t x_pad_1 = 0);
// 1D load/store: y = 1, stride = size.
Insn make_load_1d(uint32_t memory_type, uint32_t sram_base, uint32_t dram_base, uint32_t size,
                  Deps deps = {});
Insn make_store_1d(uint32_t sram_base, uint32_t dram_base, uint32_t size, Deps deps = {});

// Loop nest of a GEMM/ALU instruction.
struct UopLoop {
  uint32_t uop_bgn = 0, uop_end = 1;
  uint32_t iter_out = 1, iter_in = 1;
  uint32_t dst_factor_out = 0, dst_factor_in = 0;
  uint32_t src_factor_out = 0, src_factor_in = 0;
  uint32_t wgt_factor_out = 0, wgt_factor_in = 0;  // GEMM only
};
Insn make_gemm(const UopLoop& loop, bool reset, Deps deps = {});
Insn make_alu(uint32_t alu_opcode, const UopLoop& loop, bool use_imm, int32_t imm, Deps deps = {});
Insn make_finish(bool pop_prev = false, bool pop_next = false);

// A region of simulated DRAM: host view plus physical address.
struct DeviceBuffer {
  uint8_t* host = nullptr;
  uint32_t phys = 0;
  size_t bytes = 0;
  // Element index (dram_base field) of the buffer start for a memory type.
  uint32_t elem(const HwConfig& cfg, uint32_t memory_type) const {
    return phys / static_cast<uint32_t>(cfg.elem_bytes(static_cast<int>(memory_type)));
  }
};

// Collects instructions and DRAM buffers of one program; frees the buffers on destruction.
class ProgramBuilder {
 public:
  ProgramBuilder(const HwConfig& cfg, Dram& dram) : m_cfg(cfg), m_dram(dram) {}
  ~ProgramBuilder();
  ProgramBuilder(const ProgramBuilder&) = delete;
  ProgramBuilder& operator=(const ProgramBuilder&) = delete;

  const HwConfig& cfg() const { return m_cfg; }
  Dram& dram() { return m_dram; }

  DeviceBuffer alloc(size_t bytes);
  // A buffer holding `uops` encoded for this config.
  DeviceBuffer alloc_uops(const std::vector<Uop>& uops);
  void push(const Insn& insn) { m_insns.push_back(insn); }
  // Appends an instruction given as raw words (e.g. an opcode the encoder refuses); it is
  // recorded in insns() as its decoded form for the counter rules.
  void push_raw(const InsnWords& words);
  const std::vector<Insn>& insns() const { return m_insns; }
  std::vector<Insn>& insns() { return m_insns; }

  // Encodes the instructions into a fresh DRAM buffer (each call makes a new one).
  DeviceBuffer emit();
  // emit() then backend.run(phys, count, wait_cycles) (0 = no cycle limit).
  RunStatus run(Backend& backend, uint64_t wait_cycles = 0);

 private:
  HwConfig m_cfg;
  Dram& m_dram;
  std::vector<Insn> m_insns;
  std::vector<std::pair<size_t, InsnWords>> m_raw;  // instruction index -> raw words
  std::vector<void*> m_allocs;
};

// Upstream fsim counters (vta-reference.md 5.1) of the instructions up to and including the
// first FINISH, plus per-opcode instruction counts. Written from the rules, not from a backend.
Stats expected_counters(const HwConfig& cfg, const std::vector<Insn>& insns);
// "" if the seven upstream counters and the instruction counts agree, else what differs.
std::string compare_counters(const Stats& expected, const Stats& actual);

// ---- Tensor tiles in DRAM layout ----
// At the default widths (int8 x int8 -> int32; lanes of other widths: lane_reference.h):
// inp tile: int8 [BATCH][BLOCK_IN]; wgt tile: int8 [BLOCK_OUT][BLOCK_IN];
// acc tile: int32 [BATCH][BLOCK_OUT] little-endian; out tile: int8 [BATCH][BLOCK_OUT].
inline int8_t* tile_i8(const DeviceBuffer& b, size_t tile_bytes, size_t tile) {
  return reinterpret_cast<int8_t*>(b.host + tile * tile_bytes);
}
inline int32_t* tile_i32(const DeviceBuffer& b, size_t tile_bytes, size_t tile) {
  return reinterpret_cast<int32_t*>(b.host + tile * tile_bytes);
}

// Uniform random values in [lo, hi).
void fill_random_i8(int8_t* p, size_t n, int lo, int hi, std::mt19937& rng);
void fill_random_i32(int32_t* p, size_t n, int32_t lo, int32_t hi, std::mt19937& rng);

}  // namespace vta::testprog
