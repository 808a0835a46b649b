#include "command_queue.h"

#include <algorithm>

#include <fmt/format.h>

#include "device_memory.h"
#include "dma_bounds.h"
#include "program_dumps.h"
#include "vta/runtime.h"
#include "vta/sim/error.h"

namespace vta {

namespace {

constexpr uint32_t kAutoSyncWaitCycles = 1u << 31;  // upstream AutoSync

void check_stages(const char* who, int from, int to) {
  for (int q : {from, to}) {
    if (q < kStageLoad || q > kStageStore) {
      throw Error(
          fmt::format("{}({}, {}): queue id {} out of range (1 = load, 2 = compute, "
                      "3 = store)",
                      who, from, to, q));
    }
  }
  if (from == to) {
    throw Error(fmt::format("{}({}, {}): a stage cannot depend on itself", who, from, to));
  }
  if (from + to == kStageLoad + kStageStore) {
    throw Error(
        fmt::format("{}({}, {}): there is no dependency queue between load and store "
                    "(only l2g, g2l, s2g, g2s)",
                    who, from, to));
  }
}

// Runs `f` when the scope ends, normally or by an exception (the queue reset after a
// synchronisation, the end of a kernel recording).
template <class F>
struct ScopeExit {
  F f;
  ~ScopeExit() { f(); }
};
template <class F>
ScopeExit(F) -> ScopeExit<F>;

}  // namespace

CommandQueue::CommandQueue(const HwConfig& cfg, DeviceMemory& mem, Backend& device,
                           UopKernelMaps& kernels, const SyncHooks& hooks, size_t max_xfer)
    : m_cfg(cfg),
      m_mem(mem),
      m_device(device),
      m_kernels(kernels),
      m_hooks(hooks),
      m_max_xfer(max_xfer),
      m_insns(cfg),
      m_uops(m_insns.codec(), cfg.uop_buff_depth, max_xfer / kUopBytes) {
  if (max_xfer < 16 * kInsnBytes) {
    throw Error(fmt::format("instruction buffer of {} bytes is too small", max_xfer));
  }
  m_insn_buf = m_mem.alloc(max_xfer);
  m_uop_buf = m_mem.alloc(max_xfer);
  m_insn_phys = m_mem.phys_addr(m_insn_buf, "CommandQueue");
  m_uop_phys = m_mem.phys_addr(m_uop_buf, "CommandQueue");
}

CommandQueue::~CommandQueue() {
  try {
    m_mem.free(m_insn_buf, "CommandQueue");
    m_mem.free(m_uop_buf, "CommandQueue");
  } catch (const std::exception&) {
    // DRAM bookkeeping already gone at process exit: nothing to release.
  }
}

void CommandQueue::load_buffer_2d(void* src, uint32_t src_elem_offset, uint32_t x_size,
                                  uint32_t y_size, uint32_t x_stride, uint32_t x_pad_before,
                                  uint32_t y_pad_before, uint32_t x_pad_after, uint32_t y_pad_after,
                                  uint32_t dst_sram_index, uint32_t dst_memory_type) {
  const char* who = "VTALoadBuffer2D";
  check_not_recording(who);
  switch (dst_memory_type) {
    case kMemInp:
    case kMemWgt:
    case kMemAcc:
    case kMemAcc8:
    case kMemUop:
      break;
    default:
      throw Error(
          fmt::format("{}: memory type {} ({}) cannot be loaded (UOP 0, WGT 1, INP 2, "
                      "ACC 3, ACC_8BIT 5)",
                      who, dst_memory_type, mem_type_name(dst_memory_type)));
  }
  const uint32_t base =
      tile_dram_base(who, false, src, dst_memory_type, src_elem_offset, x_size, y_size, x_stride);
  if (x_size > 0 && y_size > 0) {
    const uint64_t rows = uint64_t(y_pad_before) + y_size + y_pad_after;
    const uint64_t cols = uint64_t(x_pad_before) + x_size + x_pad_after;
    const uint64_t depth = m_cfg.buff_depth(static_cast<int>(dst_memory_type));
    if (dst_sram_index + rows * cols > depth) {
      throw Error(
          fmt::format("{}: {} tile of {}x{} elements with padding at SRAM index {} ends "
                      "at {}, beyond the buffer depth {}",
                      who, mem_type_name(dst_memory_type), rows, cols, dst_sram_index,
                      dst_sram_index + rows * cols, depth));
    }
  }
  Insn insn = mem_insn(kOpLoad, dst_memory_type, dst_sram_index, base, y_size, x_size, x_stride);
  insn.y_pad_0 = y_pad_before;
  insn.y_pad_1 = y_pad_after;
  insn.x_pad_0 = x_pad_before;
  insn.x_pad_1 = x_pad_after;
  push_named(who, insn);
  end_user_call();
}

void CommandQueue::store_buffer_2d(uint32_t src_sram_index, uint32_t src_memory_type, void* dst,
                                   uint32_t dst_elem_offset, uint32_t x_size, uint32_t y_size,
                                   uint32_t x_stride) {
  const char* who = "VTAStoreBuffer2D";
  check_not_recording(who);
  if (src_memory_type != kMemOut) {
    throw Error(fmt::format("{}: memory type {} ({}) cannot be stored (only OUT = 4)", who,
                            src_memory_type, mem_type_name(src_memory_type)));
  }
  const uint32_t base =
      tile_dram_base(who, true, dst, src_memory_type, dst_elem_offset, x_size, y_size, x_stride);
  if (x_size > 0 && y_size > 0) {
    const uint64_t last = uint64_t(src_sram_index) + uint64_t(x_size) * y_size;
    if (last > m_cfg.out_buff_depth) {
      throw Error(
          fmt::format("{}: OUT tile of {}x{} elements at SRAM index {} ends at {}, beyond "
                      "the buffer depth {}",
                      who, y_size, x_size, src_sram_index, last, m_cfg.out_buff_depth));
    }
  }
  push_named(who,
             mem_insn(kOpStore, src_memory_type, src_sram_index, base, y_size, x_size, x_stride));
  end_user_call();
}

void CommandQueue::check_not_recording(const char* who) const {
  if (m_recording != nullptr) {
    throw Error(fmt::format("{} inside a micro-op kernel's finit", who));
  }
}

uint32_t CommandQueue::tile_dram_base(const char* who, bool is_store, void* buf,
                                      uint32_t memory_type, uint32_t elem_offset, uint32_t x_size,
                                      uint32_t y_size, uint32_t x_stride) const {
  const char* role = is_store ? "destination" : "source";
  const uint32_t phys = m_mem.phys_addr(buf, who);
  const uint64_t elem = m_cfg.elem_bytes(static_cast<int>(memory_type));
  if (phys % elem != 0) {
    throw Error(
        fmt::format("{}: {} {} (physical 0x{:x}) is not aligned to the {} element size ({} "
                    "bytes)",
                    who, role, buf, phys, mem_type_name(memory_type), elem));
  }
  const uint64_t base = phys / elem + elem_offset;
  if (x_size > 0 && y_size > 0) {
    const uint64_t first = base * elem;
    const uint64_t end = (base + uint64_t(y_size - 1) * x_stride + x_size) * elem;
    if (end > Dram::kPhysBytes || !m_mem.dram().is_allocated(first, end - first)) {
      throw Error(
          fmt::format("{}: {} tile of {}x{} elements (stride {}, element offset {}) {} DRAM "
                      "[0x{:x}, 0x{:x}) outside the {} buffer's memory",
                      who, mem_type_name(memory_type), y_size, x_size, x_stride, elem_offset,
                      is_store ? "writes" : "reads", first, end, role));
    }
  }
  // Only reachable with an empty tile: a non-empty one this far out fails the range check.
  if (base > 0xFFFFFFFFull) {
    throw Error(fmt::format("{}: dram_base {} does not fit 32 bits", who, base));
  }
  return static_cast<uint32_t>(base);
}

void CommandQueue::push_named(const char* who, const Insn& insn) {
  try {
    m_insns.push(insn);
  } catch (const ProgramError& e) {
    throw ProgramError(fmt::format("{}: {}", who, e.what()));
  }
}

void CommandQueue::end_user_call() {
  ++m_user_insns;
  check_insn_overflow();
}

UopKernel& CommandQueue::recording(const char* who) {
  if (m_recording == nullptr) {
    throw Error(
        fmt::format("{} outside a micro-op kernel recording (only the finit callback of "
                    "VTAPushGEMMOp/VTAPushALUOp may call it)",
                    who));
  }
  return *m_recording;
}

std::unique_ptr<UopKernel> CommandQueue::record_kernel(const char* who, uint32_t mode,
                                                       int (*finit)(void*), void* signature) {
  if (finit == nullptr) {
    throw Error(fmt::format("{}: finit is a null pointer", who));
  }
  auto kernel = std::make_unique<UopKernel>();
  m_recording = kernel.get();
  ScopeExit stop{[this] { m_recording = nullptr; }};
  const int rc = finit(signature);
  if (rc != 0) {
    throw Error(fmt::format("{}: finit returned {}", who, rc));
  }
  kernel->finish_recording(mode);
  if (m_debug & VTA_DEBUG_DUMP_UOP) {
    print_uop_kernel(*kernel);
  }
  return kernel;
}

void CommandQueue::push_kernel_op(uint32_t mode, void** uop_handle, int (*finit)(void*),
                                  void* signature, int nbytes) {
  const char* who = mode == 0 ? "VTAPushGEMMOp" : "VTAPushALUOp";
  check_not_recording(who);
  std::unique_ptr<UopKernel>& slot = m_kernels.from_handle(uop_handle).slot(signature, nbytes);
  if (!slot) {
    slot = record_kernel(who, mode, finit, signature);
  }
  UopKernel& k = *slot;
  if (k.mode() != mode) {
    throw Error(fmt::format("{}: the kernel of this handle and signature was recorded as {}", who,
                            k.mode() == 0 ? "GEMM" : "ALU"));
  }
  if (!m_uops.resident(k)) {
    if (m_uops.image_full_for(k)) {
      synchronize(kAutoSyncWaitCycles);
    }
    load_uop(m_uops.place(k));
  }
  push_named(who, kernel_insn(k));
  end_user_call();
}

void CommandQueue::load_uop(const UopPlacement& p) {
  m_insns.push(mem_insn(kOpLoad, kMemUop, p.sram_base, m_uop_phys / kUopBytes + p.image_index, 1,
                        p.count, p.count));
}

void CommandQueue::dep_push(int from, int to) {
  check_stages("VTADepPush", from, to);
  check_not_recording("VTADepPush");
  m_insns.dep_push(from, to);
}

void CommandQueue::dep_pop(int from, int to) {
  check_stages("VTADepPop", from, to);
  check_not_recording("VTADepPop");
  m_insns.dep_pop(from, to);
}

void CommandQueue::check_insn_overflow() {
  // Room for what one more call and the final syncs can add (FORCE_SERIAL may double it).
  const size_t count = m_insns.size() * ((m_debug & VTA_DEBUG_FORCE_SERIAL) ? 2 : 1);
  if ((count + 6) * kInsnBytes > m_max_xfer) {
    synchronize(kAutoSyncWaitCycles);
  }
}

void CommandQueue::begin_program() {
  for (uint64_t i = 0; i < m_carry[kL2G]; ++i) {
    m_insns.push_noop(kStageLoad, false, true, false, false);
  }
  for (uint64_t i = 0; i < m_carry[kS2G]; ++i) {
    m_insns.push_noop(kStageStore, true, false, false, false);
  }
  for (uint64_t i = 0; i < std::max(m_carry[kG2L], m_carry[kG2S]); ++i) {
    m_insns.push_noop(kStageCompute, i < m_carry[kG2L], i < m_carry[kG2S], false, false);
  }
}

void CommandQueue::end_program() {
  m_insns.clear();
  m_uops.reset();
  m_user_insns = 0;
  begin_program();
}

void CommandQueue::synchronize(uint32_t wait_cycles) {
  const char* who = "VTASynchronize";
  check_not_recording(who);
  if (m_user_insns == 0 && !m_insns.pending_pop()) {
    return;  // nothing new since the last run
  }
  TokenCounts carry{};  // dropped if anything below fails
  ScopeExit reset{[&] {
    m_carry = carry;
    end_program();
  }};
  const TokenCounts left = close_program(who);
  const std::vector<InsnWords> words = m_insns.words();
  copy_to_dram(words);
  dump_program();
  const bool run = (m_debug & VTA_DEBUG_LOG_INSN) == 0 && !m_hooks.skip_execution;
  if (m_hooks.observer) {
    SyncedProgram p;
    p.insns = words;
    p.uops = m_uops.image();
    p.insn_phys = m_insn_phys;
    p.uop_phys = m_uop_phys;
    p.executed = run;
    m_hooks.observer(p);
  }
  if (run) {
    if (m_hooks.dma_bounds) {  // here, not at issue: a buffer may be freed in between
      check_dma_bounds(m_mem, m_cfg, m_insns.decoded(), who);
    }
    run_program(who, words.size(), wait_cycles);
  }
  ++m_programs;
  carry = left;
}

TokenCounts CommandQueue::close_program(const char* who) {
  const bool serial = (m_debug & VTA_DEBUG_FORCE_SERIAL) != 0;
  if (serial) {
    m_insns.rewrite_force_serial();
  } else {
    // The final compute NOP waits for the last store and the last load.
    m_insns.dep_push(kStageStore, kStageCompute);
    m_insns.dep_push(kStageLoad, kStageCompute);
    m_insns.dep_pop(kStageStore, kStageCompute);
    m_insns.dep_pop(kStageLoad, kStageCompute);
    m_insns.commit_pending_pop(kStageCompute);
  }
  TokenCounts left;
  try {
    left = m_insns.check_tokens();
  } catch (const ProgramError& e) {
    throw ProgramError(fmt::format("{}: {}", who, e.what()));
  }
  if (!serial) {
    // Tokens nobody popped would let FINISH overtake the last load/store: drain them here and
    // re-create them at the start of the next program.
    for (uint64_t a = left[kL2G], b = left[kS2G]; a > 0 || b > 0;) {
      m_insns.push_noop(kStageCompute, false, false, a > 0, b > 0);
      a -= a > 0 ? 1 : 0;
      b -= b > 0 ? 1 : 0;
    }
  }
  Insn finish;
  finish.opcode = kOpFinish;
  m_insns.push(finish);
  if (m_insns.size() * kInsnBytes > m_max_xfer) {
    throw Error(fmt::format("{}: {} instructions exceed the instruction buffer ({} bytes)", who,
                            m_insns.size(), m_max_xfer));
  }
  // FORCE_SERIAL programs are self-contained: nothing is carried.
  return serial ? TokenCounts{} : left;
}

void CommandQueue::copy_to_dram(const std::vector<InsnWords>& words) {
  auto* insn_dst = static_cast<uint8_t*>(m_insn_buf);
  for (size_t i = 0; i < words.size(); ++i) {
    IsaCodec::store_words(words[i], insn_dst + i * kInsnBytes);
  }
  const auto& uops = m_uops.image();
  auto* uop_dst = static_cast<uint8_t*>(m_uop_buf);
  for (size_t i = 0; i < uops.size(); ++i) {
    for (int b = 0; b < kUopBytes; ++b) {
      uop_dst[i * kUopBytes + b] = static_cast<uint8_t>(uops[i] >> (8 * b));
    }
  }
}

void CommandQueue::dump_program() {
  const size_t uop_count = m_uops.image().size();
  if (!m_hooks.dump_path.empty()) {
    write_program_image(m_hooks.dump_path, m_programs, m_cfg, m_mem.dram(),
                        {m_insn_phys, m_insns.size(), m_uop_phys, uop_count});
  }
  if (m_debug & VTA_DEBUG_DUMP_INSN) {
    print_program(m_insns.decoded(), uop_count);
  }
  if (m_debug & VTA_DEBUG_LOG_INSN) {
    write_insn_log(m_insns.decoded());
  }
}

void CommandQueue::run_program(const char* who, size_t insn_count, uint32_t wait_cycles) {
  const RunStatus st = m_device.run(m_insn_phys, static_cast<uint32_t>(insn_count), wait_cycles);
  if (st == RunStatus::kTimeout) {
    throw Error(fmt::format("{}: the {} backend did not reach FINISH within {} cycles", who,
                            m_device.name(), wait_cycles));
  }
}

}  // namespace vta
