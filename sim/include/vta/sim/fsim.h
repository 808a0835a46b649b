// FsimBackend: the untimed functional simulator of VTA (HW_VER 0.0.2), the reference for the
// values every other backend must reproduce bit for bit. Semantics are vta-reference.md section
// 3 with the project's decisions of DESIGN.md section 4; sim/fsim.md lists every choice.
//
// Model: the fetch unit decodes and checks all `insn_count` instructions and routes them to the
// in-order queues of the load, compute and store units; a scheduler then repeatedly picks a unit
// whose next instruction can start (its pops available, its pushes not overflowing
// DEP_QUEUE_DEPTH) and executes that instruction whole: pops, effect, pushes. The run ends after
// FINISH (later instructions are ignored, as upstream). Tokens (l2g, g2l, s2g, g2s) start at 0
// every run; the SRAMs (uop, inp, wgt, acc, out) persist across runs like hardware.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "vta/sim/contract/contract_backend.h"
#include "vta/sim/fsim_gemm_kernel.h"

namespace vta {

class FsimBackend : public ContractBackend {
 public:
  FsimBackend(const HwConfig& cfg, Dram& dram);
  ~FsimBackend() override;

  const char* name() const override { return "fsim"; }

  // Order in which units are tried. 0 (default): fixed round robin load, compute, store, one
  // instruction each per round. Any other value: at every step a unit is drawn from the runnable
  // ones by a PRNG seeded with this value (deterministic for a given seed). A correctly
  // synchronised program gives the same results under every order.
  void set_stage_order_seed(uint32_t seed);
  uint32_t stage_order_seed() const;

  // GEMM datapath variant (default kAuto). Throws Error if unavailable.
  void set_gemm_kernel(GemmKernelKind kind);
  // "generic", "avx2" or "avx512": the variant actually in use.
  const char* gemm_kernel_name() const;

  // Bounds every later run to `units` work units (0 = no limit): one per instruction plus one
  // per GEMM/ALU micro-op iteration. An instruction that would exceed it is not executed and
  // run() returns RunStatus::kTimeout (the CLI's --max-cycles on fsim).
  void set_work_limit(uint64_t units);

  // Architectural state, for tests and debugging (index = SRAM element, lane = batch*BLOCK + i).
  int32_t acc_lane(uint32_t index, uint32_t lane) const;
  int32_t out_lane(uint32_t index, uint32_t lane) const;  // as STORE would write it
  Uop uop_at(uint32_t index) const;

 protected:
  // Untimed: `wait_cycles` is ignored (as upstream); the outcome is kFinished or kStuck, or
  // kTimeout under a work limit.
  RunOutcome execute(const LoadedProgram& program, uint64_t wait_cycles) override;
  // CORES: each core's stream runs on its own SRAMs, one core after the other.
  std::vector<RunOutcome> execute_cores(const std::vector<const LoadedProgram*>& programs,
                                        uint64_t wait_cycles, uint64_t& makespan) override;

 private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
  std::vector<std::unique_ptr<Impl>> m_more;  // cores 1..N-1
};

}  // namespace vta
