#include "vta/sim/functional_core.h"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "vta/sim/element_lanes.h"
#include "vta/sim/error.h"
#include "vta/sim/insn_check.h"
#include "vta/sim/run_progress.h"
#include "vta/sim/wide_gemm_kernel.h"

namespace vta {

namespace {

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

// One acc tile of a GEMM reset: at 16 lanes (pynq) a fixed-size clear, not a memset call.
void zero_lanes(int32_t* a, size_t lanes) {
  if (lanes == 16) {
    std::memset(a, 0, 16 * sizeof(int32_t));
    return;
  }
  std::fill_n(a, lanes, 0);
}

// The ALU loop nest (vta-reference.md 3.6) with the lane operation `op` inlined.
template <typename Op>
void alu_loop(const Insn& i, const std::vector<Uop>& uop, ZeroedVector<int32_t>& acc,
              ZeroedVector<uint8_t>& out_stale, size_t lanes, Op op) {
  for (uint32_t io = 0; io < i.iter_out; ++io) {
    for (uint32_t ii = 0; ii < i.iter_in; ++ii) {
      poll_stop(i.uop_end - i.uop_bgn);  // a loop of 2e12 micro-ops can be stopped
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

FunctionalCore::FunctionalCore(const HwConfig& cfg, Dram& dram, Stats& stats)
    : m_cfg(cfg),
      m_dram(&dram),
      m_stats(&stats),
      m_codec(cfg),
      m_shape{cfg.batch, cfg.block_in, cfg.block_out},
      m_inp_lanes(static_cast<size_t>(cfg.batch) * cfg.block_in),
      m_wgt_lanes(static_cast<size_t>(cfg.block_out) * cfg.block_in),
      m_acc_lanes(static_cast<size_t>(cfg.batch) * cfg.block_out),
      m_out_tile_bytes(static_cast<size_t>(cfg.out_elem_bytes)),
      m_wide(cfg.inp_width != 8 || cfg.wgt_width != 8 || cfg.acc_width != 32) {
  allocate_storage();
}

void FunctionalCore::allocate_storage() {
  std::vector<Uop>(m_cfg.uop_buff_depth).swap(m_uop);
  ZeroedVector<int32_t>(m_cfg.acc_buff_depth * m_acc_lanes).swap(m_acc);
  ZeroedVector<uint8_t>(m_cfg.out_buff_depth * m_out_tile_bytes).swap(m_out);
  ZeroedVector<uint8_t>(m_cfg.out_buff_depth).swap(m_out_stale);
  if (m_wide) {  // int32 lanes; zero bytes are zero values
    m_inp_tile_bytes = m_inp_lanes * sizeof(int32_t);
    m_wgt_tile_bytes = m_wgt_lanes * sizeof(int32_t);
    ZeroedVector<uint8_t>(m_cfg.inp_buff_depth * m_inp_tile_bytes).swap(m_inp);
    ZeroedVector<uint8_t>(m_cfg.wgt_buff_depth * m_wgt_tile_bytes).swap(m_wgt);
    m_gemm = nullptr;
    m_gemm_name = "generic";
    return;
  }
  // The SRAMs start in the default kernel's layout, so nothing is re-packed.
  m_layout = gemm_kernel_layout(resolve_gemm_kernel(GemmKernelKind::kAuto, m_shape));
  m_inp_tile_bytes = gemm_inp_tile_bytes(m_layout, m_shape);
  m_wgt_tile_bytes = gemm_wgt_tile_bytes(m_layout, m_shape);
  ZeroedVector<uint8_t>(m_cfg.inp_buff_depth * m_inp_tile_bytes).swap(m_inp);
  ZeroedVector<uint8_t>(m_cfg.wgt_buff_depth * m_wgt_tile_bytes).swap(m_wgt);
  // Zero bytes are zero values in both layouts except the byte layout's weights (w + 128).
  if (m_layout == GemmLayout::kUint8Quads) {
    write_wgt_tiles(0, m_cfg.wgt_buff_depth, nullptr);
  }
  set_gemm_kernel(GemmKernelKind::kAuto);
}

void FunctionalCore::rebind(Dram& dram, Stats& stats) {
  m_dram = &dram;
  m_stats = &stats;
}

void FunctionalCore::set_gemm_kernel(GemmKernelKind kind) {
  if (m_wide) {  // the wide datapath is portable C++ only
    if (kind != GemmKernelKind::kAuto && kind != GemmKernelKind::kGeneric) {
      throw Error(fmt::format(
          "the {} GEMM kernel computes int8 x int8 -> int32 only; this config has int{} inputs, "
          "int{} weights and int{} accumulators (use the generic kernel)",
          gemm_kernel_kind_name(kind), m_cfg.inp_width, m_cfg.wgt_width, m_cfg.acc_width));
    }
    return;
  }
  const GemmKernelKind resolved = resolve_gemm_kernel(kind, m_shape);
  m_gemm = select_gemm_kernel(resolved, m_shape);
  m_gemm_name = gemm_kernel_kind_name(resolved);
  change_layout(gemm_kernel_layout(resolved));
}

void FunctionalCore::change_layout(GemmLayout layout) {
  if (layout == m_layout) {
    return;
  }
  const size_t inp_bytes = gemm_inp_tile_bytes(layout, m_shape);
  const size_t wgt_bytes = gemm_wgt_tile_bytes(layout, m_shape);
  ZeroedVector<uint8_t> inp(m_cfg.inp_buff_depth * inp_bytes),
      wgt(m_cfg.wgt_buff_depth * wgt_bytes);
  std::vector<int8_t> plain(std::max(m_inp_lanes, m_wgt_lanes));
  for (size_t t = 0; t < m_cfg.inp_buff_depth; ++t) {
    unpack_gemm_inp_tile(m_layout, m_shape, &m_inp[t * m_inp_tile_bytes], plain.data());
    pack_gemm_inp_tiles(layout, m_shape, plain.data(), 1, &inp[t * inp_bytes]);
  }
  for (size_t t = 0; t < m_cfg.wgt_buff_depth; ++t) {
    unpack_gemm_wgt_tile(m_layout, m_shape, &m_wgt[t * m_wgt_tile_bytes], plain.data());
    pack_gemm_wgt_tile(layout, m_shape, plain.data(), &wgt[t * wgt_bytes]);
  }
  m_inp.swap(inp);
  m_wgt.swap(wgt);
  m_layout = layout;
  m_inp_tile_bytes = inp_bytes;
  m_wgt_tile_bytes = wgt_bytes;
}

void FunctionalCore::release_storage() {
  std::vector<Uop>().swap(m_uop);
  ZeroedVector<uint8_t>().swap(m_inp);
  ZeroedVector<uint8_t>().swap(m_wgt);
  ZeroedVector<int32_t>().swap(m_acc);
  ZeroedVector<uint8_t>().swap(m_out);
  ZeroedVector<uint8_t>().swap(m_out_stale);
}

uint64_t FunctionalCore::dram_elem_bytes(uint32_t memory_type) const {
  return static_cast<uint64_t>(m_cfg.elem_bytes(static_cast<int>(memory_type)));
}

int32_t FunctionalCore::acc_lane(uint32_t index, uint32_t lane) const {
  if (index >= m_cfg.acc_buff_depth || lane >= m_acc_lanes) {
    throw Error(fmt::format("acc_lane({}, {}) out of range", index, lane));
  }
  return m_acc[index * m_acc_lanes + lane];
}

int32_t FunctionalCore::out_lane(uint32_t index, uint32_t lane) const {
  if (index >= m_cfg.out_buff_depth || lane >= m_acc_lanes) {
    throw Error(fmt::format("out_lane({}, {}) out of range", index, lane));
  }
  if (m_out_stale[index]) {
    return sign_extend_lane(static_cast<uint32_t>(m_acc[index * m_acc_lanes + lane]),
                            m_cfg.out_width);
  }
  std::vector<int32_t> lanes(m_acc_lanes);
  unpack_lanes(&m_out[index * m_out_tile_bytes], m_cfg.out_width, m_acc_lanes, lanes.data());
  return lanes[lane];
}

void FunctionalCore::pack_out_tile(const int32_t* acc, uint8_t* out) const {
  pack_lanes(acc, m_cfg.out_width, m_acc_lanes, out);
}

Uop FunctionalCore::uop_at(uint32_t index) const {
  if (index >= m_cfg.uop_buff_depth) {
    throw Error(fmt::format("uop_at({}) out of range", index));
  }
  return m_uop[index];
}

// ---------------------------------------------------------------------------------------------
// Dynamic checks

// The largest index of the loop nest is max(uop field) + (iter_out-1)*f_out + (iter_in-1)*f_in
// (all terms unsigned), so one comparison checks the whole instruction.
void FunctionalCore::check_index(uint64_t index, const Insn& i, const char* what,
                                 const char* buffer, uint32_t depth, uint32_t Uop::*field,
                                 uint32_t factor_out, uint32_t factor_in) const {
  uint32_t worst = i.uop_bgn;
  for (uint32_t u = i.uop_bgn; u < i.uop_end; ++u) {
    if (m_uop[u].*field > m_uop[worst].*field) {
      worst = u;
    }
  }
  const uint64_t it_out = i.iter_out - 1, it_in = i.iter_in - 1;
  const uint64_t max_index = m_uop[worst].*field + it_out * factor_out + it_in * factor_in;
  if (max_index >= depth) {
    throw ProgramError(
        fmt::format("{}: {} index {} (uop {} {}_idx {} + it_out {} * {}_factor_out {} + it_in {} * "
                    "{}_factor_in {}) is beyond the {} buffer of {} entries",
                    insn_error_prefix(index, i), what, max_index, worst, what, m_uop[worst].*field,
                    it_out, what, factor_out, it_in, what, factor_in, buffer, depth));
  }
}

// ---------------------------------------------------------------------------------------------
// LOAD

void FunctionalCore::count_load(const Insn& i) {
  const uint64_t n = static_cast<uint64_t>(i.x_size) * i.y_size;
  switch (i.memory_type) {
    case kMemUop:
      m_stats->uop_load_nbytes += n * m_cfg.uop_elem_bytes;
      break;
    case kMemWgt:
      m_stats->wgt_load_nbytes += n * m_cfg.wgt_elem_bytes;
      break;
    case kMemInp:
      m_stats->inp_load_nbytes += n * m_cfg.inp_elem_bytes;
      break;
    default:
      m_stats->acc_load_nbytes += n * m_cfg.acc_elem_bytes;
      break;  // ACC and ACC_8BIT
  }
}

// The writers below put `n` consecutive SRAM tiles from `n` consecutive DRAM elements at `src`,
// or zeros when src is null (padding): whole rows at a time so the conversions vectorise.
void FunctionalCore::write_uop_tiles(uint32_t t, uint64_t n, const uint8_t* src) {
  for (uint64_t k = 0; k < n; ++k) {
    uint32_t word = 0;
    if (src != nullptr) {
      std::memcpy(&word, src + k * kUopBytes, sizeof(word));  // little-endian host
    }
    m_uop[t + k] = m_codec.decode_uop(word);
  }
}

void FunctionalCore::write_inp_tiles(uint32_t t, uint64_t n, const uint8_t* src) {
  if (m_wide) {  // consecutive tiles are consecutive lanes in DRAM and SRAM
    unpack_lanes(src, m_cfg.inp_width, n * m_inp_lanes,
                 reinterpret_cast<int32_t*>(&m_inp[t * m_inp_tile_bytes]));
    return;
  }
  pack_gemm_inp_tiles(m_layout, m_shape, reinterpret_cast<const int8_t*>(src), n,
                      &m_inp[t * m_inp_tile_bytes]);
}

void FunctionalCore::write_wgt_tiles(uint32_t t, uint64_t n, const uint8_t* src) {
  if (m_wide) {
    unpack_lanes(src, m_cfg.wgt_width, n * m_wgt_lanes,
                 reinterpret_cast<int32_t*>(&m_wgt[t * m_wgt_tile_bytes]));
    return;
  }
  const uint64_t e = static_cast<uint64_t>(m_cfg.wgt_elem_bytes);
  for (uint64_t k = 0; k < n; ++k) {
    pack_gemm_wgt_tile(m_layout, m_shape,
                       src != nullptr ? reinterpret_cast<const int8_t*>(src + k * e) : nullptr,
                       &m_wgt[(t + k) * m_wgt_tile_bytes]);
  }
}

void FunctionalCore::write_acc_tiles(uint32_t type, uint32_t t, uint64_t n, const uint8_t* src) {
  for (uint64_t k = 0; k < n; ++k) {
    refresh_out(static_cast<uint32_t>(t + k));  // LOAD ACC does not write the out buffer
  }
  int32_t* d = &m_acc[t * m_acc_lanes];
  const uint64_t lanes = n * m_acc_lanes;
  if (src == nullptr) {
    std::fill_n(d, lanes, 0);
  } else if (type == kMemAcc && m_cfg.acc_width == 32) {
    std::memcpy(d, src, lanes * sizeof(int32_t));  // little-endian host
  } else if (type == kMemAcc) {
    unpack_lanes(src, m_cfg.acc_width, lanes, d);  // sign-extended from the acc width
  } else {
    const int8_t* s8 = reinterpret_cast<const int8_t*>(src);  // ACC_8BIT: sign-extend
    for (uint64_t k = 0; k < lanes; ++k) {
      d[k] = s8[k];
    }
  }
}

void FunctionalCore::write_tiles(uint32_t type, uint32_t t, uint64_t n, const uint8_t* src) {
  switch (type) {
    case kMemUop:
      write_uop_tiles(t, n, src);
      break;
    case kMemInp:
      write_inp_tiles(t, n, src);
      break;
    case kMemWgt:
      write_wgt_tiles(t, n, src);
      break;
    case kMemAcc:
    case kMemAcc8:
      write_acc_tiles(type, t, n, src);
      break;
    default:
      break;
  }
}

template <typename RowFn>
void FunctionalCore::write_tile_rows(const Insn& i, RowFn row) {
  const uint64_t width = static_cast<uint64_t>(i.x_pad_0) + i.x_size + i.x_pad_1;
  const uint64_t height = static_cast<uint64_t>(i.y_pad_0) + i.y_size + i.y_pad_1;
  uint32_t t = i.sram_base;
  for (uint64_t r = 0; r < height; ++r, t += static_cast<uint32_t>(width)) {
    if (r < i.y_pad_0 || r >= i.y_pad_0 + i.y_size) {
      write_tiles(i.memory_type, t, width, nullptr);
      continue;
    }
    write_tiles(i.memory_type, t, i.x_pad_0, nullptr);
    write_tiles(i.memory_type, t + i.x_pad_0, i.x_size, row(r - i.y_pad_0));
    write_tiles(i.memory_type, t + i.x_pad_0 + i.x_size, i.x_pad_1, nullptr);
  }
}

void FunctionalCore::start_load(uint64_t index, const Insn& i) {
  check_load_ranges(m_cfg, *m_dram, index, i);
  count_load(i);
}

void FunctionalCore::write_load(const Insn& i, const uint8_t* staged) {
  const uint64_t row_bytes = i.x_size * dram_elem_bytes(i.memory_type);
  write_tile_rows(i, [&](uint64_t y) { return staged + y * row_bytes; });
}

void FunctionalCore::exec_load(uint64_t index, const Insn& i) {
  if (i.x_size == 0) {
    return;  // NOP: only its dependency flags matter
  }
  start_load(index, i);
  const uint64_t e = dram_elem_bytes(i.memory_type);
  write_tile_rows(i, [&](uint64_t y) -> const uint8_t* {
    return m_dram->host_ptr((static_cast<uint64_t>(i.dram_base) + y * i.x_stride) * e);
  });
}

// ---------------------------------------------------------------------------------------------
// STORE

template <typename RowFn>
void FunctionalCore::read_out_rows(const Insn& i, RowFn row) {
  const size_t e = static_cast<size_t>(m_cfg.out_elem_bytes);
  uint32_t t = i.sram_base;
  for (uint64_t y = 0; y < i.y_size; ++y) {
    uint8_t* dst = row(y);
    if (e == 16) {  // BATCH x BLOCK_OUT = 16 (pynq): a fixed-size copy, no library call
      for (uint64_t x = 0; x < i.x_size; ++x, ++t) {
        refresh_out(t);
        std::memcpy(dst + x * 16, &m_out[t * 16], 16);
      }
      continue;
    }
    for (uint64_t x = 0; x < i.x_size; ++x, ++t) {
      refresh_out(t);
      std::memcpy(dst + x * e, &m_out[t * e], e);
    }
  }
}

void FunctionalCore::start_store(uint64_t index, const Insn& i) {
  check_store_ranges(m_cfg, *m_dram, index, i);
  m_stats->out_store_nbytes +=
      static_cast<uint64_t>(i.x_size) * i.y_size * static_cast<uint64_t>(m_cfg.out_elem_bytes);
}

void FunctionalCore::read_store(const Insn& i, uint8_t* staged) {
  const uint64_t row_bytes = i.x_size * static_cast<uint64_t>(m_cfg.out_elem_bytes);
  read_out_rows(i, [&](uint64_t y) { return staged + y * row_bytes; });
}

void FunctionalCore::exec_store(uint64_t index, const Insn& i) {
  if (i.x_size == 0) {
    return;  // NOP
  }
  start_store(index, i);
  const uint64_t e = static_cast<uint64_t>(m_cfg.out_elem_bytes);
  read_out_rows(i, [&](uint64_t y) {
    return m_dram->host_ptr((static_cast<uint64_t>(i.dram_base) + y * i.x_stride) * e);
  });
}

// ---------------------------------------------------------------------------------------------
// GEMM and ALU

bool FunctionalCore::check_loop_insn(uint64_t index, const Insn& i) const {
  check_uop_range(m_cfg, index, i);
  if (i.iter_out == 0 || i.iter_in == 0 || i.uop_bgn == i.uop_end) {
    return false;
  }
  check_index(index, i, "dst", "ACC", m_cfg.acc_buff_depth, &Uop::dst_idx, i.dst_factor_out,
              i.dst_factor_in);
  return true;
}

void FunctionalCore::exec_gemm(uint64_t index, const Insn& i) {
  if (!check_loop_insn(index, i)) {
    return;
  }
  const uint64_t n = static_cast<uint64_t>(i.iter_out) * i.iter_in * (i.uop_end - i.uop_bgn);
  if (i.reset_reg) {
    for (uint32_t io = 0; io < i.iter_out; ++io) {
      for (uint32_t ii = 0; ii < i.iter_in; ++ii) {
        poll_stop(i.uop_end - i.uop_bgn);
        for (uint32_t u = i.uop_bgn; u < i.uop_end; ++u) {
          const uint32_t d = m_uop[u].dst_idx + io * i.dst_factor_out + ii * i.dst_factor_in;
          zero_lanes(&m_acc[d * m_acc_lanes], m_acc_lanes);
          m_out_stale[d] = 1;
        }
      }
    }
    return;  // upstream counts no GEMM ops for a reset
  }
  check_index(index, i, "src", "INP", m_cfg.inp_buff_depth, &Uop::src_idx, i.src_factor_out,
              i.src_factor_in);
  check_index(index, i, "wgt", "WGT", m_cfg.wgt_buff_depth, &Uop::wgt_idx, i.wgt_factor_out,
              i.wgt_factor_in);
  GemmLoop loop;
  loop.uops = &m_uop[i.uop_bgn];
  loop.n_uops = i.uop_end - i.uop_bgn;
  loop.iter_out = i.iter_out;
  loop.iter_in = i.iter_in;
  loop.dst_factor_out = i.dst_factor_out;
  loop.dst_factor_in = i.dst_factor_in;
  loop.src_factor_out = i.src_factor_out;
  loop.src_factor_in = i.src_factor_in;
  loop.wgt_factor_out = i.wgt_factor_out;
  loop.wgt_factor_in = i.wgt_factor_in;
  if (m_wide) {
    wide_gemm(m_shape, loop,
              WideGemmBuffers{reinterpret_cast<const int32_t*>(m_inp.data()),
                              reinterpret_cast<const int32_t*>(m_wgt.data()), m_acc.data(),
                              m_out_stale.data(), m_cfg.acc_width});
  } else {
    m_gemm(m_shape, loop,
           GemmBuffers{m_inp.data(), m_wgt.data(), m_acc.data(), m_out_stale.data()});
  }
  m_stats->gemm_counter += n;
}

// Upstream's functional model computes each lane in 32-bit ints and stores the low acc-width
// bits, so a narrower accumulator wraps after every operation.
template <typename Op>
void FunctionalCore::run_alu(const Insn& i, Op op) {
  const int bits = m_cfg.acc_width;
  if (bits == 32) {
    alu_loop(i, m_uop, m_acc, m_out_stale, m_acc_lanes, op);
    return;
  }
  alu_loop(i, m_uop, m_acc, m_out_stale, m_acc_lanes, [op, bits](int32_t a, int32_t b) {
    return sign_extend_lane(static_cast<uint32_t>(op(a, b)), bits);
  });
}

void FunctionalCore::exec_alu(uint64_t index, const Insn& i) {
  if (!check_loop_insn(index, i)) {
    return;
  }
  if (!i.use_imm) {
    check_index(index, i, "src", "ACC", m_cfg.acc_buff_depth, &Uop::src_idx, i.src_factor_out,
                i.src_factor_in);
  }
  switch (i.alu_opcode) {
    case kAluMin:
      run_alu(i, [](int32_t a, int32_t b) { return std::min(a, b); });
      break;
    case kAluMax:
      run_alu(i, [](int32_t a, int32_t b) { return std::max(a, b); });
      break;
    case kAluAdd:
      run_alu(i, [](int32_t a, int32_t b) {
        return static_cast<int32_t>(static_cast<uint32_t>(a) + static_cast<uint32_t>(b));
      });
      break;
    case kAluShr:
      run_alu(i, alu_shift);
      break;
    case kAluMul:
      run_alu(i, [](int32_t a, int32_t b) {
        return static_cast<int32_t>(static_cast<uint32_t>(a) * static_cast<uint32_t>(b));
      });
      break;
    default:
      break;  // rejected by check_insn_static
  }
  m_stats->alu_counter += static_cast<uint64_t>(i.iter_out) * i.iter_in * (i.uop_end - i.uop_bgn);
}

}  // namespace vta
