#include "isa_programs.h"

#include <algorithm>
#include <cstring>
#include <deque>
#include <random>

#include <fmt/format.h>
#include <catch2/catch.hpp>

#include "lane_reference.h"
#include "program_builder.h"
#include "test_paths.h"
#include "vta/sim/config_source.h"
#include "vta/sim/error.h"

namespace vta::testprog {

namespace {

// ---------------------------------------------------------------------------------------------
// The plain reference of the datapath at the config's widths is lane_reference.h (written from
// vta-reference.md 3.5/3.6, DESIGN.md 4 and docs/element_widths.md). Host-side data are lanes:
// int32_t values packed into DRAM at the config's width.

size_t acc_lanes(const HwConfig& c) {
  return tile_lanes(c, kMemAcc);
}

// Lanes of `tiles` tiles of a memory type at the start of buffer `b`.
std::vector<int32_t> buffer_lanes(const HwConfig& c, uint32_t type, const DeviceBuffer& b,
                                  size_t tiles) {
  return read_lanes(c, type, b.host, tiles * tile_lanes(c, type));
}

// Fills buffer `b` with `lanes` packed at the width of `type`; returns them.
std::vector<int32_t> put_lanes(const HwConfig& c, uint32_t type, const DeviceBuffer& b,
                               std::vector<int32_t> lanes) {
  write_lanes(c, type, b.host, lanes);
  return lanes;
}

// `tiles` tiles of random lanes in [lo, hi) (narrowed to the lane range) written to `b`.
std::vector<int32_t> random_tiles(const HwConfig& c, uint32_t type, const DeviceBuffer& b,
                                  size_t tiles, int64_t lo, int64_t hi, std::mt19937& rng) {
  return put_lanes(c, type, b,
                   random_lanes(tiles * tile_lanes(c, type), lane_bits(c, type), lo, hi, rng));
}

// Every bit pattern: random bytes, read back as lanes.
std::vector<int32_t> random_bits(const HwConfig& c, uint32_t type, const DeviceBuffer& b,
                                 size_t tiles, std::mt19937& rng) {
  fill_random_i8(reinterpret_cast<int8_t*>(b.host), b.bytes, -128, 128, rng);
  return buffer_lanes(c, type, b, tiles);
}

// What STORE writes for accumulator lanes `acc`.
std::vector<int32_t> stored(const HwConfig& c, const std::vector<int32_t>& acc) {
  std::vector<int32_t> out(acc.size());
  for (size_t k = 0; k < acc.size(); ++k) {
    out[k] = ref_store_lane(c, acc[k]);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Checking helpers

// Clears stats, runs, and compares the counters with the upstream rules.
std::string run_checked(ProgramBuilder& pb, Backend& be) {
  be.clear_stats();
  pb.run(be);
  const std::string d = compare_counters(expected_counters(pb.cfg(), pb.insns()), be.stats());
  return d.empty() ? "" : "counters differ: " + d;
}

// First differing out lane of `expected` and the out tiles at `actual`.
std::string compare_out(const HwConfig& c, const std::vector<int32_t>& expected,
                        const uint8_t* actual, const std::string& what) {
  const std::vector<int32_t> got = read_lanes(c, kMemOut, actual, expected.size());
  const size_t lanes = tile_lanes(c, kMemOut);
  for (size_t k = 0; k < expected.size(); ++k) {
    if (expected[k] != got[k]) {
      return fmt::format("{}: tile {} lane {} expected {} got {}", what, k / lanes, k % lanes,
                         expected[k], got[k]);
    }
  }
  return "";
}

// Runs with counter checks, then compares the out lanes in `out` with `expect`.
std::string run_and_compare(ProgramBuilder& pb, Backend& be, const std::vector<int32_t>& expect,
                            const DeviceBuffer& out) {
  std::string r = run_checked(pb, be);
  if (r.empty()) {
    r = compare_out(pb.cfg(), expect, out.host, "out");
  }
  return r;
}

std::string with_seed(const std::string& r, uint32_t seed) {
  return r.empty() ? r : fmt::format("{} (seed {})", r, seed);
}

const char* alu_lower(uint32_t op) {
  switch (op) {
    case kAluMin:
      return "min";
    case kAluMax:
      return "max";
    case kAluAdd:
      return "add";
    case kAluShr:
      return "shr";
    default:
      return "mul";
  }
}

// True if `dsts` (one per uop execution, in order) never repeats an index within distance 2:
// the runtime's VerifyDep rule that the hardware pipelines rely on.
bool hazard_free(const std::vector<uint32_t>& dsts, const std::vector<uint32_t>& srcs) {
  for (size_t k = 0; k < dsts.size(); ++k) {
    for (size_t d = 1; d <= 2 && d <= k; ++d) {
      if (dsts[k] == dsts[k - d] || (!srcs.empty() && srcs[k] == dsts[k - d])) {
        return false;
      }
    }
  }
  return true;
}

// ---------------------------------------------------------------------------------------------
// Padded loads: every combination of the four pads, read back through GEMM/ALU and STORE.

struct PadCombo {
  uint32_t y0, y1, x0, x1;
  std::string str() const { return fmt::format("pads y=({},{}) x=({},{})", y0, y1, x0, x1); }
};

PadCombo pad_combo(int mask) {
  return PadCombo{mask & 1 ? 1u : 0u, mask & 2 ? 2u : 0u, mask & 4 ? 2u : 0u, mask & 8 ? 1u : 0u};
}

constexpr uint32_t kPadYs = 2, kPadXs = 3, kPadStride = 4;

// One padded-load program: the padded LOAD over a dirty buffer, then the compute that makes its
// tiles observable through STORE.
struct PadProgram {
  const HwConfig& cfg;
  ProgramBuilder& pb;
  Insn dirty, padded;
  uint32_t t_count;
  // Lanes of SRAM tile t after the padded load (zeros for a padding tile).
  std::function<std::vector<int32_t>(uint32_t)> tile;
};

// The value 1 as a lane of `bits` bits (-1 for 1-bit lanes).
int32_t unit_lane(int bits) {
  return wrap_lane(1, bits);
}

// INP: acc = inp x identity (BLOCK_IN = BLOCK_OUT), so out = inp (times the weight's 1).
std::vector<int32_t> push_pad_inp(PadProgram& p) {
  const HwConfig& cfg = p.cfg;
  const int32_t one = unit_lane(cfg.wgt_width);
  DeviceBuffer ident = p.pb.alloc(cfg.wgt_elem_bytes);
  for (int oc = 0; oc < cfg.block_out; ++oc) {
    write_lane(ident.host, cfg.wgt_width, oc * cfg.block_in + oc, one);
  }
  DeviceBuffer uops = p.pb.alloc_uops({Uop{0, 0, 0}});
  p.pb.push(p.dirty);
  p.pb.push(p.padded);
  p.pb.push(make_load_1d(kMemWgt, 0, ident.elem(cfg, kMemWgt), 1, Deps{0, 0, 0, 1}));
  p.pb.push(make_load_1d(kMemUop, 0, uops.phys / 4, 1));
  UopLoop l;
  l.iter_in = p.t_count;
  l.dst_factor_in = 1;
  p.pb.push(make_gemm(l, true));
  l.src_factor_in = 1;
  p.pb.push(make_gemm(l, false, Deps{1, 0, 0, 1}));
  std::vector<int32_t> expect;
  for (uint32_t t = 0; t < p.t_count; ++t) {
    for (int32_t v : p.tile(t)) {
      expect.push_back(ref_store_lane(cfg, wrap_lane(int64_t{v} * one, cfg.acc_width)));
    }
  }
  return expect;
}

// WGT: one-hot inputs e_k read column k of every weight tile: out (t, k) = wgt_t[:, k].
std::vector<int32_t> push_pad_wgt(PadProgram& p) {
  const HwConfig& cfg = p.cfg;
  const uint32_t bin = cfg.block_in;
  const int32_t one = unit_lane(cfg.inp_width);
  DeviceBuffer onehot = p.pb.alloc(bin * cfg.inp_elem_bytes);
  std::vector<Uop> kernel;
  for (uint32_t k = 0; k < bin; ++k) {
    for (int b = 0; b < cfg.batch; ++b) {
      write_lane(onehot.host + k * cfg.inp_elem_bytes, cfg.inp_width, b * bin + k, one);
    }
    kernel.push_back(Uop{k, k, 0});
  }
  DeviceBuffer uops = p.pb.alloc_uops(kernel);
  p.pb.push(make_load_1d(kMemInp, 0, onehot.elem(cfg, kMemInp), bin));
  p.pb.push(p.dirty);
  Insn last = p.padded;
  last.push_next_dep = true;
  p.pb.push(last);
  p.pb.push(make_load_1d(kMemUop, 0, uops.phys / 4, bin));
  UopLoop l;
  l.uop_end = bin;
  l.iter_in = p.t_count;
  l.dst_factor_in = bin;
  p.pb.push(make_gemm(l, true));
  l.wgt_factor_in = 1;
  p.pb.push(make_gemm(l, false, Deps{1, 0, 0, 1}));
  std::vector<int32_t> expect;
  for (uint32_t t = 0; t < p.t_count; ++t) {
    const std::vector<int32_t> w = p.tile(t);
    for (uint32_t k = 0; k < bin; ++k) {
      for (int b = 0; b < cfg.batch; ++b) {
        for (int oc = 0; oc < cfg.block_out; ++oc) {
          const int64_t v = int64_t{w[oc * bin + k]} * one;
          expect.push_back(ref_store_lane(cfg, wrap_lane(v, cfg.acc_width)));
        }
      }
    }
  }
  return expect;
}

// ACC / ACC_8BIT: copy (ACC: >> 0) or shift right (ACC_8BIT) far enough that the out lane shows
// bits above the int8 sign bit, i.e. the sign extension.
std::vector<int32_t> push_pad_acc(PadProgram& p, uint32_t type) {
  const HwConfig& cfg = p.cfg;
  const int32_t shift = type == kMemAcc ? 0 : std::max(1, 9 - cfg.out_width);
  DeviceBuffer uops = p.pb.alloc_uops({Uop{0, 0, 0}});
  p.pb.push(make_load_1d(kMemUop, 0, uops.phys / 4, 1));
  p.pb.push(p.dirty);
  p.pb.push(p.padded);
  UopLoop l;
  l.iter_in = p.t_count;
  l.dst_factor_in = 1;
  l.src_factor_in = 1;
  p.pb.push(make_alu(kAluShr, l, true, shift, Deps{0, 0, 0, 1}));
  std::vector<int32_t> expect;
  for (uint32_t t = 0; t < p.t_count; ++t) {
    for (int32_t v : p.tile(t)) {
      expect.push_back(ref_store_lane(cfg, ref_alu_lane(cfg, kAluShr, v, shift)));
    }
  }
  return expect;
}

// One pad combination of a padded load of `type`, read back through STORE.
std::string run_pad_combo(const HwConfig& cfg, uint32_t type, const PadCombo& c, Backend& be,
                          std::mt19937& rng) {
  const uint32_t w = c.x0 + kPadXs + c.x1, h = c.y0 + kPadYs + c.y1, t_count = w * h;
  ProgramBuilder pb(cfg, be.dram());
  const uint32_t garbage_type = type == kMemAcc8 ? kMemAcc : type;
  const size_t e = cfg.elem_bytes(static_cast<int>(type));
  DeviceBuffer src = pb.alloc(kPadYs * kPadStride * e);
  DeviceBuffer garbage = pb.alloc(t_count * cfg.elem_bytes(static_cast<int>(garbage_type)));
  fill_random_i8(reinterpret_cast<int8_t*>(src.host), src.bytes, -128, 128, rng);
  fill_random_i8(reinterpret_cast<int8_t*>(garbage.host), garbage.bytes, 1, 100, rng);
  PadProgram p{cfg,
               pb,
               make_load_1d(garbage_type, 0, garbage.elem(cfg, garbage_type), t_count),
               make_load_store(kOpLoad, type, 0, src.elem(cfg, type), kPadYs, kPadXs, kPadStride,
                               {}, c.y0, c.y1, c.x0, c.x1),
               t_count,
               nullptr};
  p.tile = [&](uint32_t t) {
    const uint32_t r = t / w, col = t % w;
    const size_t n = tile_lanes(cfg, type);
    if (r < c.y0 || r >= c.y0 + kPadYs || col < c.x0 || col >= c.x0 + kPadXs) {
      return std::vector<int32_t>(n, 0);
    }
    return read_lanes(cfg, type, src.host + ((r - c.y0) * kPadStride + (col - c.x0)) * e, n);
  };
  const std::vector<int32_t> expect = type == kMemInp   ? push_pad_inp(p)
                                      : type == kMemWgt ? push_pad_wgt(p)
                                                        : push_pad_acc(p, type);
  const uint32_t out_tiles = type == kMemWgt ? t_count * cfg.block_in : t_count;
  DeviceBuffer out = pb.alloc(out_tiles * cfg.out_elem_bytes);
  pb.push(make_store_1d(0, out.elem(cfg, kMemOut), out_tiles, Deps{1, 0, 1, 0}));
  pb.push(make_finish(false, true));
  return run_and_compare(pb, be, expect, out);
}

IsaTestCase load_pad_case(const HwConfig& cfg, uint32_t type) {
  const std::string name = std::string("load_pad_") + (type == kMemInp   ? "inp"
                                                       : type == kMemWgt ? "wgt"
                                                       : type == kMemAcc ? "acc"
                                                                         : "acc8");
  return {name, [cfg, type](Backend& be) -> std::string {
            const uint32_t seed = 100 + type;
            std::mt19937 rng(seed);
            for (int mask = 0; mask < 16; ++mask) {
              const PadCombo p = pad_combo(mask);
              const std::string r = run_pad_combo(cfg, type, p, be, rng);
              if (!r.empty()) {
                return with_seed(p.str() + ": " + r, seed);
              }
            }
            return "";
          }};
}

// ---------------------------------------------------------------------------------------------
// Store narrowing with 2D strides on both sides; gaps of the destination stay untouched.

IsaTestCase store_narrowing_case(const HwConfig& cfg) {
  return {"store_narrowing_2d", [cfg](Backend& be) -> std::string {
            const uint32_t seed = 7;
            std::mt19937 rng(seed);
            const uint32_t rows = 3, cols = 5, src_stride = 7, dst_stride = 6;
            const size_t lanes = acc_lanes(cfg);
            ProgramBuilder pb(cfg, be.dram());
            DeviceBuffer src = pb.alloc(rows * src_stride * cfg.acc_elem_bytes);
            DeviceBuffer out = pb.alloc(rows * dst_stride * cfg.out_elem_bytes);
            const std::vector<int32_t> sv = random_bits(cfg, kMemAcc, src, rows * src_stride, rng);
            std::memset(out.host, 0x5A, out.bytes);
            // the gaps keep their 0x5A bytes
            std::vector<int32_t> expect = buffer_lanes(cfg, kMemOut, out, rows * dst_stride);
            DeviceBuffer uops = pb.alloc_uops({Uop{0, 0, 0}});
            pb.push(make_load_1d(kMemUop, 0, uops.phys / 4, 1));
            pb.push(make_load_store(kOpLoad, kMemAcc, 0, src.elem(cfg, kMemAcc), rows, cols,
                                    src_stride));
            UopLoop l;
            l.iter_in = rows * cols;
            l.dst_factor_in = 1;
            l.src_factor_in = 1;
            pb.push(make_alu(kAluShr, l, true, 0, Deps{0, 0, 0, 1}));
            pb.push(make_load_store(kOpStore, kMemOut, 0, out.elem(cfg, kMemOut), rows, cols,
                                    dst_stride, Deps{1, 0, 1, 0}));
            pb.push(make_finish(false, true));
            for (uint32_t y = 0; y < rows; ++y) {
              for (uint32_t x = 0; x < cols; ++x) {
                for (size_t k = 0; k < lanes; ++k) {
                  expect[(y * dst_stride + x) * lanes + k] =
                      ref_store_lane(cfg, sv[(y * src_stride + x) * lanes + k]);
                }
              }
            }
            return with_seed(run_and_compare(pb, be, expect, out), seed);
          }};
}

// ---------------------------------------------------------------------------------------------
// DESIGN.md 4: STORE reads the out buffer, written by GEMM and ALU (reset writes 0), not LOAD ACC.

IsaTestCase out_buffer_rule_case(const HwConfig& cfg) {
  return {"out_buffer_rule", [cfg](Backend& be) -> std::string {
            const uint32_t seed = 11;
            std::mt19937 rng(seed);
            const uint32_t n = 4;
            const size_t lanes = acc_lanes(cfg);
            ProgramBuilder pb(cfg, be.dram());
            DeviceBuffer a = pb.alloc(n * cfg.acc_elem_bytes), b = pb.alloc(n * cfg.acc_elem_bytes);
            DeviceBuffer out1 = pb.alloc(n * cfg.out_elem_bytes);
            DeviceBuffer out2 = pb.alloc(n * cfg.out_elem_bytes);
            const std::vector<int32_t> av = random_tiles(cfg, kMemAcc, a, n, -100000, 100000, rng);
            const std::vector<int32_t> bv = random_tiles(cfg, kMemAcc, b, n, -100000, 100000, rng);
            // uop 0 addresses tile 0 (and loops from it), uop 1 addresses tile 3.
            DeviceBuffer uops = pb.alloc_uops({Uop{0, 0, 0}, Uop{3, 3, 0}});
            UopLoop all;
            all.iter_in = n;
            all.dst_factor_in = 1;
            all.src_factor_in = 1;
            UopLoop first2 = all;
            first2.iter_in = 2;
            UopLoop tile0;
            UopLoop tile3;
            tile3.uop_bgn = 1;
            tile3.uop_end = 2;
            pb.push(make_load_1d(kMemUop, 0, uops.phys / 4, 2));
            pb.push(make_load_1d(kMemAcc, 0, a.elem(cfg, kMemAcc), n));
            pb.push(make_alu(kAluAdd, all, true, 1));                    // acc = out = A + 1
            pb.push(make_load_1d(kMemAcc, 0, b.elem(cfg, kMemAcc), n));  // acc = B, out kept
            pb.push(make_gemm(first2, true, Deps{0, 0, 0, 1}));  // tiles 0, 1: acc = out = 0
            pb.push(make_store_1d(0, out1.elem(cfg, kMemOut), n, Deps{1, 0, 1, 0}));
            pb.push(make_alu(kAluAdd, tile0, true, 5, Deps{0, 1, 0, 0}));  // tile 0: 0 + 5
            pb.push(make_alu(kAluShr, tile3, true, 0, Deps{0, 0, 0, 1}));  // tile 3: B >> 0
            pb.push(make_store_1d(0, out2.elem(cfg, kMemOut), n, Deps{1, 0, 1, 0}));
            pb.push(make_finish(false, true));
            std::vector<int32_t> e1(n * lanes), e2(n * lanes);
            for (uint32_t t = 0; t < n; ++t) {
              for (size_t k = 0; k < lanes; ++k) {
                const size_t i = t * lanes + k;
                const int32_t a1 = ref_alu_lane(cfg, kAluAdd, av[i], 1);
                e1[i] = t < 2 ? 0 : a1;
                e2[i] = t == 0 ? 5 : t == 1 ? 0 : t == 2 ? a1 : bv[i];
              }
            }
            std::string r = run_checked(pb, be);
            if (r.empty()) {
              r = compare_out(cfg, stored(cfg, e1), out1.host, "first store");
            }
            if (r.empty()) {
              r = compare_out(cfg, stored(cfg, e2), out2.host, "second store");
            }
            return with_seed(r, seed);
          }};
}

// ---------------------------------------------------------------------------------------------
// Upstream alu_test(opcode, use_imm, rows, vector of 128 lanes, uop compression).

IsaTestCase alu_test_case(const HwConfig& cfg, uint32_t op, bool use_imm, bool compressed) {
  const std::string name = fmt::format("alu_{}_{}_{}", alu_lower(op), use_imm ? "imm" : "vec",
                                       compressed ? "comp" : "uncomp");
  return {name, [cfg, op, use_imm, compressed](Backend& be) -> std::string {
            const uint32_t seed = 1000 + op * 4 + use_imm * 2 + compressed;
            std::mt19937 rng(seed);
            const uint32_t rows = 4, tx = std::max(1, 128 / cfg.block_out);
            const size_t lanes = acc_lanes(cfg);
            const uint32_t in_tiles = tx * (use_imm ? 1 : 2);
            int32_t a_lo = -64, a_hi = 64, b_lo = -64, b_hi = 64, i_lo = -(1 << 14), i_hi = 1 << 14;
            if (op == kAluAdd) {
              a_lo = b_lo = -32;
              a_hi = b_hi = 32;
            } else if (op == kAluShr) {
              a_lo = -(1 << 20);
              a_hi = 1 << 20;
              b_lo = i_lo = -8;
              b_hi = i_hi = 8;
            } else if (op == kAluMul) {
              a_lo = b_lo = -(1 << 12);
              a_hi = b_hi = 1 << 12;
              i_lo = -(1 << 15);
              i_hi = 1 << 15;
            }
            ProgramBuilder pb(cfg, be.dram());
            DeviceBuffer acc = pb.alloc(rows * in_tiles * cfg.acc_elem_bytes);
            DeviceBuffer out = pb.alloc(rows * tx * cfg.out_elem_bytes);
            // Lanes narrowed to the accumulator's range; the immediate is a 16-bit field.
            std::vector<int32_t> av(rows * in_tiles * lanes, 0);
            for (uint32_t r = 0; r < rows; ++r) {
              const auto put = [&](size_t at, int32_t lo, int32_t hi) {
                const std::vector<int32_t> v = random_lanes(tx * lanes, cfg.acc_width, lo, hi, rng);
                std::copy(v.begin(), v.end(), av.begin() + static_cast<std::ptrdiff_t>(at));
              };
              put(r * in_tiles * lanes, a_lo, a_hi);
              if (!use_imm) {
                put((r * in_tiles + tx) * lanes, b_lo, b_hi);
              }
            }
            put_lanes(cfg, kMemAcc, acc, av);
            const int32_t imm = std::uniform_int_distribution<int32_t>(i_lo, i_hi - 1)(rng);
            std::vector<Uop> kernel;
            UopLoop l;
            if (compressed) {
              kernel.push_back(Uop{0, tx, 0});
              l.iter_in = tx;
              l.dst_factor_in = 1;
              l.src_factor_in = 1;
            } else {
              for (uint32_t i = 0; i < tx; ++i) {
                kernel.push_back(Uop{i, tx + i, 0});
              }
              l.uop_end = tx;
            }
            DeviceBuffer uops = pb.alloc_uops(kernel);
            pb.push(make_load_1d(kMemUop, 0, uops.phys / 4, static_cast<uint32_t>(kernel.size())));
            for (uint32_t r = 0; r < rows; ++r) {
              pb.push(make_load_1d(kMemAcc, 0, acc.elem(cfg, kMemAcc) + r * in_tiles, in_tiles,
                                   Deps{0, r > 0, 0, 0}));
              pb.push(make_alu(op, l, use_imm, imm, Deps{0, 0, 0, 1}));
              pb.push(make_store_1d(0, out.elem(cfg, kMemOut) + r * tx, tx, Deps{1, 0, 1, 0}));
            }
            pb.push(make_finish(false, true));
            std::vector<int32_t> expect(rows * tx * lanes);
            for (uint32_t r = 0; r < rows; ++r) {
              for (uint32_t t = 0; t < tx; ++t) {
                for (size_t k = 0; k < lanes; ++k) {
                  const int32_t a = av[(r * in_tiles + t) * lanes + k];
                  const int32_t b = use_imm ? imm : av[(r * in_tiles + tx + t) * lanes + k];
                  expect[(r * tx + t) * lanes + k] =
                      ref_store_lane(cfg, ref_alu_lane(cfg, op, a, b));
                }
              }
            }
            return with_seed(run_and_compare(pb, be, expect, out), seed);
          }};
}

// Shift amounts at and beyond the lane width, from registers and immediates.
IsaTestCase alu_shift_extremes_case(const HwConfig& cfg) {
  return {"alu_shift_extremes", [cfg](Backend& be) -> std::string {
            const int32_t amounts[] = {0,   1,   15,  16,  31,  32,   33,        100,      -1,
                                       -15, -16, -31, -32, -33, -100, INT32_MIN, INT32_MAX};
            const int32_t values[] = {1, -1, 0x12345678, -0x12345678, 255, -129};
            const uint32_t n = std::size(amounts);
            const size_t lanes = acc_lanes(cfg);
            ProgramBuilder pb(cfg, be.dram());
            // Tiles [0, n): values; tiles [n, 2n): amounts (vector operand).
            // (LOAD keeps the low ACC_WIDTH bits of each: at int16, INT32_MAX is -1.)
            DeviceBuffer acc = pb.alloc(2 * n * cfg.acc_elem_bytes);
            std::vector<int32_t> av(2 * n * lanes);
            for (uint32_t t = 0; t < n; ++t) {
              for (size_t k = 0; k < lanes; ++k) {
                av[t * lanes + k] = wrap_lane(values[k % std::size(values)], cfg.acc_width);
                av[(n + t) * lanes + k] = wrap_lane(amounts[t], cfg.acc_width);
              }
            }
            put_lanes(cfg, kMemAcc, acc, av);
            const int32_t imms[] = {31, 32, 40, -31, -32, -40};
            const uint32_t ni = std::size(imms);
            DeviceBuffer out_vec = pb.alloc(n * cfg.out_elem_bytes);
            DeviceBuffer out_imm = pb.alloc(ni * cfg.out_elem_bytes);
            // uop 0: vector shifts of tile t by tile n + t; uop 1 + k: tile k in place.
            std::vector<Uop> kernel{Uop{0, n, 0}};
            for (uint32_t k = 0; k < ni; ++k) {
              kernel.push_back(Uop{k, k, 0});
            }
            DeviceBuffer uops = pb.alloc_uops(kernel);
            pb.push(make_load_1d(kMemUop, 0, uops.phys / 4, 1 + ni));
            pb.push(make_load_1d(kMemAcc, 0, acc.elem(cfg, kMemAcc), 2 * n));
            UopLoop l;
            l.iter_in = n;
            l.dst_factor_in = 1;
            l.src_factor_in = 1;
            pb.push(make_alu(kAluShr, l, false, 0, Deps{0, 0, 0, 1}));
            pb.push(make_store_1d(0, out_vec.elem(cfg, kMemOut), n, Deps{1, 0, 1, 0}));
            // Then each immediate on its own copy of the value tile 0.
            for (uint32_t k = 0; k < ni; ++k) {
              pb.push(make_load_1d(kMemAcc, k, acc.elem(cfg, kMemAcc), 1, Deps{0, k == 0, 0, 0}));
            }
            for (uint32_t k = 0; k < ni; ++k) {
              UopLoop u;
              u.uop_bgn = 1 + k;
              u.uop_end = 2 + k;
              pb.push(make_alu(kAluShr, u, true, imms[k], Deps{0, 0, 0, k + 1 == ni}));
            }
            pb.push(make_store_1d(0, out_imm.elem(cfg, kMemOut), ni, Deps{1, 0, 1, 0}));
            pb.push(make_finish(false, true));
            std::vector<int32_t> ev(n * lanes), ei(ni * lanes);
            for (uint32_t t = 0; t < n; ++t) {
              for (size_t k = 0; k < lanes; ++k) {
                ev[t * lanes + k] =
                    ref_store_lane(cfg, ref_alu_lane(cfg, kAluShr, av[k], av[(n + t) * lanes + k]));
              }
            }
            for (uint32_t t = 0; t < ni; ++t) {
              for (size_t k = 0; k < lanes; ++k) {
                ei[t * lanes + k] = ref_store_lane(cfg, ref_alu_lane(cfg, kAluShr, av[k], imms[t]));
              }
            }
            std::string r = run_checked(pb, be);
            if (r.empty()) {
              r = compare_out(cfg, ev, out_vec.host, "register shifts (tile = amount index)");
            }
            if (r.empty()) {
              r = compare_out(cfg, ei, out_imm.host, "immediate shifts (tile = imm index)");
            }
            return r;
          }};
}

// ---------------------------------------------------------------------------------------------
// Random loop nests (both levels) of ALU and GEMM against a plain C++ loop-nest reference.

struct RandomLoop {
  UopLoop loop;
  std::vector<Uop> uops;
};

// Draws a loop nest whose indices stay below the given depths and that obeys the hazard rule.
RandomLoop draw_loop(std::mt19937& rng, uint32_t acc_n, uint32_t src_n, uint32_t wgt_n, bool alu,
                     bool use_imm) {
  auto u = [&](uint32_t lo, uint32_t hi) {
    return std::uniform_int_distribution<uint32_t>(lo, hi)(rng);
  };
  for (;;) {
    RandomLoop r;
    UopLoop& l = r.loop;
    l.iter_out = u(1, 3);
    l.iter_in = u(1, 4);
    l.dst_factor_out = u(0, 8);
    l.dst_factor_in = u(0, 3);
    l.src_factor_out = u(0, 8);
    l.src_factor_in = u(0, 3);
    l.wgt_factor_out = alu ? 0 : u(0, 4);
    l.wgt_factor_in = alu ? 0 : u(0, 2);
    const uint32_t reach_d =
        (l.iter_out - 1) * l.dst_factor_out + (l.iter_in - 1) * l.dst_factor_in;
    const uint32_t reach_s =
        (l.iter_out - 1) * l.src_factor_out + (l.iter_in - 1) * l.src_factor_in;
    const uint32_t reach_w =
        (l.iter_out - 1) * l.wgt_factor_out + (l.iter_in - 1) * l.wgt_factor_in;
    if (reach_d >= acc_n || reach_s >= src_n || reach_w >= wgt_n) {
      continue;
    }
    const uint32_t n = u(1, 5);
    for (uint32_t k = 0; k < n; ++k) {
      r.uops.push_back(Uop{u(0, acc_n - 1 - reach_d), u(0, src_n - 1 - reach_s),
                           alu ? 0 : u(0, wgt_n - 1 - reach_w)});
    }
    std::vector<uint32_t> dsts, srcs;
    for (uint32_t io = 0; io < l.iter_out; ++io) {
      for (uint32_t ii = 0; ii < l.iter_in; ++ii) {
        for (const Uop& x : r.uops) {
          dsts.push_back(x.dst_idx + io * l.dst_factor_out + ii * l.dst_factor_in);
          srcs.push_back(x.src_idx + io * l.src_factor_out + ii * l.src_factor_in);
        }
      }
    }
    if (!hazard_free(dsts, alu && !use_imm ? srcs : std::vector<uint32_t>{})) {
      continue;
    }
    return r;
  }
}

template <typename Fn>
void for_each_index(const UopLoop& l, const std::vector<Uop>& uops, Fn fn) {
  for (uint32_t io = 0; io < l.iter_out; ++io) {
    for (uint32_t ii = 0; ii < l.iter_in; ++ii) {
      for (const Uop& x : uops) {
        fn(x.dst_idx + io * l.dst_factor_out + ii * l.dst_factor_in,
           x.src_idx + io * l.src_factor_out + ii * l.src_factor_in,
           x.wgt_idx + io * l.wgt_factor_out + ii * l.wgt_factor_in);
      }
    }
  }
}

IsaTestCase gemm_loops_random_case(const HwConfig& cfg, uint32_t seed) {
  return {fmt::format("gemm_loops_random_{}", seed), [cfg, seed](Backend& be) -> std::string {
            std::mt19937 rng(seed);
            const uint32_t n_acc = 48, n_inp = 40, n_wgt = 12;
            const size_t lanes = acc_lanes(cfg);
            ProgramBuilder pb(cfg, be.dram());
            DeviceBuffer inp = pb.alloc(n_inp * cfg.inp_elem_bytes);
            DeviceBuffer wgt = pb.alloc(n_wgt * cfg.wgt_elem_bytes);
            DeviceBuffer acc = pb.alloc(n_acc * cfg.acc_elem_bytes);
            DeviceBuffer out = pb.alloc(n_acc * cfg.out_elem_bytes);
            const std::vector<int32_t> iv = random_bits(cfg, kMemInp, inp, n_inp, rng);
            const std::vector<int32_t> wv = random_bits(cfg, kMemWgt, wgt, n_wgt, rng);
            std::vector<int32_t> ref = random_bits(cfg, kMemAcc, acc, n_acc, rng);
            const size_t il = tile_lanes(cfg, kMemInp), wl = tile_lanes(cfg, kMemWgt);
            std::vector<Uop> all_uops;
            std::vector<Insn> gemms;
            for (int g = 0; g < 5; ++g) {
              const bool reset = g == 2;
              RandomLoop r = draw_loop(rng, n_acc, n_inp, n_wgt, false, false);
              r.loop.uop_bgn = static_cast<uint32_t>(all_uops.size());
              r.loop.uop_end = r.loop.uop_bgn + static_cast<uint32_t>(r.uops.size());
              all_uops.insert(all_uops.end(), r.uops.begin(), r.uops.end());
              gemms.push_back(make_gemm(r.loop, reset));
              for_each_index(r.loop, r.uops, [&](uint32_t d, uint32_t s, uint32_t w) {
                if (reset) {
                  std::fill_n(&ref[d * lanes], lanes, 0);
                } else {
                  ref_gemm_lanes(cfg, &ref[d * lanes], &iv[s * il], &wv[w * wl]);
                }
              });
            }
            pb.push(make_load_1d(kMemInp, 0, inp.elem(cfg, kMemInp), n_inp));
            pb.push(make_load_1d(kMemWgt, 0, wgt.elem(cfg, kMemWgt), n_wgt, Deps{0, 0, 0, 1}));
            pb.push(Insn{});  // LOAD UOP, filled in once the copy uop is appended
            pb.push(make_load_1d(kMemAcc, 0, acc.elem(cfg, kMemAcc), n_acc));
            gemms.front().pop_prev_dep = true;
            // Tiles no GEMM wrote still hold the LOAD ACC data, which STORE does not see: copy
            // every tile with an ALU >> 0 at the end so the whole acc becomes observable.
            for (const Insn& g : gemms) {
              pb.push(g);
            }
            UopLoop copy;
            copy.uop_bgn = static_cast<uint32_t>(all_uops.size());
            copy.uop_end = copy.uop_bgn + 1;
            copy.iter_in = n_acc;
            copy.dst_factor_in = 1;
            copy.src_factor_in = 1;
            all_uops.push_back(Uop{0, 0, 0});
            DeviceBuffer uops_all = pb.alloc_uops(all_uops);
            pb.insns()[2] =
                make_load_1d(kMemUop, 0, uops_all.phys / 4, static_cast<uint32_t>(all_uops.size()));
            pb.push(make_alu(kAluShr, copy, true, 0, Deps{0, 0, 0, 1}));
            pb.push(make_store_1d(0, out.elem(cfg, kMemOut), n_acc, Deps{1, 0, 1, 0}));
            pb.push(make_finish(false, true));
            return with_seed(run_and_compare(pb, be, stored(cfg, ref), out), seed);
          }};
}

IsaTestCase alu_loops_random_case(const HwConfig& cfg, uint32_t seed) {
  return {
      fmt::format("alu_loops_random_{}", seed), [cfg, seed](Backend& be) -> std::string {
        std::mt19937 rng(seed);
        const uint32_t n_acc = 48;
        const size_t lanes = acc_lanes(cfg);
        ProgramBuilder pb(cfg, be.dram());
        DeviceBuffer acc = pb.alloc(n_acc * cfg.acc_elem_bytes);
        DeviceBuffer out = pb.alloc(n_acc * cfg.out_elem_bytes);
        std::vector<int32_t> ref = random_tiles(cfg, kMemAcc, acc, n_acc, -(1 << 20), 1 << 20, rng);
        std::vector<Uop> all_uops;
        std::vector<Insn> alus;
        for (int g = 0; g < 12; ++g) {
          const uint32_t op = g % 5;
          const bool use_imm = (g / 5) % 2 == 1 || g == 11;
          int32_t imm = std::uniform_int_distribution<int32_t>(-40, 40)(rng);
          if (op == kAluMul) {
            imm = std::uniform_int_distribution<int32_t>(-3, 3)(rng);
          }
          RandomLoop r = draw_loop(rng, n_acc, n_acc, 1, true, use_imm);
          r.loop.uop_bgn = static_cast<uint32_t>(all_uops.size());
          r.loop.uop_end = r.loop.uop_bgn + static_cast<uint32_t>(r.uops.size());
          all_uops.insert(all_uops.end(), r.uops.begin(), r.uops.end());
          alus.push_back(make_alu(op, r.loop, use_imm, imm));
          for_each_index(r.loop, r.uops, [&](uint32_t d, uint32_t s, uint32_t) {
            for (size_t k = 0; k < lanes; ++k) {
              const int32_t b = use_imm ? imm : ref[s * lanes + k];
              ref[d * lanes + k] = ref_alu_lane(cfg, op, ref[d * lanes + k], b);
            }
          });
        }
        // Final copy so every tile is observable through the out buffer.
        UopLoop copy;
        copy.uop_bgn = static_cast<uint32_t>(all_uops.size());
        copy.uop_end = copy.uop_bgn + 1;
        copy.iter_in = n_acc;
        copy.dst_factor_in = 1;
        copy.src_factor_in = 1;
        all_uops.push_back(Uop{0, 0, 0});
        DeviceBuffer uops = pb.alloc_uops(all_uops);
        pb.push(make_load_1d(kMemUop, 0, uops.phys / 4, static_cast<uint32_t>(all_uops.size())));
        pb.push(make_load_1d(kMemAcc, 0, acc.elem(cfg, kMemAcc), n_acc));
        for (const Insn& a : alus) {
          pb.push(a);
        }
        pb.push(make_alu(kAluShr, copy, true, 0, Deps{0, 0, 0, 1}));
        pb.push(make_store_1d(0, out.elem(cfg, kMemOut), n_acc, Deps{1, 0, 1, 0}));
        pb.push(make_finish(false, true));
        return with_seed(run_and_compare(pb, be, stored(cfg, ref), out), seed);
      }};
}

// ---------------------------------------------------------------------------------------------
// Upstream gemm_test and blocked_gemm_test.

struct GemmData {
  DeviceBuffer inp, wgt, bias, out;
  std::vector<int32_t> inp_lanes, wgt_lanes, bias_lanes;  // what the buffers hold
};

// out[b][o] = bias[b][o] + runs * sum_j inp[b][j] . wgt[o][j] over tiles, as STORE writes it:
// `runs` GEMMs accumulated onto the same loaded bias, wrapping at the accumulator width.
std::vector<int32_t> ref_blocked_out(const HwConfig& cfg, const GemmData& d, uint32_t bt,
                                     uint32_t it, uint32_t ot, uint32_t runs = 1) {
  const size_t lanes = acc_lanes(cfg), il = tile_lanes(cfg, kMemInp);
  const size_t wl = tile_lanes(cfg, kMemWgt);
  std::vector<int32_t> out(bt * ot * lanes);
  for (uint32_t b = 0; b < bt; ++b) {
    for (uint32_t o = 0; o < ot; ++o) {
      int32_t* acc = &out[(b * ot + o) * lanes];
      std::copy_n(&d.bias_lanes[(b * ot + o) * lanes], lanes, acc);
      for (uint32_t r = 0; r < runs; ++r) {
        for (uint32_t j = 0; j < it; ++j) {
          ref_gemm_lanes(cfg, acc, &d.inp_lanes[(b * it + j) * il],
                         &d.wgt_lanes[(o * it + j) * wl]);
        }
      }
    }
  }
  return stored(cfg, out);
}

// Inputs and weights: every bit pattern; bias in [-2^14, 2^14), which fits an int16 lane.
GemmData alloc_gemm_data(ProgramBuilder& pb, std::mt19937& rng, uint32_t bt, uint32_t it,
                         uint32_t ot) {
  const HwConfig& cfg = pb.cfg();
  GemmData d;
  d.inp = pb.alloc(bt * it * cfg.inp_elem_bytes);
  d.wgt = pb.alloc(ot * it * cfg.wgt_elem_bytes);
  d.bias = pb.alloc(bt * ot * cfg.acc_elem_bytes);
  d.out = pb.alloc(bt * ot * cfg.out_elem_bytes);
  d.inp_lanes = random_bits(cfg, kMemInp, d.inp, bt * it, rng);
  d.wgt_lanes = random_bits(cfg, kMemWgt, d.wgt, ot * it, rng);
  d.bias_lanes = random_tiles(cfg, kMemAcc, d.bias, bt * ot, -(1 << 14), 1 << 14, rng);
  return d;
}

// One uop per (inp tile, wgt tile) pair of a bt x it by ot x it GEMM, reduction outermost.
std::vector<Uop> full_gemm_kernel(uint32_t bt, uint32_t it, uint32_t ot) {
  std::vector<Uop> kernel;
  for (uint32_t j = 0; j < it; ++j) {
    for (uint32_t i = 0; i < bt; ++i) {
      for (uint32_t k = 0; k < ot; ++k) {
        kernel.push_back(Uop{i * ot + k, i * it + j, k * it + j});
      }
    }
  }
  return kernel;
}

// Stores full_gemm_kernel(bt, it, ot) in DRAM and pushes its LOAD UOP; returns the GEMM loop
// that runs it once.
UopLoop push_full_gemm_kernel(ProgramBuilder& pb, uint32_t bt, uint32_t it, uint32_t ot) {
  const std::vector<Uop> kernel = full_gemm_kernel(bt, it, ot);
  UopLoop l;
  l.uop_end = static_cast<uint32_t>(kernel.size());
  const DeviceBuffer uops = pb.alloc_uops(kernel);
  pb.push(make_load_1d(kMemUop, 0, uops.phys / 4, l.uop_end));
  return l;
}

IsaTestCase gemm_test_case(const HwConfig& cfg, bool compressed) {
  return {compressed ? "gemm_test_comp" : "gemm_test_uncomp", [cfg, compressed](Backend& be) {
            const uint32_t seed = 21 + compressed;
            std::mt19937 rng(seed);
            const uint32_t bt = 4, it = std::max(1, 64 / cfg.block_in),
                           ot = std::max(1, 64 / cfg.block_out);
            ProgramBuilder pb(cfg, be.dram());
            const GemmData d = alloc_gemm_data(pb, rng, bt, it, ot);
            std::vector<Uop> kernel;
            UopLoop l;
            if (compressed) {
              for (uint32_t i = 0; i < bt; ++i) {
                kernel.push_back(Uop{i * ot, i * it, 0});
              }
              l.uop_end = bt;
              l.iter_out = it;
              l.src_factor_out = 1;
              l.wgt_factor_out = 1;
              l.iter_in = ot;
              l.dst_factor_in = 1;
              l.wgt_factor_in = it;
            } else {
              kernel = full_gemm_kernel(bt, it, ot);
              l.uop_end = static_cast<uint32_t>(kernel.size());
            }
            DeviceBuffer uops = pb.alloc_uops(kernel);
            pb.push(make_load_1d(kMemUop, 0, uops.phys / 4, static_cast<uint32_t>(kernel.size())));
            pb.push(make_load_1d(kMemAcc, 0, d.bias.elem(cfg, kMemAcc), bt * ot, Deps{0, 0, 1, 0}));
            pb.push(make_load_1d(kMemWgt, 0, d.wgt.elem(cfg, kMemWgt), ot * it, Deps{0, 1, 0, 0}));
            pb.push(make_load_1d(kMemInp, 0, d.inp.elem(cfg, kMemInp), bt * it, Deps{0, 0, 0, 1}));
            pb.push(make_gemm(l, false, Deps{1, 0, 0, 1}));
            pb.push(make_store_1d(0, d.out.elem(cfg, kMemOut), bt * ot, Deps{1, 0, 1, 0}));
            pb.push(make_finish(false, true));
            const std::vector<int32_t> expect = ref_blocked_out(cfg, d, bt, it, ot);
            return with_seed(run_and_compare(pb, be, expect, d.out), seed);
          }};
}

// Blocked GEMM with `vt` virtual threads: output blocks alternate between vt acc slots and
// loads between vt inp/wgt slots, synchronised by the token protocol (load runs ahead by up to
// vt steps; compute reuses an acc slot only after the store of the block that used it).
IsaTestCase blocked_gemm_case(const HwConfig& cfg, uint32_t vt, bool compressed) {
  const std::string name = fmt::format("blocked_gemm_vt{}_{}", vt, compressed ? "comp" : "uncomp");
  return {
      name, [cfg, vt, compressed](Backend& be) {
        const uint32_t seed = 31 + vt * 2 + compressed;
        std::mt19937 rng(seed);
        const uint32_t B = 4, I = 8, O = 8, bb = 2, ib = 4, ob = 4;
        const uint32_t nb = B / bb, no = O / ob, nm = I / ib, n_blocks = nb * no;
        ProgramBuilder pb(cfg, be.dram());
        const GemmData d = alloc_gemm_data(pb, rng, B, I, O);
        // Uop kernels per (load slot s, acc slot t).
        const auto inp_slot = [&](uint32_t s) { return s * bb * ib; };
        const auto wgt_slot = [&](uint32_t s) { return s * ob * ib; };
        const auto acc_slot = [&](uint32_t t) { return t * bb * ob; };
        std::vector<Uop> uops;
        std::vector<UopLoop> kernels(vt * vt);
        for (uint32_t s = 0; s < vt; ++s) {
          for (uint32_t t = 0; t < vt; ++t) {
            UopLoop& l = kernels[s * vt + t];
            l.uop_bgn = static_cast<uint32_t>(uops.size());
            if (compressed) {
              for (uint32_t i = 0; i < bb; ++i) {
                uops.push_back(Uop{acc_slot(t) + i * ob, inp_slot(s) + i * ib, wgt_slot(s)});
              }
              l.iter_out = ib;
              l.src_factor_out = 1;
              l.wgt_factor_out = 1;
              l.iter_in = ob;
              l.dst_factor_in = 1;
              l.wgt_factor_in = ib;
            } else {
              for (uint32_t j = 0; j < ib; ++j) {
                for (uint32_t i = 0; i < bb; ++i) {
                  for (uint32_t k = 0; k < ob; ++k) {
                    uops.push_back(Uop{acc_slot(t) + i * ob + k, inp_slot(s) + i * ib + j,
                                       wgt_slot(s) + k * ib + j});
                  }
                }
              }
            }
            l.uop_end = static_cast<uint32_t>(uops.size());
          }
        }
        DeviceBuffer ub = pb.alloc_uops(uops);
        pb.push(make_load_1d(kMemUop, 0, ub.phys / 4, static_cast<uint32_t>(uops.size())));
        // Steps in order: blocks in groups of vt, their in-blocks interleaved.
        struct Step {
          uint32_t block, m;
        };
        std::vector<Step> steps;
        for (uint32_t g = 0; g < n_blocks; g += vt) {
          for (uint32_t m = 0; m < nm; ++m) {
            for (uint32_t n = g; n < std::min(n_blocks, g + vt); ++n) {
              steps.push_back({n, m});
            }
          }
        }
        const uint32_t n_steps = static_cast<uint32_t>(steps.size());
        for (uint32_t l = 0; l < n_steps; ++l) {
          const uint32_t n = steps[l].block, m = steps[l].m, t = n % vt, s = l % vt;
          const uint32_t bi = n / no, oi = n % no;
          if (m == 0) {
            pb.push(make_load_store(kOpLoad, kMemAcc, acc_slot(t),
                                    d.bias.elem(cfg, kMemAcc) + bi * bb * O + oi * ob, bb, ob, O,
                                    Deps{0, n >= vt, 0, 0}));
          }
          pb.push(make_load_store(kOpLoad, kMemWgt, wgt_slot(s),
                                  d.wgt.elem(cfg, kMemWgt) + oi * ob * I + m * ib, ob, ib, I,
                                  Deps{0, l >= vt, 0, 0}));
          pb.push(make_load_store(kOpLoad, kMemInp, inp_slot(s),
                                  d.inp.elem(cfg, kMemInp) + bi * bb * I + m * ib, bb, ib, I,
                                  Deps{0, 0, 0, 1}));
          pb.push(make_gemm(kernels[s * vt + t], false, Deps{1, 0, l + vt < n_steps, m + 1 == nm}));
          if (m + 1 == nm) {
            const bool push = n + vt < n_blocks || n + 1 == n_blocks;
            pb.push(make_load_store(kOpStore, kMemOut, acc_slot(t),
                                    d.out.elem(cfg, kMemOut) + bi * bb * O + oi * ob, bb, ob, O,
                                    Deps{1, 0, push, 0}));
          }
        }
        pb.push(make_finish(false, true));
        const std::vector<int32_t> expect = ref_blocked_out(cfg, d, B, I, O);
        return with_seed(run_and_compare(pb, be, expect, d.out), seed);
      }};
}

// ---------------------------------------------------------------------------------------------
// Runtime-style synchronisation through NOPs (x_size 0) and SRAM persistence across runs.

IsaTestCase nop_sync_case(const HwConfig& cfg) {
  return {"nop_sync_runtime_style", [cfg](Backend& be) {
            const uint32_t seed = 41;
            std::mt19937 rng(seed);
            const uint32_t bt = 2, it = 2, ot = 2;
            ProgramBuilder pb(cfg, be.dram());
            const GemmData d = alloc_gemm_data(pb, rng, bt, it, ot);
            const UopLoop l = push_full_gemm_kernel(pb, bt, it, ot);
            // A NOP is a LOAD/STORE with x_size 0 that only moves dependence tokens.
            auto nop = [&pb](uint32_t opcode, uint32_t memory_type, Deps deps) {
              pb.push(make_load_store(opcode, memory_type, 0, 0, 0, 0, 0, deps));
            };
            pb.push(make_load_1d(kMemAcc, 0, d.bias.elem(cfg, kMemAcc), bt * ot));
            // acc ready: load may start (nothing to protect, as runtime)
            nop(kOpLoad, kMemUop, Deps{0, 0, 1, 0});
            nop(kOpLoad, kMemInp, Deps{0, 1, 0, 0});
            pb.push(make_load_1d(kMemWgt, 0, d.wgt.elem(cfg, kMemWgt), ot * it));
            pb.push(make_load_1d(kMemInp, 0, d.inp.elem(cfg, kMemInp), bt * it));
            nop(kOpLoad, kMemInp, Deps{0, 0, 0, 1});
            nop(kOpLoad, kMemUop, Deps{1, 0, 0, 0});
            pb.push(make_gemm(l, false));
            nop(kOpLoad, kMemUop, Deps{0, 0, 0, 1});
            nop(kOpStore, kMemUop, Deps{1, 0, 0, 0});
            pb.push(make_store_1d(0, d.out.elem(cfg, kMemOut), bt * ot));
            nop(kOpStore, kMemUop, Deps{0, 0, 1, 0});
            nop(kOpLoad, kMemUop, Deps{0, 1, 0, 0});
            pb.push(make_finish());
            const std::vector<int32_t> expect = ref_blocked_out(cfg, d, bt, it, ot);
            return with_seed(run_and_compare(pb, be, expect, d.out), seed);
          }};
}

IsaTestCase sram_persistence_case(const HwConfig& cfg) {
  return {"sram_persistence_two_runs", [cfg](Backend& be) {
            const uint32_t seed = 51;
            std::mt19937 rng(seed);
            const uint32_t bt = 2, it = 2, ot = 2;
            ProgramBuilder pb1(cfg, be.dram());
            const GemmData d = alloc_gemm_data(pb1, rng, bt, it, ot);
            DeviceBuffer out2 = pb1.alloc(d.out.bytes);
            const UopLoop l = push_full_gemm_kernel(pb1, bt, it, ot);
            pb1.push(make_load_1d(kMemAcc, 0, d.bias.elem(cfg, kMemAcc), bt * ot));
            pb1.push(make_load_1d(kMemWgt, 0, d.wgt.elem(cfg, kMemWgt), ot * it));
            pb1.push(make_load_1d(kMemInp, 0, d.inp.elem(cfg, kMemInp), bt * it, Deps{0, 0, 0, 1}));
            pb1.push(make_gemm(l, false, Deps{1, 0, 0, 1}));
            pb1.push(make_store_1d(0, d.out.elem(cfg, kMemOut), bt * ot, Deps{1, 0, 1, 0}));
            pb1.push(make_finish(false, true));
            std::string r = run_checked(pb1, be);
            // Second run: no loads at all; the GEMM accumulates once more on the kept SRAMs.
            ProgramBuilder pb2(cfg, be.dram());
            pb2.push(make_gemm(l, false, Deps{0, 0, 0, 1}));
            pb2.push(make_store_1d(0, out2.elem(cfg, kMemOut), bt * ot, Deps{1, 0, 1, 0}));
            pb2.push(make_finish(false, true));
            if (r.empty()) {
              r = run_checked(pb2, be);
            }
            // Reference: bias + 2 * products.
            if (r.empty()) {
              r = compare_out(cfg, ref_blocked_out(cfg, d, bt, it, ot), d.out.host, "first run");
            }
            if (r.empty()) {
              r = compare_out(cfg, ref_blocked_out(cfg, d, bt, it, ot, 2), out2.host, "second run");
            }
            return with_seed(r, seed);
          }};
}

// ---------------------------------------------------------------------------------------------
// Whole accumulator lanes through a narrower out lane: after GEMM (optional) and ALU steps that
// overflow the accumulator, STORE the lanes slice by slice (ALU >> OUT_WIDTH between stores), so
// that every bit of the wrapped ACC_WIDTH-bit result is seen even where OUT_WIDTH < ACC_WIDTH.

// Pushes the slice stores of `n` acc tiles (from tile 0) into `out` and returns the expected
// out lanes given the final acc lanes `acc` (n tiles).
std::vector<int32_t> push_acc_slices(ProgramBuilder& pb, const DeviceBuffer& out, uint32_t n,
                                     uint32_t shift_uop, std::vector<int32_t> acc) {
  const HwConfig& cfg = pb.cfg();
  const int slices = cfg.acc_width / cfg.out_width;
  std::vector<int32_t> expect;
  for (int sl = 0; sl < slices; ++sl) {
    if (sl > 0) {
      UopLoop l{shift_uop, shift_uop + 1, 1, n, 0, 1, 0, 1};
      pb.push(make_alu(kAluShr, l, true, cfg.out_width, Deps{0, 1, 0, 1}));
      for (int32_t& a : acc) {
        a = ref_alu_lane(cfg, kAluShr, a, cfg.out_width);
      }
    }
    pb.push(make_store_1d(0, out.elem(cfg, kMemOut) + sl * n, n, Deps{1, 0, 1, 0}));
    const std::vector<int32_t> st = stored(cfg, acc);
    expect.insert(expect.end(), st.begin(), st.end());
  }
  pb.push(make_finish(false, true));
  return expect;
}

IsaTestCase acc_slices_case(const HwConfig& cfg, bool gemm) {
  return {
      gemm ? "acc_slices_gemm_alu" : "acc_slices_alu", [cfg, gemm](Backend& be) {
        const uint32_t seed = 61 + gemm, n = 4;
        std::mt19937 rng(seed);
        const size_t lanes = acc_lanes(cfg);
        ProgramBuilder pb(cfg, be.dram());
        DeviceBuffer a = pb.alloc(2 * n * cfg.acc_elem_bytes);
        DeviceBuffer inp = pb.alloc(n * cfg.inp_elem_bytes), wgt = pb.alloc(cfg.wgt_elem_bytes);
        DeviceBuffer out = pb.alloc(n * (cfg.acc_width / cfg.out_width) * cfg.out_elem_bytes);
        // tiles [0, n): the lanes worked on; [n, 2n): the vector operands. Every bit pattern.
        std::vector<int32_t> acc = random_bits(cfg, kMemAcc, a, 2 * n, rng);
        const std::vector<int32_t> iv = random_bits(cfg, kMemInp, inp, n, rng);
        const std::vector<int32_t> wv = random_bits(cfg, kMemWgt, wgt, 1, rng);
        // uop 0: dst t, src n + t (inp t, wgt 0) over the loop; uop 1: in place.
        DeviceBuffer uops = pb.alloc_uops({Uop{0, n, 0}, Uop{0, 0, 0}});
        pb.push(make_load_1d(kMemUop, 0, uops.phys / 4, 2));
        pb.push(make_load_1d(kMemAcc, 0, a.elem(cfg, kMemAcc), 2 * n));
        if (gemm) {
          pb.push(make_load_1d(kMemInp, n, inp.elem(cfg, kMemInp), n));
          pb.push(make_load_1d(kMemWgt, 0, wgt.elem(cfg, kMemWgt), 1, Deps{0, 0, 0, 1}));
          pb.push(make_gemm(UopLoop{0, 1, 1, n, 0, 1, 0, 1}, false, Deps{1, 0, 0, 0}));
          for (uint32_t t = 0; t < n; ++t) {
            ref_gemm_lanes(cfg, &acc[t * lanes], &iv[t * tile_lanes(cfg, kMemInp)], wv.data());
          }
        }
        const UopLoop vec{0, 1, 1, n, 0, 1, 0, 1}, imm{1, 2, 1, n, 0, 1, 0, 1};
        const struct {
          uint32_t op;
          bool use_imm;
          int32_t imm;
        } steps[] = {
            {kAluMul, false, 0}, {kAluAdd, true, -12345}, {kAluShr, true, -3}, {kAluMax, false, 0}};
        for (const auto& st : steps) {
          pb.push(make_alu(st.op, st.use_imm ? imm : vec, st.use_imm, st.imm,
                           Deps{0, 0, 0, st.op == kAluMax}));
          for (size_t k = 0; k < n * lanes; ++k) {
            acc[k] = ref_alu_lane(cfg, st.op, acc[k], st.use_imm ? st.imm : acc[n * lanes + k]);
          }
        }
        acc.resize(n * lanes);
        const std::vector<int32_t> expect = push_acc_slices(pb, out, n, 1, acc);
        return with_seed(run_and_compare(pb, be, expect, out), seed);
      }};
}

// ---------------------------------------------------------------------------------------------
// Illegal programs.

IsaTestCase error_case(const HwConfig& cfg, const std::string& name,
                       std::vector<std::string> expected,
                       std::function<void(ProgramBuilder&)> build) {
  return {"error_" + name, [cfg, expected, build](Backend& be) -> std::string {
            ProgramBuilder pb(cfg, be.dram());
            build(pb);
            try {
              pb.run(be);
            } catch (const ProgramError& e) {
              const std::string msg = e.what();
              for (const std::string& part : expected) {
                if (msg.find(part) == std::string::npos) {
                  return fmt::format("error message \"{}\" lacks \"{}\"", msg, part);
                }
              }
              return "";
            }
            return "no ProgramError was thrown";
          }};
}

}  // namespace

std::vector<IsaTestCase> isa_test_cases(const HwConfig& cfg) {
  std::vector<IsaTestCase> v;
  for (uint32_t type : {kMemInp, kMemWgt, kMemAcc, kMemAcc8}) {
    v.push_back(load_pad_case(cfg, type));
  }
  v.push_back(store_narrowing_case(cfg));
  v.push_back(out_buffer_rule_case(cfg));
  for (uint32_t op = kAluMin; op <= kAluMul; ++op) {
    for (bool imm : {true, false}) {
      for (bool comp : {false, true}) {
        v.push_back(alu_test_case(cfg, op, imm, comp));
      }
    }
  }
  v.push_back(alu_shift_extremes_case(cfg));
  v.push_back(alu_loops_random_case(cfg, 1));
  v.push_back(alu_loops_random_case(cfg, 2));
  v.push_back(gemm_loops_random_case(cfg, 1));
  v.push_back(gemm_loops_random_case(cfg, 2));
  v.push_back(gemm_test_case(cfg, false));
  v.push_back(gemm_test_case(cfg, true));
  for (uint32_t vt : {1u, 2u}) {
    for (bool comp : {false, true}) {
      v.push_back(blocked_gemm_case(cfg, vt, comp));
    }
  }
  v.push_back(nop_sync_case(cfg));
  v.push_back(sram_persistence_case(cfg));
  v.push_back(acc_slices_case(cfg, false));
  v.push_back(acc_slices_case(cfg, true));
  return v;
}

std::vector<IsaTestCase> isa_error_cases(const HwConfig& cfg) {
  std::vector<IsaTestCase> v;
  const HwConfig c = cfg;
  const auto finish = [](ProgramBuilder& pb) { pb.push(make_finish()); };
  v.push_back(error_case(cfg, "unknown_opcode",
                         {"instruction 1 (OPCODE?, fetch unit): field 'opcode' = 5"},
                         [c](ProgramBuilder& pb) {
                           pb.push(make_load_store(kOpLoad, kMemInp, 0, 0, 0, 0, 0));
                           pb.push_raw(InsnWords{5, 0});
                         }));
  v.push_back(error_case(cfg, "load_unknown_memory_type",
                         {"instruction 0 (LOAD", "field 'memory_type' = 6"},
                         [=](ProgramBuilder& pb) {
                           pb.push(make_load_1d(6, 0, 0, 1));
                           finish(pb);
                         }));
  v.push_back(error_case(cfg, "load_out", {"instruction 0 (LOAD OUT", "field 'memory_type' = 4"},
                         [=](ProgramBuilder& pb) {
                           pb.push(make_load_1d(kMemOut, 0, 0, 1));
                           finish(pb);
                         }));
  v.push_back(error_case(cfg, "store_not_out",
                         {"instruction 0 (STORE INP, store unit): field 'memory_type' = 2"},
                         [=](ProgramBuilder& pb) {
                           pb.push(make_load_store(kOpStore, kMemInp, 0, 0, 1, 1, 1));
                           finish(pb);
                         }));
  v.push_back(error_case(
      cfg, "store_padding", {"instruction 0 (STORE OUT, store unit): field 'x_pad_0' = 1"},
      [=](ProgramBuilder& pb) {
        pb.push(make_load_store(kOpStore, kMemOut, 0, 0, 1, 1, 1, {}, 0, 0, 1, 0));
        finish(pb);
      }));
  v.push_back(error_case(cfg, "load_unit_pop_prev",
                         {"instruction 0 (LOAD INP, load unit): field 'pop_prev_dep' = 1"},
                         [=](ProgramBuilder& pb) {
                           pb.push(make_load_1d(kMemInp, 0, 0, 1, Deps{1, 0, 0, 0}));
                           finish(pb);
                         }));
  v.push_back(error_case(cfg, "alu_unknown_opcode",
                         {"instruction 0 (ALU, compute unit): field 'alu_opcode' = 6"},
                         [=](ProgramBuilder& pb) {
                           pb.push(make_alu(6, UopLoop{}, true, 0));
                           finish(pb);
                         }));
  v.push_back(error_case(cfg, "load_sram_overflow_with_padding",
                         {"instruction 0 (LOAD INP, load unit): field 'sram_base' = " +
                          std::to_string(cfg.inp_buff_depth - 4)},
                         [=](ProgramBuilder& pb) {
                           DeviceBuffer b = pb.alloc(4 * c.inp_elem_bytes);
                           pb.push(make_load_store(kOpLoad, kMemInp, c.inp_buff_depth - 4,
                                                   b.elem(c, kMemInp), 2, 2, 2, {}, 0, 1, 0, 0));
                           finish(pb);
                         }));
  v.push_back(error_case(
      cfg, "store_sram_overflow",
      {"instruction 0 (STORE OUT, store unit): field 'sram_base' = " +
       std::to_string(cfg.acc_buff_depth - 1)},
      [=](ProgramBuilder& pb) {
        DeviceBuffer b = pb.alloc(2 * c.out_elem_bytes);
        pb.push(make_store_1d(c.acc_buff_depth - 1, b.elem(c, kMemOut), 2, Deps{0, 0, 1, 0}));
        pb.push(make_finish(false, true));
      }));
  v.push_back(error_case(cfg, "uop_end_beyond_buffer",
                         {"instruction 0 (GEMM, compute unit): field 'uop_end' = " +
                          std::to_string(cfg.uop_buff_depth + 1)},
                         [=](ProgramBuilder& pb) {
                           UopLoop l;
                           l.uop_end = c.uop_buff_depth + 1;
                           pb.push(make_gemm(l, false));
                           finish(pb);
                         }));
  v.push_back(error_case(cfg, "uop_bgn_after_end",
                         {"instruction 0 (ALU, compute unit): field 'uop_bgn' = 5"},
                         [=](ProgramBuilder& pb) {
                           UopLoop l;
                           l.uop_bgn = 5;
                           l.uop_end = 3;
                           pb.push(make_alu(kAluAdd, l, true, 1));
                           finish(pb);
                         }));
  // Index errors: a uop at the last entry plus one loop step.
  const auto index_error = [&](const std::string& name, const std::string& field, bool alu,
                               uint32_t depth) {
    v.push_back(error_case(cfg, name,
                           {fmt::format("instruction 1 ({}, compute unit): {} index {}",
                                        alu ? "ALU" : "GEMM", field, depth)},
                           [=](ProgramBuilder& pb) {
                             Uop u{0, 0, 0};
                             UopLoop l;
                             l.iter_in = 2;
                             if (field == "dst") {
                               u.dst_idx = depth - 1;
                               l.dst_factor_in = 1;
                             } else if (field == "src") {
                               u.src_idx = depth - 1;
                               l.src_factor_in = 1;
                               l.dst_factor_in = 1;
                             } else {
                               u.wgt_idx = depth - 1;
                               l.wgt_factor_in = 1;
                               l.dst_factor_in = 1;
                             }
                             DeviceBuffer ub = pb.alloc_uops({u});
                             pb.push(make_load_1d(kMemUop, 0, ub.phys / 4, 1));
                             pb.push(alu ? make_alu(kAluAdd, l, false, 0) : make_gemm(l, false));
                             finish(pb);
                           }));
  };
  index_error("gemm_acc_index", "dst", false, cfg.acc_buff_depth);
  index_error("gemm_inp_index", "src", false, cfg.inp_buff_depth);
  index_error("gemm_wgt_index", "wgt", false, cfg.wgt_buff_depth);
  index_error("alu_src_index", "src", true, cfg.acc_buff_depth);
  v.push_back(error_case(cfg, "load_dram_outside",
                         {"instruction 0 (LOAD INP, load unit): DRAM range", "outside allocated"},
                         [=](ProgramBuilder& pb) {
                           pb.push(make_load_1d(kMemInp, 0, 0xF0000000u / c.inp_elem_bytes, 1));
                           finish(pb);
                         }));
  v.push_back(
      error_case(cfg, "store_dram_outside",
                 {"instruction 0 (STORE OUT, store unit): DRAM range", "outside allocated"},
                 [=](ProgramBuilder& pb) {
                   pb.push(make_store_1d(0, 0xF0000000u / c.out_elem_bytes, 1, Deps{0, 0, 1, 0}));
                   pb.push(make_finish(false, true));
                 }));
  v.push_back(
      error_case(cfg, "deadlock", {"deadlock", "instruction 0", "l2g"}, [=](ProgramBuilder& pb) {
        pb.push(make_gemm(UopLoop{}, true, Deps{1, 0, 0, 0}));
        finish(pb);
      }));
  v.push_back(
      error_case(cfg, "no_finish", {"no FINISH", "insn_count = 2"}, [=](ProgramBuilder& pb) {
        pb.push(make_load_1d(kMemInp, 0, 0, 0));
        pb.push(make_load_1d(kMemUop, 0, 0, 0));
      }));
  v.push_back({"error_insn_stream_outside_dram", [](Backend& be) -> std::string {
                 try {
                   be.run(0xFFFF0000u, 4, 0);
                 } catch (const ProgramError& e) {
                   return std::string(e.what()).find("outside allocated DRAM") == std::string::npos
                              ? std::string("unexpected message: ") + e.what()
                              : "";
                 }
                 return "no ProgramError was thrown";
               }});
  return v;
}

HwConfig isa_suite_config(const std::string& spec) {
  const size_t plus = spec.find('+');
  if (plus == std::string::npos) {
    return HwConfig::from_file(config_path(spec));
  }
  std::vector<ConfigOverride> overrides;
  size_t at = plus + 1;
  while (at <= spec.size()) {
    const size_t comma = std::min(spec.find(',', at), spec.size());
    overrides.push_back(parse_config_override(spec.substr(at, comma - at)));
    at = comma + 1;
  }
  return resolve_config(config_path(spec.substr(0, plus)), overrides).config;
}

// ---------------------------------------------------------------------------------------------
// Catch registration.

namespace {

class SuiteInvoker : public Catch::ITestInvoker {
 public:
  SuiteInvoker(std::string config, size_t index, bool error, BackendMaker maker)
      : m_config(std::move(config)), m_index(index), m_error(error), m_maker(std::move(maker)) {}
  void invoke() const override {
    const HwConfig cfg = isa_suite_config(m_config);
    const auto cases = m_error ? isa_error_cases(cfg) : isa_test_cases(cfg);
    Dram dram;
    std::unique_ptr<Backend> be = m_maker(cfg, dram);
    const std::string r = cases.at(m_index).run_and_check(*be);
    if (!r.empty()) {
      FAIL(m_config << " " << cases.at(m_index).name << ": " << r);
    }
  }

 private:
  std::string m_config;
  size_t m_index;
  bool m_error;
  BackendMaker m_maker;
};

// Every legal and illegal program of one config on a fresh backend each.
class WidthSuiteInvoker : public Catch::ITestInvoker {
 public:
  WidthSuiteInvoker(std::string config, BackendMaker maker)
      : m_config(std::move(config)), m_maker(std::move(maker)) {}
  void invoke() const override {
    const HwConfig cfg = isa_suite_config(m_config);
    INFO(m_config << ": " << cfg.inp_width << "-bit inputs, " << cfg.wgt_width << "-bit weights, "
                  << cfg.acc_width << "-bit accumulators");
    for (bool error : {false, true}) {
      for (const IsaTestCase& tc : error ? isa_error_cases(cfg) : isa_test_cases(cfg)) {
        Dram dram;
        std::unique_ptr<Backend> be = m_maker(cfg, dram);
        INFO(tc.name);
        CHECK(tc.run_and_check(*be) == "");
      }
    }
  }

 private:
  std::string m_config;
  BackendMaker m_maker;
};

}  // namespace

bool register_isa_suite(const std::string& prefix, BackendMaker maker, const std::string& tags,
                        const std::vector<std::string>& configs) {
  static std::deque<std::string> names;  // Catch keeps references to the strings
  for (const std::string& config : configs) {
    const HwConfig cfg = isa_suite_config(config);
    for (bool error : {false, true}) {
      const auto cases = error ? isa_error_cases(cfg) : isa_test_cases(cfg);
      for (size_t k = 0; k < cases.size(); ++k) {
        names.push_back(prefix + " " + config + " " + cases[k].name);
        const std::string& name = names.back();
        names.push_back(tags);
        const std::string& tag = names.back();
        Catch::AutoReg(new SuiteInvoker(config, k, error, maker), CATCH_INTERNAL_LINEINFO,
                       Catch::StringRef(), Catch::NameAndTags{name.c_str(), tag.c_str()});
      }
    }
  }
  return true;
}

namespace {

// "<preset> i4w4a16": the preset and the widths, a name Catch's test specs can select.
std::string width_suite_name(const std::string& spec, const HwConfig& cfg) {
  return fmt::format("{} i{}w{}a{}", spec.substr(0, spec.find('+')), cfg.inp_width, cfg.wgt_width,
                     cfg.acc_width);
}

}  // namespace

bool register_isa_width_suite(const std::string& prefix, BackendMaker maker,
                              const std::string& tags, const std::vector<std::string>& configs) {
  static std::deque<std::string> names;  // Catch keeps references to the strings
  for (const std::string& config : configs) {
    names.push_back(prefix + " widths " + width_suite_name(config, isa_suite_config(config)) +
                    " every program");
    const std::string& name = names.back();
    names.push_back(tags + "[widths]");
    const std::string& tag = names.back();
    Catch::AutoReg(new WidthSuiteInvoker(config, maker), CATCH_INTERNAL_LINEINFO,
                   Catch::StringRef(), Catch::NameAndTags{name.c_str(), tag.c_str()});
  }
  return true;
}

}  // namespace vta::testprog
