// CoreDatapath: the architectural state of the VTA core in the cycle model (uop, inp, wgt, acc
// and out SRAMs) and the functional effect of every instruction on it, bit-exact with fsim
// (same SRAM layouts, same GEMM kernel from fsim_gemm_kernel.h, same semantics choices of
// DESIGN.md section 4, same error messages). The timing lives in the units; this class only
// says what an instruction does and whether it is legal.
#pragma once

#include <cstdint>
#include <vector>

#include "vta/sim/dram.h"
#include "vta/sim/fsim_gemm_kernel.h"
#include "vta/sim/hw_config.h"
#include "vta/sim/isa.h"
#include "vta/sim/stats.h"

namespace vta::cycle {

class CoreDatapath {
 public:
  CoreDatapath(const HwConfig& cfg, Dram& dram);

  // Bytes of one DRAM element of a LOAD of `memory_type` (ACC_8BIT: BATCH*BLOCK_OUT).
  uint64_t dram_elem_bytes(uint32_t memory_type) const;

  // ---- LOAD (x_size > 0) ----
  // Throws ProgramError (as fsim) if the SRAM tile or a DRAM row is out of range.
  void check_load(uint64_t index, const Insn& i) const;
  // Upstream byte counters of a LOAD.
  void count_load(const Insn& i, Stats& stats) const;
  // Writes the whole tile (padding zeros included) from `staged`: y_size rows of x_size DRAM
  // elements, packed.
  void write_load(const Insn& i, const uint8_t* staged);

  // ---- STORE (x_size > 0) ----
  void check_store(uint64_t index, const Insn& i) const;
  // Reads the out buffer into `staged` (y_size rows of x_size elements, packed).
  void read_store(const Insn& i, uint8_t* staged);

  // ---- GEMM / ALU: checks, effect and upstream counters ----
  void exec_gemm(uint64_t index, const Insn& i, Stats& stats);
  void exec_alu(uint64_t index, const Insn& i, Stats& stats);

  // Frees the SRAM images (the backend is going away but SystemC keeps its modules).
  void release_storage();

  int32_t acc_lane(uint32_t index, uint32_t lane) const;
  int8_t out_lane(uint32_t index, uint32_t lane) const;

 private:
  void check_dram_rows(uint64_t index, const Insn& i, uint64_t e) const;
  void check_uop_range(uint64_t index, const Insn& i) const;
  void check_index(uint64_t index, const Insn& i, const char* what, const char* buffer,
                   uint32_t depth, uint32_t Uop::*field, uint32_t factor_out,
                   uint32_t factor_in) const;
  void write_tile(uint32_t type, uint32_t t, const uint8_t* src);
  void refresh_out(uint32_t tile);

  const HwConfig& m_cfg;
  Dram& m_dram;
  IsaCodec m_codec;
  GemmShape m_shape;
  GemmKernelFn m_gemm;
  size_t m_inp_lanes, m_wgt_lanes, m_acc_lanes;
  std::vector<Uop> m_uop;            // decoded micro-ops
  std::vector<int16_t> m_inp;        // int16 [BATCH][BLOCK_IN] per tile (fsim layout)
  std::vector<int16_t> m_wgt;        // int16 [BLOCK_IN/2][BLOCK_OUT][2] per tile
  std::vector<int32_t> m_acc;        // int32 [BATCH][BLOCK_OUT] per tile
  std::vector<int8_t> m_out;         // int8 [BATCH][BLOCK_OUT] per tile
  std::vector<uint8_t> m_out_stale;  // 1: out tile = low 8 bits of acc tile, not copied yet
};

}  // namespace vta::cycle
