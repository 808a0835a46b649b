// FunctionalCore: the architectural state of one VTA core (the uop, inp, wgt, acc and out SRAMs)
// and the untimed effect of one LOAD, STORE, GEMM or ALU instruction on it and on the Dram: the
// dynamic checks (SRAM ranges, DRAM rows, uop indices; ProgramError with the wording every
// backend shares), the upstream counters and the values (vta-reference.md 3, DESIGN.md 4,
// sim/fsim.md). It owns no notion of time or ordering: fsim's scheduler executes whole
// instructions with exec_*; the cycle model, whose DMA reads and writes DRAM at other cycles than
// the SRAM changes, uses the split start/write/read steps of LOAD and STORE.
//
// SRAM layouts are those of the GEMM kernel (fsim_gemm_kernel.h) for int8 inputs and weights
// with int32 accumulators; every other legal width combination takes the wide datapath
// (wide_gemm_kernel.h: inp and wgt lanes sign-extended to int32, acc lanes wrapped to the acc
// width). The out buffer holds packed out-width lanes and is refreshed lazily from acc (a flag
// per tile), so GEMM and ALU only mark it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "vta/sim/dram.h"
#include "vta/sim/fsim_gemm_kernel.h"
#include "vta/sim/hw_config.h"
#include "vta/sim/isa.h"
#include "vta/sim/stats.h"
#include "vta/sim/zeroed_allocator.h"

namespace vta {

class FunctionalCore {
 public:
  // Keeps references to all three; the SRAMs start zeroed and persist until destruction (or
  // release_storage()).
  FunctionalCore(const HwConfig& cfg, Dram& dram, Stats& stats);

  // GEMM datapath variant (default kAuto). Throws Error if unavailable.
  void set_gemm_kernel(GemmKernelKind kind);
  // "generic", "avx2" or "avx512": the variant actually in use.
  const char* gemm_kernel_name() const { return m_gemm_name; }

  // ---- Whole instructions: checks, counters, effect. `index` = position in the stream, for
  // error messages. A LOAD/STORE with x_size 0 is a NOP. ----
  void exec_load(uint64_t index, const Insn& i);
  void exec_store(uint64_t index, const Insn& i);
  void exec_gemm(uint64_t index, const Insn& i);
  void exec_alu(uint64_t index, const Insn& i);

  // ---- LOAD / STORE in steps (x_size > 0), for a DMA that moves the data at other times ----
  // Checks the SRAM tile and every DRAM row (ProgramError) and counts the upstream load bytes.
  void start_load(uint64_t index, const Insn& i);
  // Writes the whole tile (padding zeros included) from `staged`: y_size rows of x_size DRAM
  // elements, packed.
  void write_load(const Insn& i, const uint8_t* staged);
  // Checks the out range and every DRAM row (ProgramError) and counts out_store_nbytes.
  void start_store(uint64_t index, const Insn& i);
  // Reads the out buffer into `staged` (y_size rows of x_size elements, packed).
  void read_store(const Insn& i, uint8_t* staged);

  // Bytes of one DRAM element of a LOAD of `memory_type` (ACC_8BIT: BATCH*BLOCK_OUT).
  uint64_t dram_elem_bytes(uint32_t memory_type) const;

  // Architectural state, for tests and debugging (index = SRAM element, lane = batch*BLOCK + i).
  // Throw Error when out of range.
  int32_t acc_lane(uint32_t index, uint32_t lane) const;
  // The out lane as STORE would write it (the low out-width bits of acc), sign-extended.
  int32_t out_lane(uint32_t index, uint32_t lane) const;
  Uop uop_at(uint32_t index) const;

  // Frees the SRAM images (for an owner that cannot destroy this object); nothing may be
  // executed or read until allocate_storage().
  void release_storage();
  // Fresh zeroed SRAMs and the default GEMM kernel: the state of a new FunctionalCore.
  void allocate_storage();
  // Works on `dram` and counts into `stats` from now on (a cycle core kept for reuse serves one
  // backend after another).
  void rebind(Dram& dram, Stats& stats);

 private:
  void count_load(const Insn& i);
  void check_index(uint64_t index, const Insn& i, const char* what, const char* buffer,
                   uint32_t depth, uint32_t Uop::*field, uint32_t factor_out,
                   uint32_t factor_in) const;
  // The checks GEMM and ALU share: uop range and dst indices; false for an empty loop (a no-op).
  bool check_loop_insn(uint64_t index, const Insn& i) const;
  // The LOAD tile / the STORE rows, row y of the DRAM side at row(y).
  template <typename RowFn>
  void write_tile_rows(const Insn& i, RowFn row);
  void write_tiles(uint32_t type, uint32_t t, uint64_t n, const uint8_t* src);
  void write_uop_tiles(uint32_t t, uint64_t n, const uint8_t* src);
  void write_inp_tiles(uint32_t t, uint64_t n, const uint8_t* src);
  void write_wgt_tiles(uint32_t t, uint64_t n, const uint8_t* src);
  void write_acc_tiles(uint32_t type, uint32_t t, uint64_t n, const uint8_t* src);
  // Re-packs the inp and wgt SRAMs (zeros at construction) into `layout`.
  void change_layout(GemmLayout layout);
  template <typename RowFn>
  void read_out_rows(const Insn& i, RowFn row);
  // Makes out tile `tile` current (inline: STORE and LOAD ACC call it per element).
  void refresh_out(uint32_t tile) {
    if (m_out_stale[tile]) {
      // The lane count in a local: the int8 stores may alias members, which would stop the loop
      // from being vectorised.
      const size_t lanes = m_acc_lanes;
      const int32_t* a = &m_acc[tile * lanes];
      if (m_wide) {
        pack_out_tile(a, &m_out[tile * m_out_tile_bytes]);
      } else {
        int8_t* o = reinterpret_cast<int8_t*>(&m_out[tile * lanes]);
        for (size_t k = 0; k < lanes; ++k) {
          o[k] = static_cast<int8_t>(a[k]);
        }
      }
      m_out_stale[tile] = 0;
    }
  }
  // One out tile of the wide datapath: each acc lane truncated to the out width, packed.
  void pack_out_tile(const int32_t* acc, uint8_t* out) const;
  // The ALU loop with `op`, its results wrapped to the acc width on the wide datapath.
  template <typename Op>
  void run_alu(const Insn& i, Op op);

  const HwConfig& m_cfg;
  Dram* m_dram;
  Stats* m_stats;
  IsaCodec m_codec;
  GemmShape m_shape;
  GemmKernelFn m_gemm = nullptr;
  const char* m_gemm_name = "generic";
  GemmLayout m_layout = GemmLayout::kInt16Pairs;  // of m_inp and m_wgt: the kernel's
  size_t m_inp_lanes, m_wgt_lanes, m_acc_lanes;   // elements (int8 / int32 values) per SRAM tile
  size_t m_inp_tile_bytes = 0, m_wgt_tile_bytes = 0;  // in m_layout (wide: int32 lanes)
  size_t m_out_tile_bytes = 0;                        // OUT_ELEM_BYTES
  // Widths other than int8 x int8 -> int32: inp/wgt tiles are int32 lanes, GEMM is wide_gemm.
  bool m_wide = false;

  std::vector<Uop> m_uop;  // micro-op buffer, decoded at LOAD UOP
  // Zero at the start without touching the pages (ZeroedVector).
  ZeroedVector<uint8_t> m_inp;  // inp tiles in m_layout (wide: int32 [BATCH][BLOCK_IN])
  ZeroedVector<uint8_t> m_wgt;  // wgt tiles in m_layout (wide: int32 [BLOCK_OUT][BLOCK_IN])
  ZeroedVector<int32_t> m_acc;  // [BATCH][BLOCK_OUT] per tile, sign-extended from the acc width
  ZeroedVector<uint8_t> m_out;  // OUT_ELEM_BYTES per tile: packed out-width lanes
  ZeroedVector<uint8_t> m_out_stale;  // 1: out tile = low out-width bits of acc, not copied yet
};

}  // namespace vta
