// Element widths other than int8 (docs/element_widths.md) on fsim and the cycle model: one
// LOAD / GEMM / ALU / STORE program per width combination, checked against a plain reference
// written here (sign extension, the 2^ACC_WIDTH wrap and the store truncation spelled out on
// 64-bit integers) and fsim against cycle bit for bit (outputs and upstream counters). Built a
// second time with VTA_WIDTHS_RTL (test_widths_rtl) for the Verilated int32, small_int4 and
// small_int8_acc16 models as well. The whole ISA program suite at these widths is in
// tests/programs (kIsaWidthConfigs).
#include <catch2/catch.hpp>

#include <cstring>
#include <random>

#include <nlohmann/json.hpp>
#include "program_builder.h"
#include "test_paths.h"
#include "vta/sim/cycle/cycle_backend.h"
#include "vta/sim/fsim.h"
#ifdef VTA_WIDTHS_RTL
#include "vta/hw/rtl_backend.h"
#endif

using namespace vta;
using namespace vta::testprog;

namespace {

// The pynq config with other widths; the buffer byte sizes keep pynq's depths (inp 2048, wgt
// 1024, acc 2048) so the instruction fields are the same.
HwConfig width_config(int log_inp, int log_wgt, int log_acc) {
  nlohmann::json j = HwConfig::from_file(config_path("pynq")).to_json();
  j["LOG_INP_WIDTH"] = log_inp;
  j["LOG_WGT_WIDTH"] = log_wgt;
  j["LOG_ACC_WIDTH"] = log_acc;
  j["LOG_INP_BUFF_SIZE"] = 11 + 4 + log_inp - 3;
  j["LOG_WGT_BUFF_SIZE"] = 10 + 8 + log_wgt - 3;
  j["LOG_ACC_BUFF_SIZE"] = 11 + 4 + log_acc - 3;
  return HwConfig::from_json(j, "width config");
}

// Reference arithmetic: the value of the low `bits` bits as a two's-complement number.
int64_t wrap(int64_t v, int bits) {
  const int64_t m = int64_t{1} << bits;
  int64_t r = v % m;
  if (r < 0) {
    r += m;
  }
  return r >= m / 2 ? r - m : r;
}

// Lane k of a packed little-endian bit string (lane k at bits [k*bits, (k+1)*bits)).
int64_t lane_of(const uint8_t* p, int bits, size_t k) {
  uint64_t raw = 0;
  for (int b = 0; b < bits; ++b) {
    const size_t bit = k * bits + b;
    raw |= static_cast<uint64_t>((p[bit / 8] >> (bit % 8)) & 1) << b;
  }
  return wrap(static_cast<int64_t>(raw), bits);
}

void set_lane(uint8_t* p, int bits, size_t k, int64_t v) {
  for (int b = 0; b < bits; ++b) {
    const size_t bit = k * bits + b;
    const uint8_t one = static_cast<uint8_t>(1u << (bit % 8));
    p[bit / 8] = static_cast<uint8_t>(((v >> b) & 1) ? (p[bit / 8] | one) : (p[bit / 8] & ~one));
  }
}

struct WidthProgram {
  std::vector<uint8_t> out;  // the bytes STORE wrote (3 out tiles)
  Stats stats;
};

constexpr int32_t kAddImm = -12345, kMaxImm = -300;

// The program: load 2 inp, 3 wgt, 2 acc tiles; GEMM acc[0..1] += over two loop iterations; ALU
// ADD acc0 += acc2, MUL acc1 *= acc3, ADD imm, MAX imm, SHR 3 and SHL 2, MIN acc0 with acc1;
// LOAD ACC_8BIT into acc2, ADD 1; store acc 0..2.
WidthProgram run_width_program(const HwConfig& c, Backend& be, uint32_t seed,
                               const std::vector<uint8_t>& data) {
  ProgramBuilder pb(c, be.dram());
  const size_t ie = c.inp_elem_bytes, we = c.wgt_elem_bytes, ae = c.acc_elem_bytes;
  const size_t a8 = c.elem_bytes(kMemAcc8);
  DeviceBuffer inp = pb.alloc(2 * ie), wgt = pb.alloc(3 * we), acc = pb.alloc(2 * ae);
  DeviceBuffer acc8 = pb.alloc(a8), out = pb.alloc(3 * c.out_elem_bytes);
  size_t at = 0;
  for (DeviceBuffer* b : {&inp, &wgt, &acc, &acc8}) {
    std::memcpy(b->host, data.data() + at, b->bytes);
    at += b->bytes;
  }
  DeviceBuffer uops = pb.alloc_uops(
      {Uop{0, 0, 0}, Uop{1, 1, 1}, Uop{0, 2, 0}, Uop{1, 3, 0}, Uop{0, 1, 0}, Uop{2, 0, 0}});
  pb.push(make_load_1d(kMemInp, 0, inp.elem(c, kMemInp), 2));
  pb.push(make_load_1d(kMemWgt, 0, wgt.elem(c, kMemWgt), 3, Deps{0, 0, 0, 1}));
  pb.push(make_load_1d(kMemUop, 0, uops.phys / 4, 6, Deps{1, 0, 0, 0}));
  pb.push(make_load_1d(kMemAcc, 0, acc.elem(c, kMemAcc), 2));
  pb.push(make_load_1d(kMemAcc, 2, acc.elem(c, kMemAcc), 2));
  UopLoop g{0, 2, 2, 1, 0, 0, 0, 0, 1, 0};  // it_out 1 uses wgt tiles 1 and 2
  pb.push(make_gemm(g, false));
  const auto alu = [&](uint32_t op, uint32_t u, bool imm, int32_t v) {
    pb.push(make_alu(op, UopLoop{u, u + 1}, imm, v));
  };
  alu(kAluAdd, 2, false, 0);
  alu(kAluMul, 3, false, 0);
  alu(kAluAdd, 2, true, kAddImm);
  alu(kAluMax, 3, true, kMaxImm);
  alu(kAluShr, 2, true, 3);
  alu(kAluShr, 3, true, -2);
  alu(kAluMin, 4, false, 0);
  pb.push(make_load_1d(kMemAcc8, 2, acc8.phys / static_cast<uint32_t>(a8), 1));
  pb.push(make_alu(kAluAdd, UopLoop{5, 6}, true, 1, Deps{0, 0, 0, 1}));
  pb.push(make_load_store(kOpStore, kMemOut, 0, out.elem(c, kMemOut), 1, 3, 3, Deps{1, 0, 1, 0}));
  pb.push(make_finish(false, true));
  be.clear_stats();
  const RunStatus st = pb.run(be);
  INFO("seed " << seed << " status " << static_cast<int>(st));
  REQUIRE(st == RunStatus::kOk);
  return WidthProgram{std::vector<uint8_t>(out.host, out.host + out.bytes), be.stats()};
}

// The same program computed lane by lane on int64 values.
std::vector<uint8_t> reference(const HwConfig& c, const std::vector<uint8_t>& data) {
  const int iw = c.inp_width, ww = c.wgt_width, aw = c.acc_width, bin = c.block_in;
  const int bout = c.block_out, lanes = c.batch * c.block_out;
  const uint8_t* inp = data.data();
  const uint8_t* wgt = inp + 2 * c.inp_elem_bytes;
  const uint8_t* accd = wgt + 3 * c.wgt_elem_bytes;
  const uint8_t* acc8 = accd + 2 * c.acc_elem_bytes;
  std::vector<std::vector<int64_t>> acc(4, std::vector<int64_t>(lanes));
  for (int t = 0; t < 4; ++t) {
    for (int k = 0; k < lanes; ++k) {
      acc[t][k] = lane_of(accd + (t % 2) * c.acc_elem_bytes, aw, k);
    }
  }
  for (int it = 0; it < 2; ++it) {
    for (int t = 0; t < 2; ++t) {  // acc t += inp t x wgt (t + it)
      const uint8_t* x = inp + t * c.inp_elem_bytes;
      const uint8_t* w = wgt + (t + it) * c.wgt_elem_bytes;
      for (int b = 0; b < c.batch; ++b) {
        for (int oc = 0; oc < bout; ++oc) {
          int64_t sum = acc[t][b * bout + oc];
          for (int k = 0; k < bin; ++k) {
            sum = wrap(sum + wrap(lane_of(x, iw, b * bin + k) * lane_of(w, ww, oc * bin + k), 32),
                       32);
          }
          acc[t][b * bout + oc] = wrap(sum, aw);
        }
      }
    }
  }
  std::vector<uint8_t> out(3 * c.out_elem_bytes, 0);
  for (int k = 0; k < lanes; ++k) {
    int64_t& a0 = acc[0][k];
    int64_t& a1 = acc[1][k];
    a0 = wrap(a0 + acc[2][k], aw);
    a1 = wrap(a1 * acc[3][k], aw);
    a0 = wrap(a0 + kAddImm, aw);
    a1 = wrap(std::max<int64_t>(a1, kMaxImm), aw);
    a0 = wrap(a0 >> 3, aw);  // arithmetic shift right
    a1 = wrap(a1 * 4, aw);   // shift left by 2
    a0 = std::min(a0, a1);
    const int64_t a2 = wrap(lane_of(acc8, 8, k) + 1, aw);  // ACC_8BIT: int8 lanes
    set_lane(out.data(), iw, k, a0);  // STORE keeps the low out-width (= inp width) bits
    set_lane(out.data() + c.out_elem_bytes, iw, k, a1);
    set_lane(out.data() + 2 * c.out_elem_bytes, iw, k, a2);
  }
  return out;
}

void check_config(const HwConfig& c) {
  const uint32_t seed = 2900 + 100 * c.log_inp_width + 10 * c.log_wgt_width + c.log_acc_width;
  INFO("config " << c.model_name << " seed " << seed);
  std::mt19937 rng(seed);
  std::vector<uint8_t> data(2 * c.inp_elem_bytes + 3 * c.wgt_elem_bytes + 2 * c.acc_elem_bytes +
                            c.elem_bytes(kMemAcc8));
  for (uint8_t& b : data) {
    b = static_cast<uint8_t>(rng());  // every bit pattern, negative lanes included
  }
  const std::vector<uint8_t> expect = reference(c, data);
  Dram fd, cd;
  FsimBackend fsim(c, fd);
  CycleBackend cycle(c, cd);
  const WidthProgram f = run_width_program(c, fsim, seed, data);
  const WidthProgram y = run_width_program(c, cycle, seed, data);
  CHECK(f.out == expect);
  CHECK(y.out == f.out);
  CHECK(compare_counters(f.stats, y.stats) == "");
  CHECK(f.stats.gemm_counter == 4);
  CHECK(f.stats.alu_counter == 8);
#ifdef VTA_WIDTHS_RTL
  Dram rd;
  RtlBackend rtl(c, rd);
  const WidthProgram r = run_width_program(c, rtl, seed, data);
  CHECK(r.out == f.out);
  CHECK(compare_counters(f.stats, r.stats) == "");
#endif
}

void check_widths(int log_inp, int log_wgt, int log_acc) {
  check_config(width_config(log_inp, log_wgt, log_acc));
}

}  // namespace

#ifdef VTA_WIDTHS_RTL
// The Verilated model of configs/pynq_int32.json (VTA_RTL_CONFIGS), same program and reference.
TEST_CASE("int32 elements on rtl, cycle and fsim", "[rtl][widths]") {
  REQUIRE(width_config(5, 5, 5).model_name ==
          HwConfig::from_file(config_path("pynq_int32")).model_name);
  check_widths(5, 5, 5);
}

#ifdef VTA_WIDTHS_RTL_SMALL
// The Verilated models of the small int4 (BATCH 2) and int16-accumulator presets.
TEST_CASE("small_int4 and small_int8_acc16 on rtl, cycle and fsim", "[rtl][widths]") {
  for (const char* name : {"small_int4", "small_int8_acc16"}) {
    INFO(name);
    check_config(HwConfig::from_file(config_path(name)));
  }
}
#endif
#else

TEST_CASE("int4 inputs and weights, int16 accumulators: fsim and cycle", "[fsim][widths]") {
  check_widths(2, 2, 4);
}

TEST_CASE("int16 inputs, weights and accumulators: fsim and cycle", "[fsim][widths]") {
  check_widths(4, 4, 4);
}

TEST_CASE("int32 inputs, weights and accumulators: fsim and cycle", "[fsim][widths]") {
  check_widths(5, 5, 5);
}

TEST_CASE("mixed widths (int4 inputs, int16 weights, int32 acc): fsim and cycle",
          "[fsim][widths]") {
  check_widths(2, 4, 5);
}

TEST_CASE("int8 with int16 accumulators and 2-bit inputs: fsim and cycle", "[fsim][widths]") {
  check_widths(3, 3, 4);
  check_widths(1, 3, 5);
}

// The reference against the int8 fast path (the kernels of fsim_gemm_kernel.h).
TEST_CASE("the width reference agrees with the int8 datapath", "[fsim][widths]") {
  check_widths(3, 3, 5);
}
#endif
