#include "uop_kernel.h"

#include <algorithm>
#include <atomic>
#include <cstring>

#include <fmt/format.h>

#include "vta/sim/error.h"

namespace vta {

void UopKernel::loop_begin(const UopLoop& loop) {
  if (!m_uops.empty()) {
    throw Error(
        "VTAUopLoopBegin after VTAUopPush: loops must be declared before the kernel's "
        "first micro-op");
  }
  if (m_loops.size() >= kMaxLoops) {
    throw Error(fmt::format("VTAUopLoopBegin: a micro-op kernel has at most {} loops", kMaxLoops));
  }
  // Extent 0 is legal as upstream: the GEMM/ALU gets iter = 0 and executes no micro-op (TVM
  // emits such loops for degenerate shapes).
  m_loops.push_back(loop);
  ++m_open_loops;
}

void UopKernel::loop_end() {
  if (m_open_loops == 0) {
    throw Error("VTAUopLoopEnd without a matching VTAUopLoopBegin");
  }
  --m_open_loops;
}

void UopKernel::push(uint32_t mode, uint32_t reset, uint32_t dst, uint32_t src, uint32_t wgt,
                     uint32_t opcode, uint32_t use_imm, int32_t imm) {
  if (mode > 1) {
    throw Error(fmt::format("VTAUopPush: mode {} (0 = GEMM, 1 = ALU)", mode));
  }
  if (m_mode != kUnset && m_mode != mode) {
    throw Error(fmt::format("VTAUopPush: a kernel mixes modes ({} then {}; 0 = GEMM, 1 = ALU)",
                            m_mode == 0 ? "GEMM" : "ALU", mode == 0 ? "GEMM" : "ALU"));
  }
  const uint32_t reset_bit = reset != 0 ? 1 : 0;
  if (m_reset != kUnset && m_reset != reset_bit) {
    throw Error(fmt::format("VTAUopPush: a kernel mixes reset_out {} and {}", m_reset, reset_bit));
  }
  if (mode == 1) {
    if (imm < -32768 || imm > 32767) {
      throw Error(fmt::format("VTAUopPush: ALU immediate {} does not fit 16 signed bits", imm));
    }
    const uint32_t use_imm_bit = use_imm != 0 ? 1 : 0;
    if (m_opcode != kUnset &&
        (m_opcode != opcode || m_use_imm != use_imm_bit || (use_imm_bit && m_imm != imm))) {
      throw Error(fmt::format(
          "VTAUopPush: a kernel mixes ALU operations ({} use_imm={} imm={} then {} use_imm={} "
          "imm={})",
          alu_op_name(m_opcode), m_use_imm, m_imm, alu_op_name(opcode), use_imm_bit, imm));
    }
    m_opcode = opcode;
    m_use_imm = use_imm_bit;
    m_imm = imm;
  }
  // The accelerator's accumulator pipeline forbids writing the same index within two uops.
  const size_t n = m_uops.size();
  for (size_t i = n - std::min<size_t>(2, n); i < n; ++i) {
    if (m_uops[i].dst_idx == dst) {
      throw Error(
          fmt::format("VTAUopPush: micro-op {} writes accumulator index {} like micro-op "
                      "{} (the same dst index needs a distance of at least 3)",
                      n, dst, i));
    }
  }
  m_mode = mode;
  m_reset = reset_bit;
  m_uops.push_back(Uop{dst, src, wgt});
}

void UopKernel::finish_recording(uint32_t expect_mode) const {
  if (m_open_loops != 0) {
    throw Error(
        fmt::format("micro-op kernel recorded with {} VTAUopLoopBegin without "
                    "VTAUopLoopEnd",
                    m_open_loops));
  }
  if (m_uops.empty()) {
    throw Error("micro-op kernel recorded no micro-op (finit made no VTAUopPush)");
  }
  if (m_mode != expect_mode) {
    throw Error(fmt::format("a {} kernel was pushed with {}", m_mode == 0 ? "GEMM" : "ALU",
                            expect_mode == 0 ? "VTAPushGEMMOp" : "VTAPushALUOp"));
  }
}

Insn kernel_insn(const UopKernel& k) {
  const uint32_t mode = k.mode();
  Insn insn;
  insn.opcode = mode == 0 ? kOpGemm : kOpAlu;
  insn.reset_reg = k.reset();
  insn.uop_bgn = k.sram_begin;
  insn.uop_end = k.sram_end;
  insn.iter_out = 1;
  insn.iter_in = 1;
  const auto& loops = k.loops();
  const UopLoop* outer = nullptr;
  const UopLoop* inner = nullptr;
  if (loops.size() == 2) {
    outer = &loops[0];
    inner = &loops[1];
  } else if (loops.size() == 1) {
    (mode == 0 ? outer : inner) = &loops[0];
  }
  if (outer != nullptr) {
    insn.iter_out = outer->extent;
    insn.dst_factor_out = outer->dst_factor;
    insn.src_factor_out = outer->src_factor;
    insn.wgt_factor_out = mode == 0 ? outer->wgt_factor : 0;
  }
  if (inner != nullptr) {
    insn.iter_in = inner->extent;
    insn.dst_factor_in = inner->dst_factor;
    insn.src_factor_in = inner->src_factor;
    insn.wgt_factor_in = mode == 0 ? inner->wgt_factor : 0;
  }
  if (mode == 1) {
    insn.alu_opcode = k.alu_opcode();
    insn.use_imm = k.use_imm();
    insn.imm = k.imm();
  }
  return insn;
}

std::unique_ptr<UopKernel>& UopKernelMap::slot(const void* signature, int nbytes) {
  uint32_t key = 0;
  if (nbytes == 4) {
    if (signature == nullptr) {
      throw Error("micro-op kernel signature of 4 bytes is a null pointer");
    }
    int32_t v = 0;
    std::memcpy(&v, signature, 4);
    key = static_cast<uint32_t>(v) + 1;
  } else if (nbytes != 0) {
    throw Error(
        fmt::format("micro-op kernel signature of {} bytes (only 0 or 4 are supported)", nbytes));
  }
  return m_kernels[key];
}

UopKernelMap& UopKernelMaps::from_handle(void** handle) {
  // Handle values: 1, 2, ... shifted past page 0, so no real pointer a caller may have left in
  // the handle is mistaken for one (a valid host pointer is never below 4096).
  static std::atomic<uintptr_t> next_id{0};
  constexpr uintptr_t kIdBase = 0x10;
  if (handle == nullptr) {
    throw Error("micro-op kernel handle (uop_handle) is a null pointer");
  }
  if (*handle == nullptr) {
    const uintptr_t id = kIdBase + next_id.fetch_add(1, std::memory_order_relaxed);
    auto& map = m_maps[id];
    map = std::make_unique<UopKernelMap>();
    *handle = reinterpret_cast<void*>(id);
    return *map;
  }
  auto it = m_maps.find(reinterpret_cast<uintptr_t>(*handle));
  if (it == m_maps.end()) {
    throw Error(
        fmt::format("micro-op kernel handle holds {}, which this runtime did not create "
                    "(the handle must start as NULL; a handle belongs to the runtime that "
                    "filled it)",
                    *handle));
  }
  return *it->second;
}

namespace {
uint64_t next_epoch() {
  static std::atomic<uint64_t> epoch{0};  // caches of several runtimes, on several threads
  return epoch.fetch_add(1, std::memory_order_relaxed) + 1;
}
}  // namespace

UopCache::UopCache(const IsaCodec& codec, uint32_t sram_depth, size_t max_image_uops)
    : m_codec(codec), m_depth(sram_depth), m_max_image(max_image_uops), m_epoch(next_epoch()) {}

bool UopCache::image_full_for(const UopKernel& k) const {
  return m_image.size() + k.size() > m_max_image;
}

UopPlacement UopCache::place(UopKernel& k) {
  const auto n = static_cast<uint32_t>(k.size());
  if (n > m_depth) {
    throw Error(fmt::format("micro-op kernel of {} uops does not fit the uop buffer ({} uops)", n,
                            m_depth));
  }
  if (m_image.size() + n > m_max_image) {
    throw Error(fmt::format("micro-op kernel of {} uops does not fit the uop DRAM buffer", n));
  }
  // Encode first: a field that does not fit leaves the cache unchanged.
  std::vector<uint32_t> words;
  words.reserve(n);
  for (const Uop& u : k.uops()) {
    words.push_back(m_codec.encode_uop(u));
  }
  // Ring: continue after the last kernel, wrap to 0 when the rest of the SRAM is too small.
  uint32_t begin = m_sram_end;
  if (begin + n > m_depth) {
    begin = 0;
  }
  const uint32_t end = begin + n;
  for (UopKernel* r : m_resident) {
    if (r->resident_epoch == m_epoch && r->sram_begin < end && begin < r->sram_end) {
      r->resident_epoch = 0;  // overwritten
    }
  }
  m_resident.erase(std::remove_if(m_resident.begin(), m_resident.end(),
                                  [&](UopKernel* r) { return r->resident_epoch != m_epoch; }),
                   m_resident.end());
  UopPlacement p;
  p.sram_base = begin;
  p.count = n;
  p.image_index = static_cast<uint32_t>(m_image.size());
  m_image.insert(m_image.end(), words.begin(), words.end());
  k.sram_begin = begin;
  k.sram_end = end;
  k.resident_epoch = m_epoch;
  m_resident.push_back(&k);
  m_sram_end = end;
  return p;
}

void UopCache::reset() {
  m_epoch = next_epoch();
  m_sram_end = 0;
  m_image.clear();
  m_resident.clear();
}

}  // namespace vta
