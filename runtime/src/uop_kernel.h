// Micro-op kernels as the compiler records them (vta-reference.md 4.4): UopKernel holds up to two
// loops and a uop sequence of one mode (GEMM or ALU, one ALU opcode/immediate); UopKernelMap is
// what a call site's static `uop_handle` points to (kernels keyed by the closure's int
// signature); UopCache places kernels in the micro-op SRAM with upstream's ring policy and
// builds the uop DRAM image the LOAD UOP instructions read.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "vta/sim/isa.h"

namespace vta {

struct UopLoop {
  uint32_t extent = 0;
  uint32_t dst_factor = 0;
  uint32_t src_factor = 0;
  uint32_t wgt_factor = 0;
};

class UopKernel {
 public:
  static constexpr uint32_t kUnset = 0xFFFFFFFFu;
  static constexpr int kMaxLoops = 2;

  // VTAUopLoopBegin / VTAUopLoopEnd / VTAUopPush while recording. Throw Error on misuse
  // (a third loop, a loop after a uop, mixed modes/opcodes, a dst hazard at distance <= 2).
  void loop_begin(const UopLoop& loop);
  void loop_end();
  void push(uint32_t mode, uint32_t reset, uint32_t dst, uint32_t src, uint32_t wgt,
            uint32_t opcode, uint32_t use_imm, int32_t imm);
  // Called when finit returns: every loop closed, at least one uop, and mode `expect_mode`.
  void finish_recording(uint32_t expect_mode) const;

  uint32_t mode() const { return m_mode; }  // 0 = GEMM, 1 = ALU
  bool reset() const { return m_reset == 1; }
  uint32_t alu_opcode() const { return m_opcode; }
  bool use_imm() const { return m_use_imm == 1; }
  int32_t imm() const { return m_imm; }
  const std::vector<UopLoop>& loops() const { return m_loops; }
  const std::vector<Uop>& uops() const { return m_uops; }
  size_t size() const { return m_uops.size(); }

  // Residency in the uop SRAM (managed by UopCache).
  uint64_t resident_epoch = 0;  // UopCache epoch in which [sram_begin, sram_end) is valid
  uint32_t sram_begin = 0;
  uint32_t sram_end = 0;

 private:
  uint32_t m_mode = kUnset;
  uint32_t m_reset = kUnset;
  uint32_t m_opcode = kUnset;
  uint32_t m_use_imm = kUnset;
  int32_t m_imm = 0;
  int m_open_loops = 0;
  std::vector<UopLoop> m_loops;
  std::vector<Uop> m_uops;
};

// The GEMM (mode 0) or ALU (mode 1) instruction that runs resident kernel `k` over
// [sram_begin, sram_end), without dependency flags. Loop mapping as upstream: for GEMM loop 0 is
// the outer loop (a single loop too); for ALU a single loop is the inner one; a missing loop has
// extent 1 and factors 0.
Insn kernel_insn(const UopKernel& k);

// The kernels of one call site (`*uop_handle`), keyed by signature.
class UopKernelMap {
 public:
  // nbytes 0 (no signature) or 4 (one int32 free variable); anything else is an Error.
  // Returns the slot, null until the kernel is recorded.
  std::unique_ptr<UopKernel>& slot(const void* signature, int nbytes);

 private:
  std::unordered_map<uint32_t, std::unique_ptr<UopKernel>> m_kernels;
};

// The kernel maps of one runtime, behind the handles it gave out. A handle holds a number that
// is unique in the process for its whole life (not a pointer), so a handle of another runtime,
// or of one destroyed since, is recognised as foreign instead of reaching freed memory. The
// maps live as long as their runtime (handles are static in the caller's code, so a runtime
// keeps them across resets).
class UopKernelMaps {
 public:
  // The map behind a handle, created when *handle is null; Error if *handle is not one of ours.
  UopKernelMap& from_handle(void** handle);

 private:
  std::unordered_map<uintptr_t, std::unique_ptr<UopKernelMap>> m_maps;
};

// Placement of one kernel by UopCache::place.
struct UopPlacement {
  uint32_t sram_base = 0;    // first uop SRAM index
  uint32_t count = 0;        // uops
  uint32_t image_index = 0;  // index of its first uop in the uop DRAM image
};

class UopCache {
 public:
  UopCache(const IsaCodec& codec, uint32_t sram_depth, size_t max_image_uops);

  bool resident(const UopKernel& k) const { return k.resident_epoch == m_epoch; }
  // True if loading `k` would overflow the uop DRAM buffer (the caller synchronises first).
  bool image_full_for(const UopKernel& k) const;
  // Places a non-resident kernel at the ring position, evicting overlapping kernels, and
  // appends its encoded uops to the image. Throws Error if it cannot fit the SRAM.
  UopPlacement place(UopKernel& k);
  // Forgets every residency and empties the image (after a synchronisation).
  void reset();

  const std::vector<uint32_t>& image() const { return m_image; }
  uint32_t sram_depth() const { return m_depth; }

 private:
  const IsaCodec& m_codec;
  uint32_t m_depth;
  size_t m_max_image;
  uint64_t m_epoch;
  uint32_t m_sram_end = 0;
  std::vector<uint32_t> m_image;
  std::vector<UopKernel*> m_resident;  // kernels placed during this epoch
};

}  // namespace vta
