#include "dma_bounds.h"

#include <fmt/format.h>

#include "vta/sim/error.h"

namespace vta {

namespace {

// Bytes [first, end) of DRAM a LOAD or STORE touches (rows between the first and the last
// included, so one range covers any stride), or an empty range for no access.
struct Span {
  uint64_t first = 0, end = 0;
};

Span dram_span(const HwConfig& cfg, const Insn& insn) {
  if ((insn.opcode != kOpLoad && insn.opcode != kOpStore) || insn.x_size == 0 || insn.y_size == 0) {
    return {};
  }
  uint64_t elem = 0;
  try {
    elem = static_cast<uint64_t>(cfg.elem_bytes(static_cast<int>(insn.memory_type)));
  } catch (const Error&) {
    return {};  // not a memory type: the backend rejects the instruction itself
  }
  const uint64_t last_row = uint64_t(insn.y_size - 1) * insn.x_stride;
  return {insn.dram_base * elem, (insn.dram_base + last_row + insn.x_size) * elem};
}

void check_one(const DeviceMemory& mem, const HwConfig& cfg, const Insn& insn, size_t index,
               const char* who) {
  const Span s = dram_span(cfg, insn);
  if (s.end == s.first) {
    return;
  }
  const char* verb = insn.opcode == kOpStore ? "writes" : "reads";
  const std::string what =
      fmt::format("{}: instruction {} ({} {}) {} DRAM [0x{:x}, 0x{:x}) ({} bytes)", who, index,
                  opcode_name(insn.opcode), mem_type_name(insn.memory_type), verb, s.first, s.end,
                  s.end - s.first);
  const char* off =
      "; set VTA_DMA_BOUNDS=off (or Runtime::set_dma_bounds_check(false)) for "
      "programs that address one region across buffers on purpose";
  const DeviceMemory::Allocation* a = mem.allocation_at(s.first);
  if (a == nullptr) {
    throw ProgramError(
        fmt::format("{}, which starts in no live buffer (freed memory, or outside every "
                    "allocation){}",
                    what, off));
  }
  if (s.end > a->phys + a->bytes) {
    throw ProgramError(fmt::format(
        "{}: {} bytes past the end of its buffer [0x{:x}, 0x{:x}) ({} bytes, host {}){}", what,
        s.end - (a->phys + a->bytes), a->phys, a->phys + a->bytes, a->bytes,
        static_cast<const void*>(mem.dram().host_ptr(a->phys)), off));
  }
}

}  // namespace

void check_dma_bounds(const DeviceMemory& mem, const HwConfig& cfg, const std::vector<Insn>& insns,
                      const char* who) {
  for (size_t i = 0; i < insns.size(); ++i) {
    check_one(mem, cfg, insns[i], i, who);
  }
}

void check_dma_bounds(const DeviceMemory& mem, const HwConfig& cfg, uint32_t insn_phys,
                      uint32_t count, const char* who) {
  const Dram& dram = mem.dram();
  if (!dram.is_allocated(insn_phys, uint64_t(count) * kInsnBytes)) {
    return;
  }
  const IsaCodec codec(cfg);
  for (uint32_t i = 0; i < count; ++i) {
    Insn insn;
    try {
      const uint8_t* p = dram.host_ptr(insn_phys + uint64_t(i) * kInsnBytes);
      insn = codec.decode(IsaCodec::load_words(p));
    } catch (const Error&) {
      return;
    }
    if (insn.opcode == kOpFinish) {
      return;
    }
    check_one(mem, cfg, insn, i, who);
  }
}

}  // namespace vta
