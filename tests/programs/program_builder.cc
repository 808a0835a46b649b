#include "program_builder.h"

#include <cstring>

#include <fmt/format.h>

namespace vta::testprog {

namespace {

void set_deps(Insn& i, Deps d) {
  i.pop_prev_dep = d.pop_prev;
  i.pop_next_dep = d.pop_next;
  i.push_prev_dep = d.push_prev;
  i.push_next_dep = d.push_next;
}

void set_loop(Insn& i, const UopLoop& l) {
  i.uop_bgn = l.uop_bgn;
  i.uop_end = l.uop_end;
  i.iter_out = l.iter_out;
  i.iter_in = l.iter_in;
  i.dst_factor_out = l.dst_factor_out;
  i.dst_factor_in = l.dst_factor_in;
  i.src_factor_out = l.src_factor_out;
  i.src_factor_in = l.src_factor_in;
}

}  // namespace

Insn make_load_store(uint32_t opcode, uint32_t memory_type, uint32_t sram_base, uint32_t dram_base,
                     uint32_t y_size, uint32_t x_size, uint32_t x_stride, Deps deps,
                     uint32_t y_pad_0, uint32_t y_pad_1, uint32_t x_pad_0, uint32_t x_pad_1) {
  Insn i;
  i.opcode = opcode;
  set_deps(i, deps);
  i.memory_type = memory_type;
  i.sram_base = sram_base;
  i.dram_base = dram_base;
  i.y_size = y_size;
  i.x_size = x_size;
  i.x_stride = x_stride;
  i.y_pad_0 = y_pad_0;
  i.y_pad_1 = y_pad_1;
  i.x_pad_0 = x_pad_0;
  i.x_pad_1 = x_pad_1;
  return i;
}

Insn make_load_1d(uint32_t memory_type, uint32_t sram_base, uint32_t dram_base, uint32_t size,
                  Deps deps) {
  return make_load_store(kOpLoad, memory_type, sram_base, dram_base, 1, size, size, deps);
}

Insn make_store_1d(uint32_t sram_base, uint32_t dram_base, uint32_t size, Deps deps) {
  return make_load_store(kOpStore, kMemOut, sram_base, dram_base, 1, size, size, deps);
}

Insn make_gemm(const UopLoop& loop, bool reset, Deps deps) {
  Insn i;
  i.opcode = kOpGemm;
  set_deps(i, deps);
  set_loop(i, loop);
  i.reset_reg = reset;
  i.wgt_factor_out = loop.wgt_factor_out;
  i.wgt_factor_in = loop.wgt_factor_in;
  return i;
}

Insn make_alu(uint32_t alu_opcode, const UopLoop& loop, bool use_imm, int32_t imm, Deps deps) {
  Insn i;
  i.opcode = kOpAlu;
  set_deps(i, deps);
  set_loop(i, loop);
  i.alu_opcode = alu_opcode;
  i.use_imm = use_imm;
  i.imm = imm;
  return i;
}

Insn make_finish(bool pop_prev, bool pop_next) {
  Insn i;
  i.opcode = kOpFinish;
  i.pop_prev_dep = pop_prev;
  i.pop_next_dep = pop_next;
  return i;
}

ProgramBuilder::~ProgramBuilder() {
  for (void* p : m_allocs) {
    m_dram.free(p);
  }
}

DeviceBuffer ProgramBuilder::alloc(size_t bytes) {
  void* p = m_dram.alloc(bytes);
  m_allocs.push_back(p);
  return DeviceBuffer{static_cast<uint8_t*>(p), m_dram.phys_addr(p), bytes};
}

DeviceBuffer ProgramBuilder::alloc_uops(const std::vector<Uop>& uops) {
  IsaCodec codec(m_cfg);
  DeviceBuffer b = alloc(uops.size() * kUopBytes);
  for (size_t k = 0; k < uops.size(); ++k) {
    const uint32_t w = codec.encode_uop(uops[k]);
    std::memcpy(b.host + k * kUopBytes, &w, kUopBytes);
  }
  return b;
}

void ProgramBuilder::push_raw(const InsnWords& words) {
  m_raw.emplace_back(m_insns.size(), words);
  m_insns.push_back(IsaCodec(m_cfg).decode(words));
}

DeviceBuffer ProgramBuilder::emit() {
  IsaCodec codec(m_cfg);
  DeviceBuffer b = alloc(std::max<size_t>(1, m_insns.size()) * kInsnBytes);
  size_t raw = 0;
  for (size_t k = 0; k < m_insns.size(); ++k) {
    if (raw < m_raw.size() && m_raw[raw].first == k) {
      IsaCodec::store_words(m_raw[raw++].second, b.host + k * kInsnBytes);
    } else {
      IsaCodec::store_words(codec.encode(m_insns[k]), b.host + k * kInsnBytes);
    }
  }
  return b;
}

RunStatus ProgramBuilder::run(Backend& backend, uint64_t wait_cycles) {
  const DeviceBuffer b = emit();
  return backend.run(b.phys, static_cast<uint32_t>(m_insns.size()), wait_cycles);
}

Stats expected_counters(const HwConfig& cfg, const std::vector<Insn>& insns) {
  Stats s;
  for (const Insn& i : insns) {
    ++s.insn_count[i.opcode & 7];
    const uint64_t xy = static_cast<uint64_t>(i.x_size) * i.y_size;
    const uint64_t uops = static_cast<uint64_t>(i.iter_out) * i.iter_in * (i.uop_end - i.uop_bgn);
    switch (i.opcode) {
      case kOpLoad:
        if (i.memory_type == kMemInp) {
          s.inp_load_nbytes += xy * cfg.inp_elem_bytes;
        }
        if (i.memory_type == kMemWgt) {
          s.wgt_load_nbytes += xy * cfg.wgt_elem_bytes;
        }
        if (i.memory_type == kMemUop) {
          s.uop_load_nbytes += xy * 4;
        }
        if (i.memory_type == kMemAcc || i.memory_type == kMemAcc8) {
          // ACC_ELEM_BYTES = BATCH * BLOCK_OUT * ACC_WIDTH / 8, for ACC_8BIT too (upstream)
          s.acc_load_nbytes += xy * cfg.batch * cfg.block_out * cfg.acc_width / 8;
        }
        break;
      case kOpStore:
        s.out_store_nbytes += xy * cfg.batch * cfg.block_out * cfg.out_width / 8;
        break;
      case kOpGemm:
        s.gemm_counter += i.reset_reg ? 0 : uops;
        break;
      case kOpAlu:
        s.alu_counter += uops;
        break;
      default:
        break;
    }
    if (i.opcode == kOpFinish) {
      break;
    }
  }
  return s;
}

std::string compare_counters(const Stats& e, const Stats& a) {
  std::string diff;
  const auto cmp = [&](const char* name, uint64_t ev, uint64_t av) {
    if (ev != av) {
      diff += fmt::format("{} expected {} got {}; ", name, ev, av);
    }
  };
  cmp("inp_load_nbytes", e.inp_load_nbytes, a.inp_load_nbytes);
  cmp("wgt_load_nbytes", e.wgt_load_nbytes, a.wgt_load_nbytes);
  cmp("acc_load_nbytes", e.acc_load_nbytes, a.acc_load_nbytes);
  cmp("uop_load_nbytes", e.uop_load_nbytes, a.uop_load_nbytes);
  cmp("out_store_nbytes", e.out_store_nbytes, a.out_store_nbytes);
  cmp("gemm_counter", e.gemm_counter, a.gemm_counter);
  cmp("alu_counter", e.alu_counter, a.alu_counter);
  for (uint32_t op = 0; op <= kOpAlu; ++op) {
    cmp(opcode_name(op), e.insn_count[op], a.insn_count[op]);
  }
  return diff;
}

void fill_random_i8(int8_t* p, size_t n, int lo, int hi, std::mt19937& rng) {
  std::uniform_int_distribution<int> d(lo, hi - 1);
  for (size_t k = 0; k < n; ++k) {
    p[k] = static_cast<int8_t>(d(rng));
  }
}

void fill_random_i32(int32_t* p, size_t n, int32_t lo, int32_t hi, std::mt19937& rng) {
  std::uniform_int_distribution<int32_t> d(lo, hi - 1);
  for (size_t k = 0; k < n; ++k) {
    p[k] = d(rng);
  }
}

}  // namespace vta::testprog
