#include "vta/sim/isa.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "vta/sim/error.h"
#include "vta/sim/hw_config.h"

namespace vta {

const char* opcode_name(uint32_t opcode) {
  switch (opcode) {
    case kOpLoad:
      return "LOAD";
    case kOpStore:
      return "STORE";
    case kOpGemm:
      return "GEMM";
    case kOpFinish:
      return "FINISH";
    case kOpAlu:
      return "ALU";
    default:
      return "OPCODE?";
  }
}

const char* mem_type_name(uint32_t type) {
  switch (type) {
    case kMemUop:
      return "UOP";
    case kMemWgt:
      return "WGT";
    case kMemInp:
      return "INP";
    case kMemAcc:
      return "ACC";
    case kMemOut:
      return "OUT";
    case kMemAcc8:
      return "ACC_8BIT";
    default:
      return "MEM?";
  }
}

const char* alu_op_name(uint32_t alu_op) {
  switch (alu_op) {
    case kAluMin:
      return "MIN";
    case kAluMax:
      return "MAX";
    case kAluAdd:
      return "ADD";
    case kAluShr:
      return "SHR";
    case kAluMul:
      return "MUL";
    default:
      return "ALU?";
  }
}

Stage Insn::stage() const {
  switch (opcode) {
    case kOpLoad:
      return (memory_type == kMemInp || memory_type == kMemWgt) ? kStageLoad : kStageCompute;
    case kOpStore:
      return kStageStore;
    case kOpGemm:
    case kOpAlu:
    case kOpFinish:
      return kStageCompute;
    default:
      return kStageNone;
  }
}

Insn mem_insn(uint32_t opcode, uint32_t memory_type, uint32_t sram_base, uint32_t dram_base,
              uint32_t y_size, uint32_t x_size, uint32_t x_stride) {
  Insn i;
  i.opcode = opcode;
  i.memory_type = memory_type;
  i.sram_base = sram_base;
  i.dram_base = dram_base;
  i.y_size = y_size;
  i.x_size = x_size;
  i.x_stride = x_stride;
  return i;
}

bool Insn::operator==(const Insn& o) const {
  return opcode == o.opcode && pop_prev_dep == o.pop_prev_dep && pop_next_dep == o.pop_next_dep &&
         push_prev_dep == o.push_prev_dep && push_next_dep == o.push_next_dep &&
         memory_type == o.memory_type && sram_base == o.sram_base && dram_base == o.dram_base &&
         y_size == o.y_size && x_size == o.x_size && x_stride == o.x_stride &&
         y_pad_0 == o.y_pad_0 && y_pad_1 == o.y_pad_1 && x_pad_0 == o.x_pad_0 &&
         x_pad_1 == o.x_pad_1 && reset_reg == o.reset_reg && uop_bgn == o.uop_bgn &&
         uop_end == o.uop_end && iter_out == o.iter_out && iter_in == o.iter_in &&
         dst_factor_out == o.dst_factor_out && dst_factor_in == o.dst_factor_in &&
         src_factor_out == o.src_factor_out && src_factor_in == o.src_factor_in &&
         wgt_factor_out == o.wgt_factor_out && wgt_factor_in == o.wgt_factor_in &&
         alu_opcode == o.alu_opcode && use_imm == o.use_imm && imm == o.imm;
}

namespace {

constexpr int kIterBits = 14;
constexpr int kImmBits = 16;

// Places (name, width) pairs LSB-first; a field that would cross bit 64 starts at bit 64.
std::vector<FieldPos> place(const std::vector<std::pair<const char*, int>>& fields, int* end) {
  std::vector<FieldPos> out;
  int pos = 0;
  for (const auto& [name, width] : fields) {
    if (pos < 64 && pos + width > 64) {
      pos = 64;
    }
    out.push_back({name, pos, width});
    pos += width;
  }
  *end = pos;
  return out;
}

uint64_t get_bits(const InsnWords& w, const FieldPos& f) {
  const int word = f.lo / 64;
  const int shift = f.lo % 64;
  const uint64_t mask = f.width == 64 ? ~0ull : ((1ull << f.width) - 1);
  return (w[word] >> shift) & mask;
}

// Field values of an instruction in layout order (must match IsaLayout::compute), in a fixed
// array: the runtime encodes every instruction it appends, so no allocation per call.
struct FieldValues {
  std::array<uint64_t, 17> v{};
  size_t n = 0;
};

template <class... T>
FieldValues field_values(T... v) {
  static_assert(sizeof...(T) <= 17, "FieldValues holds at most 17 fields");
  return {{static_cast<uint64_t>(v)...}, sizeof...(T)};
}

FieldValues mem_values(const Insn& i) {
  return field_values(i.opcode, i.pop_prev_dep, i.pop_next_dep, i.push_prev_dep, i.push_next_dep,
                      i.memory_type, i.sram_base, i.dram_base, i.y_size, i.x_size, i.x_stride,
                      i.y_pad_0, i.y_pad_1, i.x_pad_0, i.x_pad_1);
}

FieldValues gemm_values(const Insn& i) {
  return field_values(i.opcode, i.pop_prev_dep, i.pop_next_dep, i.push_prev_dep, i.push_next_dep,
                      i.reset_reg, i.uop_bgn, i.uop_end, i.iter_out, i.iter_in, i.dst_factor_out,
                      i.dst_factor_in, i.src_factor_out, i.src_factor_in, i.wgt_factor_out,
                      i.wgt_factor_in);
}

FieldValues alu_values(const Insn& i) {
  const uint64_t imm = static_cast<uint16_t>(static_cast<int16_t>(i.imm));
  return field_values(i.opcode, i.pop_prev_dep, i.pop_next_dep, i.push_prev_dep, i.push_next_dep,
                      i.reset_reg, i.uop_bgn, i.uop_end, i.iter_out, i.iter_in, i.dst_factor_out,
                      i.dst_factor_in, i.src_factor_out, i.src_factor_in, i.alu_opcode, i.use_imm,
                      imm);
}

}  // namespace

IsaLayout IsaLayout::compute(int log_uop_depth, int log_inp_depth, int log_wgt_depth,
                             int log_acc_depth) {
  IsaLayout l;
  int mem_end = 0;
  l.mem = place({{"opcode", 3},
                 {"pop_prev_dep", 1},
                 {"pop_next_dep", 1},
                 {"push_prev_dep", 1},
                 {"push_next_dep", 1},
                 {"memory_type", 3},
                 {"sram_base", 16},
                 {"dram_base", 32},
                 {"y_size", 16},
                 {"x_size", 16},
                 {"x_stride", 16},
                 {"y_pad_0", 4},
                 {"y_pad_1", 4},
                 {"x_pad_0", 4},
                 {"x_pad_1", 4}},
                &mem_end);
  const std::vector<std::pair<const char*, int>> head = {{"opcode", 3},
                                                         {"pop_prev_dep", 1},
                                                         {"pop_next_dep", 1},
                                                         {"push_prev_dep", 1},
                                                         {"push_next_dep", 1},
                                                         {"reset_reg", 1},
                                                         {"uop_bgn", log_uop_depth},
                                                         {"uop_end", log_uop_depth + 1},
                                                         {"iter_out", kIterBits},
                                                         {"iter_in", kIterBits},
                                                         {"dst_factor_out", log_acc_depth},
                                                         {"dst_factor_in", log_acc_depth}};
  auto gemm = head;
  gemm.insert(gemm.end(), {{"src_factor_out", log_inp_depth},
                           {"src_factor_in", log_inp_depth},
                           {"wgt_factor_out", log_wgt_depth},
                           {"wgt_factor_in", log_wgt_depth}});
  auto alu = head;
  alu.insert(alu.end(), {{"src_factor_out", log_acc_depth},
                         {"src_factor_in", log_acc_depth},
                         {"alu_opcode", 3},
                         {"use_imm", 1},
                         {"imm", kImmBits}});
  l.gemm = place(gemm, &l.gemm_bits);
  l.alu = place(alu, &l.alu_bits);
  l.uop_dst_bits = log_acc_depth;
  l.uop_src_bits = std::max(log_acc_depth, log_inp_depth);
  l.uop_wgt_bits = log_wgt_depth;
  return l;
}

const FieldPos& IsaLayout::field(const std::vector<FieldPos>& layout,
                                 const std::string& name) const {
  for (const auto& f : layout) {
    if (name == f.name) {
      return f;
    }
  }
  throw Error("no instruction field named '" + name + "'");
}

IsaCodec::IsaCodec(const HwConfig& cfg)
    : m_layout(IsaLayout::compute(cfg.log_uop_buff_depth, cfg.log_inp_buff_depth,
                                  cfg.log_wgt_buff_depth, cfg.log_acc_buff_depth)) {}

InsnWords IsaCodec::encode(const Insn& insn) const {
  const std::vector<FieldPos>* layout = nullptr;
  FieldValues values;
  switch (insn.opcode) {
    case kOpLoad:
    case kOpStore:
      layout = &m_layout.mem;
      values = mem_values(insn);
      break;
    case kOpAlu:
      layout = &m_layout.alu;
      values = alu_values(insn);
      if (insn.imm < -32768 || insn.imm > 32767) {
        throw ProgramError(
            fmt::format("ALU field 'imm' value {} does not fit in 16 signed bits", insn.imm));
      }
      break;
    case kOpGemm:
    case kOpFinish:
      layout = &m_layout.gemm;
      values = gemm_values(insn);
      break;
    default:
      throw ProgramError(fmt::format("cannot encode unknown opcode {}", insn.opcode));
  }
  // Both words are accumulated in registers; the name of the opcode is only needed to report.
  uint64_t lo = 0, hi = 0;
  for (size_t k = 0; k < values.n; ++k) {
    const FieldPos& f = (*layout)[k];
    const uint64_t mask = f.width == 64 ? ~0ull : ((1ull << f.width) - 1);
    if (values.v[k] & ~mask) {
      throw ProgramError(fmt::format("{} field '{}' value {} does not fit in {} bits",
                                     opcode_name(insn.opcode), f.name, values.v[k], f.width));
    }
    const uint64_t bits = values.v[k] << (f.lo % 64);
    lo |= f.lo < 64 ? bits : 0;
    hi |= f.lo < 64 ? 0 : bits;
  }
  return InsnWords{lo, hi};
}

Insn IsaCodec::decode(const InsnWords& w) const {
  Insn i;
  i.opcode = static_cast<uint32_t>(w[0] & 7);
  i.pop_prev_dep = (w[0] >> 3) & 1;
  i.pop_next_dep = (w[0] >> 4) & 1;
  i.push_prev_dep = (w[0] >> 5) & 1;
  i.push_next_dep = (w[0] >> 6) & 1;
  auto f = [&](const std::vector<FieldPos>& layout, size_t k) {
    return static_cast<uint32_t>(get_bits(w, layout[k]));
  };
  if (i.opcode == kOpLoad || i.opcode == kOpStore) {
    const auto& m = m_layout.mem;
    i.memory_type = f(m, 5);
    i.sram_base = f(m, 6);
    i.dram_base = f(m, 7);
    i.y_size = f(m, 8);
    i.x_size = f(m, 9);
    i.x_stride = f(m, 10);
    i.y_pad_0 = f(m, 11);
    i.y_pad_1 = f(m, 12);
    i.x_pad_0 = f(m, 13);
    i.x_pad_1 = f(m, 14);
  } else if (i.opcode == kOpGemm || i.opcode == kOpFinish || i.opcode == kOpAlu) {
    const bool alu = i.opcode == kOpAlu;
    const auto& g = alu ? m_layout.alu : m_layout.gemm;
    i.reset_reg = f(g, 5);
    i.uop_bgn = f(g, 6);
    i.uop_end = f(g, 7);
    i.iter_out = f(g, 8);
    i.iter_in = f(g, 9);
    i.dst_factor_out = f(g, 10);
    i.dst_factor_in = f(g, 11);
    i.src_factor_out = f(g, 12);
    i.src_factor_in = f(g, 13);
    if (alu) {
      i.alu_opcode = f(g, 14);
      i.use_imm = f(g, 15);
      i.imm = static_cast<int16_t>(static_cast<uint16_t>(f(g, 16)));
    } else {
      i.wgt_factor_out = f(g, 14);
      i.wgt_factor_in = f(g, 15);
    }
  }
  return i;
}

uint32_t IsaCodec::encode_uop(const Uop& uop) const {
  const auto check = [](uint32_t v, int bits, const char* name) {
    if (bits < 32 && (v >> bits) != 0) {
      throw ProgramError(
          fmt::format("micro-op field '{}' value {} does not fit in {} bits", name, v, bits));
    }
  };
  check(uop.dst_idx, m_layout.uop_dst_bits, "dst_idx");
  check(uop.src_idx, m_layout.uop_src_bits, "src_idx");
  check(uop.wgt_idx, m_layout.uop_wgt_bits, "wgt_idx");
  return uop.dst_idx | (uop.src_idx << m_layout.uop_dst_bits) |
         (uop.wgt_idx << (m_layout.uop_dst_bits + m_layout.uop_src_bits));
}

Uop IsaCodec::decode_uop(uint32_t word) const {
  const auto mask = [](int bits) { return bits >= 32 ? ~0u : ((1u << bits) - 1); };
  Uop u;
  u.dst_idx = word & mask(m_layout.uop_dst_bits);
  u.src_idx = (word >> m_layout.uop_dst_bits) & mask(m_layout.uop_src_bits);
  const int wgt_lo = m_layout.uop_dst_bits + m_layout.uop_src_bits;
  u.wgt_idx = wgt_lo >= 32 ? 0 : (word >> wgt_lo) & mask(m_layout.uop_wgt_bits);
  return u;
}

InsnWords IsaCodec::load_words(const uint8_t* bytes) {
  InsnWords w{0, 0};
  for (int k = 0; k < 16; ++k) {
    w[k / 8] |= static_cast<uint64_t>(bytes[k]) << (8 * (k % 8));
  }
  return w;
}

void IsaCodec::store_words(const InsnWords& w, uint8_t* bytes) {
  for (int k = 0; k < 16; ++k) {
    bytes[k] = static_cast<uint8_t>(w[k / 8] >> (8 * (k % 8)));
  }
}

std::string disassemble(const Insn& i) {
  std::string deps = fmt::format("pop_prev={:d} pop_next={:d} push_prev={:d} push_next={:d}",
                                 i.pop_prev_dep, i.pop_next_dep, i.push_prev_dep, i.push_next_dep);
  switch (i.opcode) {
    case kOpLoad:
    case kOpStore:
      return fmt::format(
          "{:<6} {} type={} sram_base={} dram_base={:#x} y_size={} x_size={} x_stride={} "
          "y_pad_0={} y_pad_1={} x_pad_0={} x_pad_1={}{}",
          opcode_name(i.opcode), deps, mem_type_name(i.memory_type), i.sram_base, i.dram_base,
          i.y_size, i.x_size, i.x_stride, i.y_pad_0, i.y_pad_1, i.x_pad_0, i.x_pad_1,
          i.x_size == 0 ? " (NOP)" : "");
    case kOpGemm:
    case kOpFinish:
      if (i.opcode == kOpFinish) {
        return fmt::format("{:<6} {}", "FINISH", deps);
      }
      return fmt::format(
          "{:<6} {} reset={:d} uop_bgn={} uop_end={} iter_out={} iter_in={} dst_factor_out={} "
          "dst_factor_in={} src_factor_out={} src_factor_in={} wgt_factor_out={} "
          "wgt_factor_in={}",
          "GEMM", deps, i.reset_reg, i.uop_bgn, i.uop_end, i.iter_out, i.iter_in, i.dst_factor_out,
          i.dst_factor_in, i.src_factor_out, i.src_factor_in, i.wgt_factor_out, i.wgt_factor_in);
    case kOpAlu:
      return fmt::format(
          "{:<6} {} alu_opcode={} use_imm={:d} imm={} reset={:d} uop_bgn={} uop_end={} "
          "iter_out={} iter_in={} dst_factor_out={} dst_factor_in={} src_factor_out={} "
          "src_factor_in={}",
          "ALU", deps, alu_op_name(i.alu_opcode), i.use_imm, i.imm, i.reset_reg, i.uop_bgn,
          i.uop_end, i.iter_out, i.iter_in, i.dst_factor_out, i.dst_factor_in, i.src_factor_out,
          i.src_factor_in);
    default:
      return fmt::format("{:<6} opcode={} {}", "???", i.opcode, deps);
  }
}

std::string disassemble(const Uop& u) {
  return fmt::format("UOP dst_idx={} src_idx={} wgt_idx={}", u.dst_idx, u.src_idx, u.wgt_idx);
}

nlohmann::ordered_json to_json(const Insn& in) {
  nlohmann::ordered_json j;
  j["name"] = opcode_name(in.opcode);
  j["pop_prev"] = in.pop_prev_dep;
  j["pop_next"] = in.pop_next_dep;
  j["push_prev"] = in.push_prev_dep;
  j["push_next"] = in.push_next_dep;
  if (in.opcode == kOpLoad || in.opcode == kOpStore) {
    j["memory_type"] = mem_type_name(in.memory_type);
    j["sram_base"] = in.sram_base;
    j["dram_base"] = in.dram_base;
    j["y_size"] = in.y_size;
    j["x_size"] = in.x_size;
    j["x_stride"] = in.x_stride;
    j["y_pad_0"] = in.y_pad_0;
    j["y_pad_1"] = in.y_pad_1;
    j["x_pad_0"] = in.x_pad_0;
    j["x_pad_1"] = in.x_pad_1;
  } else if (in.opcode == kOpGemm || in.opcode == kOpAlu) {
    j["reset_reg"] = in.reset_reg;
    j["uop_bgn"] = in.uop_bgn;
    j["uop_end"] = in.uop_end;
    j["iter_out"] = in.iter_out;
    j["iter_in"] = in.iter_in;
    j["dst_factor_out"] = in.dst_factor_out;
    j["dst_factor_in"] = in.dst_factor_in;
    j["src_factor_out"] = in.src_factor_out;
    j["src_factor_in"] = in.src_factor_in;
    if (in.opcode == kOpGemm) {
      j["wgt_factor_out"] = in.wgt_factor_out;
      j["wgt_factor_in"] = in.wgt_factor_in;
    } else {
      j["alu_opcode"] = alu_op_name(in.alu_opcode);
      j["use_imm"] = in.use_imm;
      j["imm"] = in.imm;
    }
  }
  return j;
}

}  // namespace vta
