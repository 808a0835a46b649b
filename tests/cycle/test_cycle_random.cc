// Random legal programs: the cycle model's event-driven, skip-ahead timing must equal a
// cycle-stepped rendering of the contract (ref_cycle_model.h) exactly, under configs with
// small queues, slow DRAM and short bursts that make arbitration, back-pressure and the fetch
// ping-pong matter. Values are checked against fsim on the same programs.
#include <catch2/catch.hpp>

#include <random>

#include "cycle_test_util.h"
#include "program_builder.h"
#include "ref_cycle_model.h"
#include "software_backends.h"
#include "vta/sim/cycle/cycle_backend.h"

using namespace vta;
using namespace vta::testprog;
using namespace vta::cycletest;

namespace {

uint32_t rnd(std::mt19937& rng, uint32_t lo, uint32_t hi) {  // [lo, hi]
  return std::uniform_int_distribution<uint32_t>(lo, hi)(rng);
}

struct Regions {
  DeviceBuffer inp, wgt, acc, uop, out;
};

// A random LOAD of `type` that fits its SRAM, reading inside `region`.
Insn random_load(const HwConfig& cfg, std::mt19937& rng, uint32_t type, const DeviceBuffer& r,
                 Deps deps) {
  const uint32_t y = rnd(rng, type == kMemUop ? 1 : 0, type == kMemUop ? 1 : 3);
  const uint32_t x = rnd(rng, 1, type == kMemUop ? 12 : 6);
  const uint32_t stride = x + rnd(rng, 0, 3);
  uint32_t pads[4] = {0, 0, 0, 0};
  if (type != kMemUop && rnd(rng, 0, 1) == 1) {
    for (uint32_t& p : pads) {
      p = rnd(rng, 0, 2);
    }
  }
  const uint64_t tile = (pads[0] + y + pads[1]) * static_cast<uint64_t>(pads[2] + x + pads[3]);
  const uint32_t depth = cfg.buff_depth(static_cast<int>(type));
  const uint32_t sram = rnd(rng, 0, static_cast<uint32_t>(std::min<uint64_t>(depth - tile, 64)));
  const uint32_t base = r.elem(cfg, type) + rnd(rng, 0, 9);
  return make_load_store(kOpLoad, type, sram, base, y, x, stride, deps, pads[0], pads[1], pads[2],
                         pads[3]);
}

Insn random_compute(std::mt19937& rng, Deps deps) {
  UopLoop l;
  l.uop_bgn = rnd(rng, 0, 3);
  l.uop_end = l.uop_bgn + rnd(rng, 1, 4);
  l.iter_out = rnd(rng, 1, 4);
  l.iter_in = rnd(rng, 1, 5);
  l.dst_factor_out = rnd(rng, 0, 2);
  l.dst_factor_in = rnd(rng, 0, 2);
  l.src_factor_out = rnd(rng, 0, 2);
  l.src_factor_in = rnd(rng, 0, 2);
  l.wgt_factor_out = rnd(rng, 0, 1);
  l.wgt_factor_in = rnd(rng, 0, 1);
  switch (rnd(rng, 0, 3)) {
    case 0:
      return make_gemm(l, true, deps);
    case 1:
      return make_gemm(l, false, deps);
    default:
      return make_alu(rnd(rng, 0, 4), l, rnd(rng, 0, 1) == 1,
                      static_cast<int32_t>(rnd(rng, 0, 6)) - 3, deps);
  }
}

// T tiles of: load (WGT, INP pushing l2g; from tile 2 on the first load waits for compute's
// g2l of tile t-2), compute (first instruction pops l2g and, from tile 1 on, s2g; a random mix
// of uop/acc loads, GEMM and ALU; the last pushes g2s and, when tile t+2 exists, g2l), store
// (pops g2s, pushes s2g). FINISH pops the last s2g. Random NOPs in between.
std::vector<Insn> random_program(const HwConfig& cfg, std::mt19937& rng, const Regions& r) {
  std::vector<Insn> prog;
  const uint32_t tiles = rnd(rng, 1, 6);
  // Zero micro-ops keep every GEMM/ALU index small; load a few of them first.
  prog.push_back(make_load_1d(kMemUop, 0, r.uop.elem(cfg, kMemUop), 8));
  for (uint32_t t = 0; t < tiles; ++t) {
    prog.push_back(random_load(cfg, rng, kMemWgt, r.wgt, Deps{false, t >= 2, false, false}));
    if (rnd(rng, 0, 3) == 0) {
      prog.push_back(make_load_store(kOpLoad, kMemInp, 0, 0, 0, 0, 0));  // load NOP
    }
    prog.push_back(random_load(cfg, rng, kMemInp, r.inp, Deps{false, false, false, true}));
    const uint32_t n = rnd(rng, 1, 4);
    for (uint32_t k = 0; k < n; ++k) {
      Deps d;
      d.pop_prev = k == 0;
      d.pop_next = k == 0 && t >= 1;
      d.push_next = k == n - 1;
      d.push_prev = k == n - 1 && t + 2 < tiles;
      switch (rnd(rng, 0, 5)) {
        case 0:
          prog.push_back(random_load(cfg, rng, kMemAcc, r.acc, d));
          break;
        case 1:
          prog.push_back(random_load(cfg, rng, kMemAcc8, r.acc, d));
          break;
        case 2:
          prog.push_back(random_load(cfg, rng, kMemUop, r.uop, d));
          break;
        default:
          prog.push_back(random_compute(rng, d));
          break;
      }
    }
    const uint32_t y = rnd(rng, 1, 2), x = rnd(rng, 1, 5);
    prog.push_back(make_load_store(kOpStore, kMemOut, rnd(rng, 0, 20),
                                   r.out.elem(cfg, kMemOut) + rnd(rng, 0, 9), y, x,
                                   x + rnd(rng, 0, 2), Deps{true, false, true, false}));
  }
  prog.push_back(make_finish(false, true));
  return prog;
}

}  // namespace

TEST_CASE("cycle random: skip-ahead model equals the cycle-stepped contract", "[cycle]") {
  const nlohmann::json variants[] = {
      {},
      {{"INSN_QUEUE_DEPTH", 2}, {"DEP_QUEUE_DEPTH", 2}},
      {{"INSN_QUEUE_DEPTH", 1}, {"MAX_BURST_BEATS", 4}, {"BURST_BOUNDARY_BYTES", 64}},
      {{"DRAM_CYCLES_PER_BEAT", 2},
       {"DRAM_READ_LATENCY_CYCLES", 3},
       {"DRAM_WRITE_LATENCY_CYCLES", 1},
       {"INSN_QUEUE_DEPTH", 3}},
      {{"MAX_BURST_BEATS", 2}, {"BURST_BOUNDARY_BYTES", 16}, {"DEP_QUEUE_DEPTH", 3}},
  };
  const char* presets[] = {"pynq", "de10nano", "small", "zcu104", "batch4"};
  const uint32_t base_seed = 20261121;
  int runs = 0;
  for (uint32_t k = 0; k < 60; ++k) {
    const uint32_t seed = base_seed + k;
    std::mt19937 rng(seed);
    const char* preset = presets[k % 5];
    const HwConfig cfg = config_with(preset, variants[(k / 5) % 5]);
    INFO("seed " << seed << " config " << preset << " variant " << (k / 5) % 5);
    std::vector<std::vector<int8_t>> outs;
    for (int which = 0; which < 2; ++which) {
      Dram dram;
      const std::unique_ptr<Backend> be = make_fsim_or_cycle(which == 1, cfg, dram);
      ProgramBuilder pb(cfg, dram);
      Regions r;
      r.inp = pb.alloc(64 * static_cast<size_t>(cfg.inp_elem_bytes));
      r.wgt = pb.alloc(64 * static_cast<size_t>(cfg.wgt_elem_bytes));
      r.acc = pb.alloc(64 * static_cast<size_t>(cfg.acc_elem_bytes));
      r.uop = pb.alloc(4096);
      r.out = pb.alloc(64 * static_cast<size_t>(cfg.out_elem_bytes));
      std::mt19937 fill(seed);
      fill_random_i8(reinterpret_cast<int8_t*>(r.inp.host), r.inp.bytes, -128, 128, fill);
      fill_random_i8(reinterpret_cast<int8_t*>(r.wgt.host), r.wgt.bytes, -128, 128, fill);
      fill_random_i8(reinterpret_cast<int8_t*>(r.acc.host), r.acc.bytes, -128, 128, fill);
      std::mt19937 prng(seed);
      for (const Insn& i : random_program(cfg, prng, r)) {
        pb.push(i);
      }
      const DeviceBuffer stream = pb.emit();
      const uint32_t n = static_cast<uint32_t>(pb.insns().size());
      REQUIRE(be->run(stream.phys, n, 0) == RunStatus::kOk);
      outs.emplace_back(reinterpret_cast<int8_t*>(r.out.host),
                        reinterpret_cast<int8_t*>(r.out.host) + r.out.bytes);
      if (which == 1) {
        RefCycleModel ref(cfg, pb.insns(), stream.phys);
        const RefRun rr = ref.run(10'000'000);
        REQUIRE(rr.finished);
        CHECK(static_cast<CycleBackend&>(*be).last_run_cycles() == rr.cycles);
        // Per unit, busy + idle + stalls partition the run.
        for (const std::string unit : {"load", "compute", "store"}) {
          double sum = 0;
          for (const NamedCounter& c : be->stats().extra) {
            if (c.name.rfind(unit + ".", 0) == 0 && c.name != unit + ".mem_stall_cycles") {
              sum += c.value;
            }
          }
          INFO(unit);
          CHECK(sum == static_cast<double>(rr.cycles));
        }
        ++runs;
      }
    }
    CHECK(outs[0] == outs[1]);
  }
  CHECK(runs == 60);
}

// Far more cycles than any of the small random programs needs (loops of at most 5 x 5 x 4).
constexpr uint64_t kRandomWaitCycles = 1000000;

TEST_CASE("cycle random: arbitrary instruction words never crash or hang", "[cycle]") {
  // Random fields (mostly illegal, some legal, unsynchronised): every run must end with kOk,
  // kTimeout or a ProgramError, never a crash, a hang or another exception type. Loop counts
  // are kept small so that legal instructions stay quick.
  const HwConfig cfg = HwConfig::from_file(config_path("small"));
  const uint32_t seed = 777;
  std::mt19937 rng(seed);
  Dram dram;
  CycleBackend be(cfg, dram);
  ProgramBuilder data_pb(cfg, dram);
  const DeviceBuffer data = data_pb.alloc(1 << 16);
  int ok = 0, errors = 0, timeouts = 0;
  for (int p = 0; p < 300; ++p) {
    INFO("seed " << seed << " program " << p);
    ProgramBuilder pb(cfg, dram);
    std::vector<Insn> prog;
    const uint32_t n = rnd(rng, 1, 10);
    for (uint32_t k = 0; k < n; ++k) {
      Insn i;
      i.opcode = rnd(rng, 0, 5);  // 5: unknown opcode
      i.pop_prev_dep = rnd(rng, 0, 3) == 0;
      i.pop_next_dep = rnd(rng, 0, 3) == 0;
      i.push_prev_dep = rnd(rng, 0, 3) == 0;
      i.push_next_dep = rnd(rng, 0, 3) == 0;
      i.memory_type = rnd(rng, 0, 6);
      i.sram_base = rnd(rng, 0, 3) == 0 ? rnd(rng, 0, 65535) : rnd(rng, 0, 40);
      i.dram_base = rnd(rng, 0, 3) == 0 ? rnd(rng, 0, 0xffffffffu)
                                        : data.elem(cfg, kMemInp) + rnd(rng, 0, 64);
      i.y_size = rnd(rng, 0, 4);
      i.x_size = rnd(rng, 0, 6);
      i.x_stride = rnd(rng, 0, 8);
      i.y_pad_0 = rnd(rng, 0, 2);
      i.x_pad_1 = rnd(rng, 0, 2);
      i.reset_reg = rnd(rng, 0, 1) == 1;
      i.uop_bgn = rnd(rng, 0, 300);
      i.uop_end = i.uop_bgn + rnd(rng, 0, 4);
      i.iter_out = rnd(rng, 0, 5);
      i.iter_in = rnd(rng, 0, 5);
      i.dst_factor_out = rnd(rng, 0, 300);
      i.src_factor_in = rnd(rng, 0, 3);
      i.alu_opcode = rnd(rng, 0, 4);
      i.use_imm = rnd(rng, 0, 1) == 1;
      i.imm = static_cast<int32_t>(rnd(rng, 0, 100)) - 50;
      if (i.opcode == 5) {
        // The encoder refuses unknown opcodes: write the words by hand.
        InsnWords w = IsaCodec(cfg).encode(make_finish());
        w[0] = (w[0] & ~uint64_t{7}) | 5;
        pb.push_raw(w);
        continue;
      }
      try {
        IsaCodec(cfg).encode(i);
      } catch (const ProgramError&) {
        continue;  // a field does not fit: not an instruction
      }
      pb.push(i);
    }
    if (rnd(rng, 0, 4) != 0) {
      pb.push(make_finish(rnd(rng, 0, 3) == 0, rnd(rng, 0, 3) == 0));
    }
    if (pb.insns().empty()) {
      continue;
    }
    try {
      // A cycle bound, so that a livelock ends as kTimeout instead of hanging the test.
      const RunStatus st = pb.run(be, kRandomWaitCycles);
      (st == RunStatus::kOk ? ok : timeouts) += 1;
    } catch (const ProgramError&) {
      ++errors;
    }
  }
  INFO(ok << " ok, " << errors << " errors, " << timeouts << " timeouts");
  CHECK(ok > 0);
  CHECK(errors > 0);
}
