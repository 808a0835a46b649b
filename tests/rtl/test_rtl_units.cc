// Unit tests of the GEMM core and the tensor ALU modules (hw/rtl/gemm_core.v, tensor_alu.v,
// verilated on their own for the pynq config) against plain C++ reference arithmetic, with
// seeded random operands (the seed is printed on failure).
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "Vgemm_core.h"
#include "Vgemm_core_packed.h"
#include "Vtensor_alu.h"
#include "ref_alu.h"
#include "test_paths.h"
#include "verilated.h"
#include "vta/sim/hw_config.h"

namespace {

const vta::HwConfig& pynq() {
  static const vta::HwConfig cfg = vta::HwConfig::from_file(config_path("pynq"));
  return cfg;
}

template <class W>
void put_bytes(W& sig, const void* p, size_t n) {
  for (size_t w = 0; w < n / 4; ++w) {
    uint32_t x;
    std::memcpy(&x, static_cast<const uint8_t*>(p) + 4 * w, 4);
    sig[w] = x;
  }
}
template <class W>
void get_bytes(const W& sig, void* p, size_t n) {
  for (size_t w = 0; w < n / 4; ++w) {
    const uint32_t x = sig[w];
    std::memcpy(static_cast<uint8_t*>(p) + 4 * w, &x, 4);
  }
}

using vta::testref::ref_alu;

}  // namespace

// Drives a gemm_core variant (class V) with seeded random and extreme operands.
template <class V>
void check_gemm_core(uint32_t seed) {
  const auto& c = pynq();
  INFO("seed " << seed);
  std::mt19937 rng(seed);
  VerilatedContext ctx;
  V m(&ctx);
  const int lanes = c.batch * c.block_out;
  std::vector<int8_t> inp(static_cast<size_t>(c.batch * c.block_in));
  std::vector<int8_t> wgt(static_cast<size_t>(c.block_out * c.block_in));
  std::vector<int32_t> acc(static_cast<size_t>(lanes)), out(static_cast<size_t>(lanes));
  std::uniform_int_distribution<int> i8(-128, 127);
  std::uniform_int_distribution<int32_t> i32(INT32_MIN, INT32_MAX);
  for (int trial = 0; trial < 200; ++trial) {
    for (auto& v : inp) {
      v = static_cast<int8_t>(i8(rng));
    }
    for (auto& v : wgt) {
      v = static_cast<int8_t>(i8(rng));
    }
    // extremes now and then: all -128 (largest products) and accumulators near overflow
    if (trial % 17 == 0) {
      std::fill(inp.begin(), inp.end(), int8_t{-128});
      std::fill(wgt.begin(), wgt.end(), int8_t{-128});
    }
    for (auto& v : acc) {
      v = i32(rng);
    }
    const bool reset = trial % 11 == 5;
    put_bytes(m.inp, inp.data(), inp.size());
    put_bytes(m.wgt, wgt.data(), wgt.size());
    put_bytes(m.acc_in, acc.data(), acc.size() * 4);
    m.reset = reset;
    m.eval();
    get_bytes(m.acc_out, out.data(), out.size() * 4);
    for (int b = 0; b < c.batch; ++b) {
      for (int oc = 0; oc < c.block_out; ++oc) {
        int64_t dot = 0;
        for (int k = 0; k < c.block_in; ++k) {
          dot += static_cast<int64_t>(inp[static_cast<size_t>(b * c.block_in + k)]) *
                 wgt[static_cast<size_t>(oc * c.block_in + k)];
        }
        const size_t l = static_cast<size_t>(b * c.block_out + oc);
        const int32_t expect =
            reset
                ? 0
                : static_cast<int32_t>(static_cast<uint32_t>(acc[l]) + static_cast<uint32_t>(dot));
        INFO("trial " << trial << " lane " << l);
        REQUIRE(out[l] == expect);
      }
    }
  }
}

TEST_CASE("rtl unit: gemm_core equals the reference dot products", "[rtl][unit]") {
  check_gemm_core<Vgemm_core>(20261121);
}

TEST_CASE("rtl unit: packed gemm_core (synthesis variant) equals the reference", "[rtl][unit]") {
  check_gemm_core<Vgemm_core_packed>(20261122);
}

TEST_CASE("rtl unit: tensor_alu equals the reference for every opcode", "[rtl][unit]") {
  const auto& c = pynq();
  const uint32_t seed = 7041;
  INFO("seed " << seed);
  std::mt19937 rng(seed);
  VerilatedContext ctx;
  Vtensor_alu m(&ctx);
  const size_t lanes = static_cast<size_t>(c.batch * c.block_out);
  std::vector<int32_t> a(lanes), b(lanes), out(lanes);
  std::uniform_int_distribution<int32_t> any(INT32_MIN, INT32_MAX);
  std::uniform_int_distribution<int32_t> small(-40, 40);
  std::uniform_int_distribution<int> imm16(-32768, 32767);
  for (int trial = 0; trial < 400; ++trial) {
    const uint32_t op = static_cast<uint32_t>(trial % 5);
    const bool use_imm = (trial / 5) % 2 == 0;
    for (size_t l = 0; l < lanes; ++l) {
      a[l] = any(rng);
      // shift amounts mostly small (incl. negative = left shift and beyond +-31)
      b[l] = op == 3 ? small(rng) : any(rng);
    }
    const int32_t imm = op == 3 ? small(rng) : imm16(rng);
    put_bytes(m.a, a.data(), lanes * 4);
    put_bytes(m.b, b.data(), lanes * 4);
    m.op = static_cast<CData>(op);
    m.use_imm = use_imm;
    m.imm = static_cast<uint16_t>(static_cast<int16_t>(imm));
    m.eval();
    get_bytes(m.out, out.data(), lanes * 4);
    for (size_t l = 0; l < lanes; ++l) {
      INFO("trial " << trial << " op " << op << " use_imm " << use_imm << " a " << a[l] << " b "
                    << (use_imm ? imm : b[l]));
      REQUIRE(out[l] == ref_alu(op, a[l], use_imm ? imm : b[l]));
    }
  }
}
