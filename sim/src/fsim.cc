#include "vta/sim/fsim.h"

#include <algorithm>
#include <array>
#include <cstring>

#include <fmt/format.h>

#include "vta/sim/error.h"
#include "vta/sim/fsim_insn_check.h"
#include "vta/sim/isa.h"

namespace vta {

namespace {

// The four dependency-token queues, named as upstream.
enum TokenQueue : int { kL2G = 0, kG2L = 1, kS2G = 2, kG2S = 3 };
constexpr const char* kTokenQueueName[] = {"l2g", "g2l", "s2g", "g2s"};

// Queue a stage pops for pop_prev (first) / pop_next (second), or -1 when it has none.
constexpr int kPopPrev[4] = {-1, -1, kL2G, kG2S};
constexpr int kPopNext[4] = {-1, kG2L, kS2G, -1};
constexpr int kPushPrev[4] = {-1, -1, kG2L, kS2G};
constexpr int kPushNext[4] = {-1, kL2G, kG2S, -1};

// xorshift32: a tiny deterministic PRNG for the randomised stage order.
uint32_t next_random(uint32_t& state) {
  state ^= state << 13;
  state ^= state >> 17;
  state ^= state << 5;
  return state;
}

// C-like arithmetic shift of a 32-bit accumulator lane by a signed amount: b >= 0 shifts right
// (sign-filling), b < 0 shifts left by -b. Amounts beyond the lane width are defined here (C
// leaves them undefined): right by >= 32 acts as right by 31 (0 or -1), left by >= 32 gives 0.
int32_t alu_shift(int32_t a, int32_t b) {
  if (b >= 0) {
    return a >> std::min(b, 31);
  }
  if (b <= -32) {
    return 0;
  }
  return static_cast<int32_t>(static_cast<uint32_t>(a) << (-b));
}

}  // namespace

struct FsimBackend::Impl {
  Impl(const HwConfig& c, Dram& d, Stats& s)
      : cfg(c),
        dram(d),
        stats(s),
        codec(c),
        shape{c.batch, c.block_in, c.block_out},
        inp_lanes(static_cast<size_t>(c.batch) * c.block_in),
        wgt_lanes(static_cast<size_t>(c.block_out) * c.block_in),
        acc_lanes(static_cast<size_t>(c.batch) * c.block_out),
        uop(c.uop_buff_depth),
        inp(c.inp_buff_depth * inp_lanes, 0),
        wgt(c.wgt_buff_depth * wgt_lanes, 0),
        acc(c.acc_buff_depth * acc_lanes, 0),
        out(c.out_buff_depth * acc_lanes, 0),
        out_stale(c.out_buff_depth, 0) {
    gemm = select_gemm_kernel(GemmKernelKind::kAuto, shape);
    gemm_name = gemm_kernel_kind_name(resolve_gemm_kernel(GemmKernelKind::kAuto, shape));
  }

  const HwConfig& cfg;
  Dram& dram;
  Stats& stats;
  IsaCodec codec;
  GemmShape shape;
  size_t inp_lanes, wgt_lanes, acc_lanes;  // elements (int8 / int32 values) per SRAM tile

  // ---- SRAMs (persist across runs) ----
  std::vector<Uop> uop;            // micro-op buffer, decoded at LOAD UOP
  std::vector<int16_t> inp;        // input buffer, int16 [BATCH][BLOCK_IN] per tile
  std::vector<int16_t> wgt;        // weight buffer, int16 [BLOCK_IN/2][BLOCK_OUT][2] per tile
  std::vector<int32_t> acc;        // accumulator buffer, int32 [BATCH][BLOCK_OUT] per tile
  std::vector<int8_t> out;         // output buffer, int8 [BATCH][BLOCK_OUT] per tile
  std::vector<uint8_t> out_stale;  // 1: out tile = low 8 bits of acc tile, not yet copied

  GemmKernelFn gemm = nullptr;
  const char* gemm_name = "generic";
  uint32_t order_seed = 0;

  // ---- per-run state ----
  std::vector<Insn> insns;                     // the fetched stream
  std::array<std::vector<uint32_t>, 4> queue;  // per stage: instruction indices, in order
  std::array<size_t, 4> head{};                // per stage: next position in `queue`
  std::array<uint64_t, 4> tokens{};            // per token queue: tokens available
  bool finished = false;

  void run(uint32_t insn_phys, uint32_t insn_count);
  void fetch(uint32_t insn_phys, uint32_t insn_count);
  bool can_start(int stage, std::string* why) const;
  void step(int stage);
  [[noreturn]] void deadlock() const;

  void execute(uint64_t index, const Insn& i);
  void exec_load(uint64_t index, const Insn& i);
  void exec_store(uint64_t index, const Insn& i);
  void exec_gemm(uint64_t index, const Insn& i);
  void exec_alu(uint64_t index, const Insn& i);
  void check_dram_rows(uint64_t index, const Insn& i, uint64_t elem_bytes) const;
  void check_uop_range(uint64_t index, const Insn& i) const;
  void check_index(uint64_t index, const Insn& i, const char* what, const char* buffer,
                   uint32_t depth, uint32_t Uop::*field, uint32_t factor_out,
                   uint32_t factor_in) const;
  void refresh_out(uint32_t tile) {
    if (out_stale[tile]) {
      const int32_t* a = &acc[tile * acc_lanes];
      int8_t* o = &out[tile * acc_lanes];
      for (size_t k = 0; k < acc_lanes; ++k) {
        o[k] = static_cast<int8_t>(a[k]);
      }
      out_stale[tile] = 0;
    }
  }
};

FsimBackend::FsimBackend(const HwConfig& cfg, Dram& dram)
    : Backend(cfg, dram), m_impl(std::make_unique<Impl>(m_cfg, m_dram, m_stats)) {}

FsimBackend::~FsimBackend() = default;

RunStatus FsimBackend::run(uint32_t insn_phys, uint32_t insn_count, uint64_t wait_cycles) {
  (void)wait_cycles;  // untimed
  m_impl->run(insn_phys, insn_count);
  return RunStatus::kOk;
}

void FsimBackend::set_stage_order_seed(uint32_t seed) {
  m_impl->order_seed = seed;
}
uint32_t FsimBackend::stage_order_seed() const {
  return m_impl->order_seed;
}

void FsimBackend::set_gemm_kernel(GemmKernelKind kind) {
  m_impl->gemm = select_gemm_kernel(kind, m_impl->shape);
  m_impl->gemm_name = gemm_kernel_kind_name(resolve_gemm_kernel(kind, m_impl->shape));
}

const char* FsimBackend::gemm_kernel_name() const {
  return m_impl->gemm_name;
}

int32_t FsimBackend::acc_lane(uint32_t index, uint32_t lane) const {
  if (index >= m_cfg.acc_buff_depth || lane >= m_impl->acc_lanes) {
    throw Error(fmt::format("acc_lane({}, {}) out of range", index, lane));
  }
  return m_impl->acc[index * m_impl->acc_lanes + lane];
}

int8_t FsimBackend::out_lane(uint32_t index, uint32_t lane) const {
  if (index >= m_cfg.out_buff_depth || lane >= m_impl->acc_lanes) {
    throw Error(fmt::format("out_lane({}, {}) out of range", index, lane));
  }
  if (m_impl->out_stale[index]) {
    return static_cast<int8_t>(m_impl->acc[index * m_impl->acc_lanes + lane]);
  }
  return m_impl->out[index * m_impl->acc_lanes + lane];
}

Uop FsimBackend::uop_at(uint32_t index) const {
  if (index >= m_cfg.uop_buff_depth) {
    throw Error(fmt::format("uop_at({}) out of range", index));
  }
  return m_impl->uop[index];
}

// ---------------------------------------------------------------------------------------------
// Fetch and scheduling

void FsimBackend::Impl::fetch(uint32_t insn_phys, uint32_t insn_count) {
  const uint64_t bytes = static_cast<uint64_t>(insn_count) * kInsnBytes;
  const uint8_t* p = dram.checked_ptr(insn_phys, bytes);
  if (p == nullptr) {
    throw ProgramError(fmt::format(
        "fetch unit: the instruction stream at physical address {:#x} ({} instructions, {} "
        "bytes) is outside allocated DRAM",
        insn_phys, insn_count, bytes));
  }
  insns.resize(insn_count);
  for (auto& q : queue) {
    q.clear();
  }
  for (uint32_t k = 0; k < insn_count; ++k) {
    insns[k] = codec.decode(IsaCodec::load_words(p + static_cast<size_t>(k) * kInsnBytes));
    check_insn_static(k, insns[k]);
    queue[insns[k].stage()].push_back(k);
  }
}

void FsimBackend::Impl::run(uint32_t insn_phys, uint32_t insn_count) {
  ++stats.runs;
  fetch(insn_phys, insn_count);
  head.fill(0);
  tokens.fill(0);
  finished = false;
  uint32_t rng = order_seed;
  while (!finished) {
    bool progressed = false;
    if (order_seed == 0) {
      for (int s = kStageLoad; s <= kStageStore && !finished; ++s) {
        if (can_start(s, nullptr)) {
          step(s);
          progressed = true;
        }
      }
    } else {
      int runnable[3];
      int n = 0;
      for (int s = kStageLoad; s <= kStageStore; ++s) {
        if (can_start(s, nullptr)) {
          runnable[n++] = s;
        }
      }
      if (n > 0) {
        step(runnable[next_random(rng) % n]);
        progressed = true;
      }
    }
    if (!progressed) {
      deadlock();
    }
  }
}

bool FsimBackend::Impl::can_start(int s, std::string* why) const {
  if (head[s] >= queue[s].size()) {
    if (why != nullptr) {
      *why = "has no instructions left";
    }
    return false;
  }
  const uint32_t k = queue[s][head[s]];
  const Insn& i = insns[k];
  const auto blocked = [&](const char* flag, int q, const char* state) {
    if (why != nullptr) {
      *why = fmt::format("is blocked at instruction {} ({}): {} waits on queue {} ({})", k,
                         opcode_name(i.opcode), flag, kTokenQueueName[q], state);
    }
    return false;
  };
  if (i.pop_prev_dep && tokens[kPopPrev[s]] == 0) {
    return blocked("pop_prev_dep", kPopPrev[s], "empty");
  }
  if (i.pop_next_dep && tokens[kPopNext[s]] == 0) {
    return blocked("pop_next_dep", kPopNext[s], "empty");
  }
  const uint64_t depth = static_cast<uint64_t>(cfg.dep_queue_depth);
  if (i.push_prev_dep && tokens[kPushPrev[s]] >= depth) {
    return blocked("push_prev_dep", kPushPrev[s], fmt::format("full, {} tokens", depth).c_str());
  }
  if (i.push_next_dep && tokens[kPushNext[s]] >= depth) {
    return blocked("push_next_dep", kPushNext[s], fmt::format("full, {} tokens", depth).c_str());
  }
  return true;
}

void FsimBackend::Impl::step(int s) {
  const uint32_t k = queue[s][head[s]++];
  const Insn& i = insns[k];
  if (i.pop_prev_dep) {
    --tokens[kPopPrev[s]];
  }
  if (i.pop_next_dep) {
    --tokens[kPopNext[s]];
  }
  execute(k, i);
  if (i.push_prev_dep) {
    ++tokens[kPushPrev[s]];
  }
  if (i.push_next_dep) {
    ++tokens[kPushNext[s]];
  }
}

void FsimBackend::Impl::deadlock() const {
  bool any_left = false;
  for (int s = kStageLoad; s <= kStageStore; ++s) {
    any_left |= head[s] < queue[s].size();
  }
  if (!any_left) {
    throw ProgramError(fmt::format(
        "fetch unit: no FINISH executed within insn_count = {} instructions", insns.size()));
  }
  std::string msg = "deadlock: no unit can progress and FINISH has not executed:";
  for (int s = kStageLoad; s <= kStageStore; ++s) {
    std::string why;
    can_start(s, &why);
    msg += fmt::format(" {} unit {};", stage_unit_name(static_cast<Stage>(s)), why);
  }
  msg += fmt::format(" tokens l2g={} g2l={} s2g={} g2s={}", tokens[kL2G], tokens[kG2L],
                     tokens[kS2G], tokens[kG2S]);
  throw ProgramError(msg);
}

// ---------------------------------------------------------------------------------------------
// Instructions

void FsimBackend::Impl::execute(uint64_t index, const Insn& i) {
  ++stats.insn_count[i.opcode];
  switch (i.opcode) {
    case kOpLoad:
      exec_load(index, i);
      break;
    case kOpStore:
      exec_store(index, i);
      break;
    case kOpGemm:
      exec_gemm(index, i);
      break;
    case kOpAlu:
      exec_alu(index, i);
      break;
    case kOpFinish:
      finished = true;
      break;
    default:
      break;  // rejected by check_insn_static
  }
}

// Every DRAM row the instruction touches must lie in allocated memory.
void FsimBackend::Impl::check_dram_rows(uint64_t index, const Insn& i, uint64_t e) const {
  for (uint64_t y = 0; y < i.y_size; ++y) {
    const uint64_t phys = (static_cast<uint64_t>(i.dram_base) + y * i.x_stride) * e;
    if (!dram.is_allocated(phys, i.x_size * e)) {
      throw ProgramError(fmt::format(
          "{}: DRAM range [{:#x}, {:#x}) of row {} (dram_base {} + {} * x_stride {}, {} "
          "elements of {} bytes) is outside allocated memory",
          insn_error_prefix(index, i), phys, phys + i.x_size * e, y, i.dram_base, y, i.x_stride,
          i.x_size, e));
    }
  }
}

void FsimBackend::Impl::exec_load(uint64_t index, const Insn& i) {
  if (i.x_size == 0) {
    return;  // NOP: only its dependency flags matter
  }
  const uint32_t type = i.memory_type;
  const uint64_t e = static_cast<uint64_t>(cfg.elem_bytes(static_cast<int>(type)));
  const uint64_t width = static_cast<uint64_t>(i.x_pad_0) + i.x_size + i.x_pad_1;
  const uint64_t height = static_cast<uint64_t>(i.y_pad_0) + i.y_size + i.y_pad_1;
  const uint64_t depth = cfg.buff_depth(static_cast<int>(type));
  if (i.sram_base + width * height > depth) {
    throw ProgramError(fmt::format(
        "{}: field 'sram_base' = {}: the tile of {} x {} elements (incl. padding) ends at {}, "
        "beyond the {} buffer of {} entries",
        insn_error_prefix(index, i), i.sram_base, height, width, i.sram_base + width * height,
        mem_type_name(type == kMemAcc8 ? kMemAcc : type), depth));
  }
  check_dram_rows(index, i, e);

  const uint64_t bytes = static_cast<uint64_t>(i.x_size) * i.y_size;
  switch (type) {
    case kMemUop:
      stats.uop_load_nbytes += bytes * cfg.uop_elem_bytes;
      break;
    case kMemWgt:
      stats.wgt_load_nbytes += bytes * cfg.wgt_elem_bytes;
      break;
    case kMemInp:
      stats.inp_load_nbytes += bytes * cfg.inp_elem_bytes;
      break;
    default:
      stats.acc_load_nbytes += bytes * cfg.acc_elem_bytes;
      break;  // ACC and ACC_8BIT
  }

  // Writes `n` consecutive SRAM tiles from `n` consecutive DRAM elements at `src`, or zeros
  // when src is null (padding). Whole rows at a time so the conversions vectorise.
  const auto write_tiles = [&](uint32_t t, uint64_t n, const uint8_t* src) {
    switch (type) {
      case kMemUop:
        for (uint64_t k = 0; k < n; ++k) {
          uint32_t word = 0;
          if (src != nullptr) {
            std::memcpy(&word, src + k * kUopBytes, sizeof(word));  // little-endian host
          }
          uop[t + k] = codec.decode_uop(word);
        }
        break;
      case kMemInp: {
        int16_t* d = &inp[t * inp_lanes];
        const uint64_t lanes = n * inp_lanes;
        if (src == nullptr) {
          std::fill_n(d, lanes, 0);
        } else {
          const int8_t* s8 = reinterpret_cast<const int8_t*>(src);
          for (uint64_t k = 0; k < lanes; ++k) {
            d[k] = s8[k];
          }
        }
        break;
      }
      case kMemWgt:
        if (src == nullptr) {
          std::fill_n(&wgt[t * wgt_lanes], n * wgt_lanes, 0);
          break;
        }
        for (uint64_t k = 0; k < n; ++k) {
          int16_t* d = &wgt[(t + k) * wgt_lanes];
          const int8_t* s8 = reinterpret_cast<const int8_t*>(src + k * e);
          const int bin = cfg.block_in, bout = cfg.block_out;
          for (int j = 0; j < bin / 2; ++j) {
            for (int oc = 0; oc < bout; ++oc) {
              d[j * bout * 2 + oc * 2] = s8[oc * bin + 2 * j];
              d[j * bout * 2 + oc * 2 + 1] = s8[oc * bin + 2 * j + 1];
            }
          }
        }
        break;
      case kMemAcc:
      case kMemAcc8: {
        for (uint64_t k = 0; k < n; ++k) {
          refresh_out(static_cast<uint32_t>(t + k));  // LOAD ACC does not write the out buffer
        }
        int32_t* d = &acc[t * acc_lanes];
        const uint64_t lanes = n * acc_lanes;
        if (src == nullptr) {
          std::fill_n(d, lanes, 0);
        } else if (type == kMemAcc) {
          std::memcpy(d, src, lanes * sizeof(int32_t));  // little-endian host
        } else {
          const int8_t* s8 = reinterpret_cast<const int8_t*>(src);  // ACC_8BIT: sign-extend
          for (uint64_t k = 0; k < lanes; ++k) {
            d[k] = s8[k];
          }
        }
        break;
      }
      default:
        break;
    }
  };

  uint32_t t = i.sram_base;
  for (uint64_t r = 0; r < height; ++r, t += static_cast<uint32_t>(width)) {
    if (r < i.y_pad_0 || r >= i.y_pad_0 + i.y_size) {
      write_tiles(t, width, nullptr);
      continue;
    }
    const uint64_t y = r - i.y_pad_0;
    const uint8_t* row = dram.host_ptr((static_cast<uint64_t>(i.dram_base) + y * i.x_stride) * e);
    write_tiles(t, i.x_pad_0, nullptr);
    write_tiles(t + i.x_pad_0, i.x_size, row);
    write_tiles(t + i.x_pad_0 + i.x_size, i.x_pad_1, nullptr);
  }
}

void FsimBackend::Impl::exec_store(uint64_t index, const Insn& i) {
  if (i.x_size == 0) {
    return;  // NOP
  }
  const uint64_t e = static_cast<uint64_t>(cfg.out_elem_bytes);
  const uint64_t n = static_cast<uint64_t>(i.x_size) * i.y_size;
  if (i.sram_base + n > cfg.out_buff_depth) {
    throw ProgramError(fmt::format(
        "{}: field 'sram_base' = {}: {} x {} elements end at {}, beyond the OUT buffer of {} "
        "entries",
        insn_error_prefix(index, i), i.sram_base, i.y_size, i.x_size, i.sram_base + n,
        cfg.out_buff_depth));
  }
  check_dram_rows(index, i, e);
  stats.out_store_nbytes += n * e;
  uint32_t t = i.sram_base;
  for (uint64_t y = 0; y < i.y_size; ++y) {
    uint8_t* row = dram.host_ptr((static_cast<uint64_t>(i.dram_base) + y * i.x_stride) * e);
    for (uint64_t x = 0; x < i.x_size; ++x, ++t) {
      refresh_out(t);
      std::memcpy(row + x * e, &out[t * acc_lanes], e);
    }
  }
}

void FsimBackend::Impl::check_uop_range(uint64_t index, const Insn& i) const {
  if (i.uop_end > cfg.uop_buff_depth) {
    throw ProgramError(fmt::format("{}: field 'uop_end' = {}: beyond the UOP buffer of {} entries",
                                   insn_error_prefix(index, i), i.uop_end, cfg.uop_buff_depth));
  }
  if (i.uop_bgn > i.uop_end) {
    throw ProgramError(fmt::format("{}: field 'uop_bgn' = {}: greater than uop_end = {}",
                                   insn_error_prefix(index, i), i.uop_bgn, i.uop_end));
  }
}

// The largest index of the loop nest is max(uop field) + (iter_out-1)*f_out + (iter_in-1)*f_in
// (all terms unsigned), so one comparison checks the whole instruction.
void FsimBackend::Impl::check_index(uint64_t index, const Insn& i, const char* what,
                                    const char* buffer, uint32_t depth, uint32_t Uop::*field,
                                    uint32_t factor_out, uint32_t factor_in) const {
  uint32_t worst = i.uop_bgn;
  for (uint32_t u = i.uop_bgn; u < i.uop_end; ++u) {
    if (uop[u].*field > uop[worst].*field) {
      worst = u;
    }
  }
  const uint64_t it_out = i.iter_out - 1, it_in = i.iter_in - 1;
  const uint64_t max_index = uop[worst].*field + it_out * factor_out + it_in * factor_in;
  if (max_index >= depth) {
    throw ProgramError(
        fmt::format("{}: {} index {} (uop {} {}_idx {} + it_out {} * {}_factor_out {} + it_in {} * "
                    "{}_factor_in {}) is beyond the {} buffer of {} entries",
                    insn_error_prefix(index, i), what, max_index, worst, what, uop[worst].*field,
                    it_out, what, factor_out, it_in, what, factor_in, buffer, depth));
  }
}

void FsimBackend::Impl::exec_gemm(uint64_t index, const Insn& i) {
  check_uop_range(index, i);
  if (i.iter_out == 0 || i.iter_in == 0 || i.uop_bgn == i.uop_end) {
    return;
  }
  check_index(index, i, "dst", "ACC", cfg.acc_buff_depth, &Uop::dst_idx, i.dst_factor_out,
              i.dst_factor_in);
  const uint64_t n = static_cast<uint64_t>(i.iter_out) * i.iter_in * (i.uop_end - i.uop_bgn);
  if (i.reset_reg) {
    for (uint32_t io = 0; io < i.iter_out; ++io) {
      for (uint32_t ii = 0; ii < i.iter_in; ++ii) {
        for (uint32_t u = i.uop_bgn; u < i.uop_end; ++u) {
          const uint32_t d = uop[u].dst_idx + io * i.dst_factor_out + ii * i.dst_factor_in;
          std::fill_n(&acc[d * acc_lanes], acc_lanes, 0);
          out_stale[d] = 1;
        }
      }
    }
    return;  // upstream counts no GEMM ops for a reset
  }
  check_index(index, i, "src", "INP", cfg.inp_buff_depth, &Uop::src_idx, i.src_factor_out,
              i.src_factor_in);
  check_index(index, i, "wgt", "WGT", cfg.wgt_buff_depth, &Uop::wgt_idx, i.wgt_factor_out,
              i.wgt_factor_in);
  GemmLoop loop;
  loop.uops = &uop[i.uop_bgn];
  loop.n_uops = i.uop_end - i.uop_bgn;
  loop.iter_out = i.iter_out;
  loop.iter_in = i.iter_in;
  loop.dst_factor_out = i.dst_factor_out;
  loop.dst_factor_in = i.dst_factor_in;
  loop.src_factor_out = i.src_factor_out;
  loop.src_factor_in = i.src_factor_in;
  loop.wgt_factor_out = i.wgt_factor_out;
  loop.wgt_factor_in = i.wgt_factor_in;
  gemm(shape, loop, GemmBuffers{inp.data(), wgt.data(), acc.data(), out_stale.data()});
  stats.gemm_counter += n;
}

namespace {

template <typename Op>
void alu_loop(const Insn& i, const std::vector<Uop>& uop, std::vector<int32_t>& acc,
              std::vector<uint8_t>& out_stale, size_t lanes, Op op) {
  for (uint32_t io = 0; io < i.iter_out; ++io) {
    for (uint32_t ii = 0; ii < i.iter_in; ++ii) {
      for (uint32_t u = i.uop_bgn; u < i.uop_end; ++u) {
        const uint32_t d = uop[u].dst_idx + io * i.dst_factor_out + ii * i.dst_factor_in;
        int32_t* a = &acc[d * lanes];
        if (i.use_imm) {
          for (size_t k = 0; k < lanes; ++k) {
            a[k] = op(a[k], i.imm);
          }
        } else {
          const int32_t* b =
              &acc[(uop[u].src_idx + io * i.src_factor_out + ii * i.src_factor_in) * lanes];
          for (size_t k = 0; k < lanes; ++k) {
            a[k] = op(a[k], b[k]);  // lane by lane, so src == dst reads before it writes
          }
        }
        out_stale[d] = 1;
      }
    }
  }
}

}  // namespace

void FsimBackend::Impl::exec_alu(uint64_t index, const Insn& i) {
  check_uop_range(index, i);
  if (i.iter_out == 0 || i.iter_in == 0 || i.uop_bgn == i.uop_end) {
    return;
  }
  check_index(index, i, "dst", "ACC", cfg.acc_buff_depth, &Uop::dst_idx, i.dst_factor_out,
              i.dst_factor_in);
  if (!i.use_imm) {
    check_index(index, i, "src", "ACC", cfg.acc_buff_depth, &Uop::src_idx, i.src_factor_out,
                i.src_factor_in);
  }
  switch (i.alu_opcode) {
    case kAluMin:
      alu_loop(i, uop, acc, out_stale, acc_lanes,
               [](int32_t a, int32_t b) { return std::min(a, b); });
      break;
    case kAluMax:
      alu_loop(i, uop, acc, out_stale, acc_lanes,
               [](int32_t a, int32_t b) { return std::max(a, b); });
      break;
    case kAluAdd:
      alu_loop(i, uop, acc, out_stale, acc_lanes, [](int32_t a, int32_t b) {
        return static_cast<int32_t>(static_cast<uint32_t>(a) + static_cast<uint32_t>(b));
      });
      break;
    case kAluShr:
      alu_loop(i, uop, acc, out_stale, acc_lanes, alu_shift);
      break;
    case kAluMul:
      alu_loop(i, uop, acc, out_stale, acc_lanes, [](int32_t a, int32_t b) {
        return static_cast<int32_t>(static_cast<uint32_t>(a) * static_cast<uint32_t>(b));
      });
      break;
    default:
      break;  // rejected by check_insn_static
  }
  stats.alu_counter += static_cast<uint64_t>(i.iter_out) * i.iter_in * (i.uop_end - i.uop_bgn);
}

}  // namespace vta
