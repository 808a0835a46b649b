// Seeded random programs on fsim, rtl and cycle: random LOAD (every type, with padding and
// strides), GEMM (reset or not, random loop nests), ALU (every opcode, immediate or vector) and
// STORE instructions, serialised by dependency tokens between consecutive instructions of
// different units (a compute NOP relays load <-> store), so the result is deterministic.
// rtl must equal fsim on every DRAM byte and the upstream counters, and the cycle model on the
// cycle count and every shared named counter. The test name carries the seed.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "program_builder.h"
#include "rtl_test_support.h"
#include "test_paths.h"
#include "vta/hw/rtl_backend.h"
#include "vta/sim/cycle/cycle_backend.h"
#include "vta/sim/fsim.h"

using namespace vta;
using namespace vta::testprog;

namespace {

constexpr uint32_t kUops = 8;  // micro-ops loaded at uop SRAM 0..7, fields < 8

struct RandomProgram {
  DeviceBuffer out;  // the STORE destination region
};

// Builds the program of `seed` into `pb` (identical DRAM layout for every Dram).
RandomProgram build_random(ProgramBuilder& pb, const HwConfig& cfg, uint32_t seed, int steps) {
  std::mt19937 rng(seed);
  const auto uni = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  const size_t tiles = 256;  // DRAM tiles of each tensor buffer
  const DeviceBuffer inp = pb.alloc(tiles * static_cast<size_t>(cfg.inp_elem_bytes));
  const DeviceBuffer wgt = pb.alloc(tiles * static_cast<size_t>(cfg.wgt_elem_bytes));
  const DeviceBuffer acc = pb.alloc(tiles * static_cast<size_t>(cfg.acc_elem_bytes));
  RandomProgram prog;
  prog.out = pb.alloc(tiles * static_cast<size_t>(cfg.out_elem_bytes));
  fill_random_i8(reinterpret_cast<int8_t*>(inp.host), inp.bytes, -128, 128, rng);
  fill_random_i8(reinterpret_cast<int8_t*>(wgt.host), wgt.bytes, -128, 128, rng);
  fill_random_i32(reinterpret_cast<int32_t*>(acc.host), acc.bytes / 4, -5000, 5000, rng);
  std::vector<Uop> uops;
  for (uint32_t k = 0; k < kUops; ++k) {
    uops.push_back(Uop{static_cast<uint32_t>(uni(0, 7)), static_cast<uint32_t>(uni(0, 7)),
                       static_cast<uint32_t>(uni(0, 7))});
  }
  const DeviceBuffer ubuf = pb.alloc_uops(uops);

  std::vector<Insn>& v = pb.insns();
  int last = kStageNone;  // stage of the previous instruction
  // Serialises `insn` after the previous instruction with a token pair.
  const auto append = [&](Insn insn) {
    const int s = insn.stage();
    const auto relay = [&](int from, int to) {  // through a compute NOP
      Insn nop = make_load_store(kOpLoad, kMemUop, 0, 0, 0, 0, 0);
      if (from == kStageLoad) {
        v.back().push_next_dep = true;
        nop.pop_prev_dep = true;
      } else {
        v.back().push_prev_dep = true;
        nop.pop_next_dep = true;
      }
      (to == kStageStore ? nop.push_next_dep : nop.push_prev_dep) = true;
      v.push_back(nop);
      return kStageCompute;
    };
    int prev = last;
    if ((prev == kStageLoad && s == kStageStore) || (prev == kStageStore && s == kStageLoad)) {
      prev = relay(prev, s);
      (s == kStageStore ? insn.pop_prev_dep : insn.pop_next_dep) = true;
    } else if (prev != kStageNone && prev != s) {
      if (prev < s) {
        v.back().push_next_dep = true;
        insn.pop_prev_dep = true;
      } else {
        v.back().push_prev_dep = true;
        insn.pop_next_dep = true;
      }
    }
    v.push_back(insn);
    last = s;
  };
  // A 2-D tile of a memory type that fits its SRAM and the DRAM buffer.
  // sram_base in [0, max_base]; STOREs read near the acc indices GEMM/ALU write (0..19)
  const auto tile = [&](uint32_t opcode, uint32_t type, const DeviceBuffer& buf, bool pads,
                        int max_base) {
    const uint32_t xs = static_cast<uint32_t>(uni(1, 4)), ys = static_cast<uint32_t>(uni(1, 3));
    const uint32_t stride = xs + static_cast<uint32_t>(uni(0, 3));
    const uint32_t yp0 = pads ? static_cast<uint32_t>(uni(0, 2)) : 0;
    const uint32_t yp1 = pads ? static_cast<uint32_t>(uni(0, 2)) : 0;
    const uint32_t xp0 = pads ? static_cast<uint32_t>(uni(0, 2)) : 0;
    const uint32_t xp1 = pads ? static_cast<uint32_t>(uni(0, 2)) : 0;
    const uint32_t sram = static_cast<uint32_t>(uni(0, max_base));
    const uint32_t dram = buf.elem(cfg, type) + static_cast<uint32_t>(uni(0, 100));
    return make_load_store(opcode, type, sram, dram, ys, xs, stride, {}, yp0, yp1, xp0, xp1);
  };
  const auto loop = [&](bool gemm) {
    UopLoop l;
    l.uop_bgn = static_cast<uint32_t>(uni(0, 6));
    l.uop_end = l.uop_bgn + static_cast<uint32_t>(uni(1, static_cast<int>(kUops - l.uop_bgn)));
    l.iter_out = static_cast<uint32_t>(uni(1, 3));
    l.iter_in = static_cast<uint32_t>(uni(1, 3));
    l.dst_factor_out = static_cast<uint32_t>(uni(0, 3));
    l.dst_factor_in = static_cast<uint32_t>(uni(0, 3));
    l.src_factor_out = static_cast<uint32_t>(uni(0, 3));
    l.src_factor_in = static_cast<uint32_t>(uni(0, 3));
    if (gemm) {
      l.wgt_factor_out = static_cast<uint32_t>(uni(0, 3));
      l.wgt_factor_in = static_cast<uint32_t>(uni(0, 3));
    }
    return l;
  };

  append(make_load_1d(kMemUop, 0, ubuf.elem(cfg, kMemUop), kUops));
  for (int step = 0; step < steps; ++step) {
    switch (uni(0, 8)) {
      case 0:
        append(tile(kOpLoad, kMemInp, inp, true, 40));
        break;
      case 1:
        append(tile(kOpLoad, kMemWgt, wgt, true, 40));
        break;
      case 2:
        append(tile(kOpLoad, kMemAcc, acc, true, 40));
        break;
      case 3:
        append(tile(kOpLoad, kMemAcc8, inp, true, 40));
        break;
      case 4:
      case 5:
        append(make_gemm(loop(true), uni(0, 4) == 0));
        break;
      case 6: {
        const uint32_t op = static_cast<uint32_t>(uni(0, 4));
        const int32_t imm = op == kAluShr ? uni(-9, 9) : uni(-3000, 3000);
        append(make_alu(op, loop(false), uni(0, 1) == 1, imm));
        break;
      }
      default:
        append(tile(kOpStore, kMemOut, prog.out, false, 12));
        break;
    }
  }
  // A fixed tail that always stores computed data: acc[uop dst] += 77 over all micro-ops, then
  // the first 8 out elements to the end of the out buffer; FINISH on compute last.
  append(make_alu(kAluAdd, UopLoop{0, kUops, 1, 1}, true, 77));
  append(make_store_1d(0, prog.out.elem(cfg, kMemOut) + 240, 8));
  append(make_finish());
  return prog;
}

struct Outcome {
  std::vector<uint8_t> out;
  Stats stats;
};

template <class B>
Outcome run_on(const HwConfig& cfg, uint32_t seed, int steps) {
  Dram dram;
  B be(cfg, dram);
  ProgramBuilder pb(cfg, dram);
  const RandomProgram prog = build_random(pb, cfg, seed, steps);
  REQUIRE(pb.run(be) == RunStatus::kOk);
  Outcome o;
  o.out.assign(prog.out.host, prog.out.host + prog.out.bytes);
  o.stats = be.stats();
  return o;
}

class RandomInvoker : public Catch::ITestInvoker {
 public:
  RandomInvoker(std::string config, uint32_t seed) : m_config(std::move(config)), m_seed(seed) {}
  void invoke() const override {
    const HwConfig cfg = HwConfig::from_file(config_path(m_config));
    const int steps = 40;
    INFO("config " << m_config << " seed " << m_seed << " steps " << steps);
    const Outcome f = run_on<FsimBackend>(cfg, m_seed, steps);
    const Outcome r = run_on<RtlBackend>(cfg, m_seed, steps);
    const Outcome c = run_on<CycleBackend>(cfg, m_seed, steps);
    CHECK(r.out == f.out);
    // the program really stored computed data (not just the initial zeros)
    CHECK(std::count_if(r.out.begin(), r.out.end(), [](uint8_t b) { return b != 0; }) > 0);
    CHECK(compare_counters(f.stats, r.stats) == "");
    CHECK(r.stats.cycles == c.stats.cycles);
    for (const auto& n : c.stats.extra) {
      if (n.unit == "ratio" || n.unit == "bytes/cycle" || n.unit == "bytes") {
        continue;
      }
      const NamedCounter* m = r.stats.find(n.name);
      INFO("counter " << n.name);
      REQUIRE(m != nullptr);
      CHECK(m->value == n.value);
    }
  }

 private:
  std::string m_config;
  uint32_t m_seed;
};

bool register_random() {
  for (const std::string& config : RtlBackend::built_configs()) {
    for (uint32_t seed = 1; seed <= 12; ++seed) {
      rtltest::register_test_case("rtl random program " + config + " seed " + std::to_string(seed),
                                  new RandomInvoker(config, seed), "[rtl][random]");
    }
  }
  return true;
}

[[maybe_unused]] const bool registered = register_random();

}  // namespace
