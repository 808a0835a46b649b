// The VTA instruction set, HW_VER 0.0.2: opcodes, memory types, ALU opcodes, the decoded form of
// an instruction and a micro-op, and the bit-exact encoder/decoder for any valid configuration.
//
// Layout rule (upstream hw_spec.h uses uint64_t bit-fields): fields are placed LSB-first in
// declaration order; a field that would cross bit 64 starts at bit 64 instead. Field widths of
// GEMM/ALU depend on the buffer depths, so the layout is computed per configuration, field by
// field. Everything is explicit shifts and masks; nothing reinterprets bit-field structs.
//
// Semantics (loop nest shared by GEMM and ALU):
//   for it_out in [0, iter_out): for it_in in [0, iter_in): for upc in [uop_bgn, uop_end):
//     dst = uop[upc].dst + it_out*dst_factor_out + it_in*dst_factor_in (acc index)
//     src = uop[upc].src + it_out*src_factor_out + it_in*src_factor_in (inp for GEMM, acc for ALU)
//     wgt = uop[upc].wgt + it_out*wgt_factor_out + it_in*wgt_factor_in (GEMM only)
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace vta {

struct HwConfig;

enum Opcode : uint32_t { kOpLoad = 0, kOpStore = 1, kOpGemm = 2, kOpFinish = 3, kOpAlu = 4 };
enum MemType : uint32_t {
  kMemUop = 0,
  kMemWgt = 1,
  kMemInp = 2,
  kMemAcc = 3,
  kMemOut = 4,
  kMemAcc8 = 5,  // ACC_8BIT: int8 DRAM data sign-extended into the accumulator
};
enum AluOp : uint32_t { kAluMin = 0, kAluMax = 1, kAluAdd = 2, kAluShr = 3, kAluMul = 4 };

const char* opcode_name(uint32_t opcode);  // "LOAD", ..., or "OPCODE?"
const char* mem_type_name(uint32_t type);  // "UOP", "WGT", ..., or "MEM?"
const char* alu_op_name(uint32_t alu_op);  // "MIN", ..., or "ALU?"

// Pipeline stages, numbered as upstream (the runtime's queue ids).
enum Stage : int { kStageNone = 0, kStageLoad = 1, kStageCompute = 2, kStageStore = 3 };

// One decoded instruction. Fields not used by the opcode are zero. Values are raw field
// contents (unsigned), except imm which is sign-extended from 16 bits.
struct Insn {
  uint32_t opcode = 0;
  bool pop_prev_dep = false;
  bool pop_next_dep = false;
  bool push_prev_dep = false;
  bool push_next_dep = false;
  // LOAD / STORE
  uint32_t memory_type = 0;
  uint32_t sram_base = 0;
  uint32_t dram_base = 0;  // in elements of the memory type
  uint32_t y_size = 0, x_size = 0, x_stride = 0;
  uint32_t y_pad_0 = 0, y_pad_1 = 0, x_pad_0 = 0, x_pad_1 = 0;
  // GEMM / ALU
  bool reset_reg = false;
  uint32_t uop_bgn = 0, uop_end = 0;
  uint32_t iter_out = 0, iter_in = 0;
  uint32_t dst_factor_out = 0, dst_factor_in = 0;
  uint32_t src_factor_out = 0, src_factor_in = 0;
  uint32_t wgt_factor_out = 0, wgt_factor_in = 0;  // GEMM only
  uint32_t alu_opcode = 0;                         // ALU only
  bool use_imm = false;                            // ALU only
  int32_t imm = 0;                                 // ALU only, 16-bit signed

  // Stage that executes the instruction (routing of the fetch unit): LOAD INP/WGT -> load;
  // other LOADs, GEMM, ALU, FINISH -> compute; STORE -> store; unknown opcode -> none.
  Stage stage() const;
  bool operator==(const Insn& o) const;
};

// A LOAD or STORE of y_size rows of x_size elements, x_stride elements apart in DRAM, without
// padding or dependency flags (callers set those on the result).
Insn mem_insn(uint32_t opcode, uint32_t memory_type, uint32_t sram_base, uint32_t dram_base,
              uint32_t y_size, uint32_t x_size, uint32_t x_stride);

// One decoded micro-op.
struct Uop {
  uint32_t dst_idx = 0;  // acc index
  uint32_t src_idx = 0;  // inp index (GEMM) or acc index (ALU)
  uint32_t wgt_idx = 0;  // wgt index (GEMM)
  bool operator==(const Uop& o) const {
    return dst_idx == o.dst_idx && src_idx == o.src_idx && wgt_idx == o.wgt_idx;
  }
};

// 128-bit instruction as two little-endian 64-bit words (word 0 = bits 0..63).
using InsnWords = std::array<uint64_t, 2>;
constexpr int kInsnBytes = 16;
constexpr int kUopBytes = 4;

// Position of one field in the 128-bit instruction.
struct FieldPos {
  const char* name;
  int lo;     // first bit
  int width;  // bits
};

// Field positions of the three instruction layouts for one configuration.
struct IsaLayout {
  std::vector<FieldPos> mem, gemm, alu;  // in declaration order
  int gemm_bits = 0, alu_bits = 0;       // end of the last field (must be <= 128)
  int uop_dst_bits = 0, uop_src_bits = 0, uop_wgt_bits = 0;

  // Places fields by the upstream rule from the log2 buffer depths.
  static IsaLayout compute(int log_uop_depth, int log_inp_depth, int log_wgt_depth,
                           int log_acc_depth);
  const FieldPos& field(const std::vector<FieldPos>& layout, const std::string& name) const;
};

// Encoder/decoder for one configuration.
class IsaCodec {
 public:
  explicit IsaCodec(const HwConfig& cfg);

  // Throws ProgramError naming the field if a value does not fit in its field.
  InsnWords encode(const Insn& insn) const;
  Insn decode(const InsnWords& words) const;
  uint32_t encode_uop(const Uop& uop) const;
  Uop decode_uop(uint32_t word) const;

  // Reads/writes a 16-byte little-endian instruction.
  static InsnWords load_words(const uint8_t* bytes);
  static void store_words(const InsnWords& words, uint8_t* bytes);

  const IsaLayout& layout() const { return m_layout; }

 private:
  IsaLayout m_layout;
};

// One-line disassembly with every field named, e.g.
//   "GEMM  pop_prev=1 ... reset=0 uop=[0,4) iter_out=2 iter_in=3 dst_fo=1 ..."
std::string disassemble(const Insn& insn);
std::string disassemble(const Uop& uop);

// The instruction as a JSON object (upstream's VTA_DEBUG_LOG_INSN format): name and the four
// dependency flags, then the fields of its opcode in encoding order, memory type and ALU opcode
// by name.
nlohmann::ordered_json to_json(const Insn& insn);

}  // namespace vta
