// Exact-cycle tests of the cycle model against the timing contract (sim/README.md): each
// expected count is computed in the test from the contract's formulas (cycle_test_util.h) or
// derived by hand in the comments, never copied from the model's output.
#include <catch2/catch.hpp>

#include "cycle_test_util.h"
#include "program_builder.h"
#include "vta/sim/cycle/cycle_backend.h"

using namespace vta;
using namespace vta::testprog;
using namespace vta::cycletest;

namespace {

double counter(const Stats& s, const std::string& name) {
  const NamedCounter* c = s.find(name);
  REQUIRE(c != nullptr);
  return c->value;
}

// Runs `insns` and returns the run's cycle count.
uint64_t run_cycles(CycleBackend& be, ProgramBuilder& pb) {
  REQUIRE(pb.run(be) == RunStatus::kOk);
  return be.last_run_cycles();
}

// A lone LOAD or STORE followed by FINISH, synchronised by one token when the instruction is
// not in the compute unit. Returns {measured, expected} cycles.
std::pair<uint64_t, uint64_t> lone_memory_insn(const HwConfig& cfg, Insn insn) {
  Dram dram;
  CycleBackend be(cfg, dram);
  ProgramBuilder pb(cfg, dram);
  const uint64_t e = ref_dram_elem(cfg, insn.memory_type);
  // Enough DRAM for every row (the test's dram_base is relative to the buffer start).
  const uint64_t span = (static_cast<uint64_t>(insn.y_size) * insn.x_stride + insn.x_size) * e;
  const DeviceBuffer buf = pb.alloc(span + 4096);
  insn.dram_base += static_cast<uint32_t>(buf.phys / e);
  const Stage stage = insn.stage();
  bool pop_prev = false, pop_next = false;
  if (stage == kStageLoad) {
    insn.push_next_dep = true;  // l2g -> FINISH pop_prev
    pop_prev = true;
  } else if (stage == kStageStore) {
    insn.push_prev_dep = true;  // s2g -> FINISH pop_next
    pop_next = true;
  }
  pb.push(insn);
  pb.push(make_finish(pop_prev, pop_next));
  const uint64_t measured = run_cycles(be, pb);

  const RefFetch f = ref_fetch_one_burst(cfg, 2);
  RefReadChannel ch{cfg, f.read_free};
  const uint64_t s = f.visible[0];
  const uint64_t end = insn.x_size == 0          ? s
                       : insn.opcode == kOpStore ? ref_store_end(cfg, insn, s)
                                                 : ref_load_end(cfg, insn, s, ch);
  // FINISH starts when visible, after the unit's instruction (same unit: E+1; other unit:
  // token visible at E+1), and ends the run in its start cycle.
  const uint64_t finish = std::max(f.visible[1], end + 1);
  return {measured, finish + 1};
}

}  // namespace

TEST_CASE("cycle timing: the worked example of sim/README.md takes 61 cycles", "[cycle]") {
  const HwConfig cfg = HwConfig::from_file(fixed_config_path("pynq"));
  Dram dram;
  CycleBackend be(cfg, dram);
  ProgramBuilder pb(cfg, dram);
  const DeviceBuffer uops = pb.alloc_uops({Uop{0, 0, 0}});
  const DeviceBuffer inp = pb.alloc(4096);
  const DeviceBuffer out = pb.alloc(4096);
  pb.push(make_load_1d(kMemUop, 0, uops.elem(cfg, kMemUop), 1));
  pb.push(make_load_1d(kMemInp, 0, inp.elem(cfg, kMemInp), 1, Deps{false, false, false, true}));
  pb.push(make_gemm(UopLoop{}, false, Deps{true, false, false, true}));
  pb.push(make_store_1d(0, out.elem(cfg, kMemOut), 1, Deps{true, false, true, false}));
  pb.push(make_finish(false, true));
  CHECK(run_cycles(be, pb) == 61);
  const Stats& st = be.stats();
  CHECK(st.cycles == 61);
  // Busy spans from the worked example: LOAD UOP 20..38, GEMM 42..47, FINISH 60.
  CHECK(counter(st, "compute.busy_cycles") == (38 - 20 + 1) + (47 - 42 + 1) + 1);
  CHECK(counter(st, "load.busy_cycles") == 41 - 22 + 1);
  CHECK(counter(st, "store.busy_cycles") == 59 - 48 + 1);
  CHECK(counter(st, "compute.stall_l2g_cycles") == 42 - 39);  // 39..41
  CHECK(counter(st, "compute.stall_s2g_cycles") == 60 - 48);  // 48..59
  CHECK(counter(st, "gemm.active_cycles") == 1);
  for (const char* unit : {"load", "compute", "store"}) {
    double sum = counter(st, std::string(unit) + ".busy_cycles") +
                 counter(st, std::string(unit) + ".idle_cycles");
    for (const auto& c : st.extra) {
      if (c.name.rfind(std::string(unit) + ".stall_", 0) == 0) {
        sum += c.value;
      }
    }
    INFO(unit);
    CHECK(sum == 61);
  }
  // Latency per client, grant to last beat (reads: Lr + beats - 1 with one burst alone on the
  // channel) or to the write response (beats + Lw): fetch reads 5 instructions = 10 beats, uop 1
  // beat, inp one 16-byte element = 2 beats; the store writes 2 beats. Lr = 16, Lw = 8.
  const std::pair<const char*, double> latency[] = {{"mem.fetch.read", 16 + 10 - 1},
                                                    {"mem.uop.read", 16 + 1 - 1},
                                                    {"mem.inp.read", 16 + 2 - 1},
                                                    {"mem.store.write", 2 + 8}};
  for (const auto& [prefix, cycles] : latency) {
    INFO(prefix);
    CHECK(counter(st, std::string(prefix) + "_latency_avg_cycles") == cycles);
    CHECK(counter(st, std::string(prefix) + "_latency_max_cycles") == cycles);
    CHECK(counter(st, std::string(prefix) + "_latency_total_cycles") == cycles);
  }
  CHECK(counter(st, "mem.wgt.read_latency_avg_cycles") == 0);  // no wgt burst
}

TEST_CASE("cycle timing: lone LOAD of each type and shape", "[cycle]") {
  for (const char* preset : {"pynq", "de10nano", "ultra96", "batch4", "small"}) {
    const HwConfig cfg = HwConfig::from_file(fixed_config_path(preset));
    struct Shape {
      uint32_t type, y, x, stride, yp0, yp1, xp0, xp1, base;
    };
    const Shape shapes[] = {
        {kMemInp, 1, 1, 1, 0, 0, 0, 0, 0},     {kMemInp, 3, 5, 7, 0, 0, 0, 0, 0},
        {kMemInp, 2, 4, 4, 1, 2, 3, 1, 0},     {kMemInp, 1, 40, 40, 0, 0, 0, 0, 3},
        {kMemInp, 2, 130, 200, 0, 0, 0, 0, 5}, {kMemWgt, 1, 1, 1, 0, 0, 0, 0, 0},
        {kMemWgt, 1, 9, 9, 0, 0, 0, 0, 0},     {kMemWgt, 2, 3, 5, 1, 0, 0, 1, 1},
        {kMemAcc, 1, 2, 2, 0, 0, 0, 0, 0},     {kMemAcc, 2, 3, 3, 1, 1, 1, 1, 1},
        {kMemAcc8, 2, 3, 4, 0, 1, 2, 0, 1},    {kMemUop, 1, 1, 1, 0, 0, 0, 0, 0},
        {kMemUop, 1, 7, 7, 0, 0, 0, 0, 1},     {kMemUop, 1, 600, 600, 0, 0, 0, 0, 3},
        {kMemInp, 0, 2, 2, 1, 1, 0, 0, 0},     {kMemInp, 1, 0, 0, 1, 1, 1, 1, 0},
    };
    for (const Shape& sh : shapes) {
      Insn insn = make_load_store(kOpLoad, sh.type, 0, sh.base, sh.y, sh.x, sh.stride, {}, sh.yp0,
                                  sh.yp1, sh.xp0, sh.xp1);
      const uint64_t w = sh.xp0 + sh.x + sh.xp1, h = sh.yp0 + sh.y + sh.yp1;
      if (w * h > cfg.buff_depth(static_cast<int>(sh.type))) {
        continue;  // does not fit this config's buffer
      }
      const auto [measured, expected] = lone_memory_insn(cfg, insn);
      INFO(preset << ": " << disassemble(insn));
      CHECK(measured == expected);
    }
  }
}

TEST_CASE("cycle timing: lone STORE, single and multi-burst rows", "[cycle]") {
  for (const char* preset : {"pynq", "de10nano", "zcu104", "batch4"}) {
    const HwConfig cfg = HwConfig::from_file(fixed_config_path(preset));
    const uint32_t shapes[][4] = {
        {1, 1, 1, 0}, {2, 3, 5, 0}, {1, 200, 200, 3}, {3, 20, 64, 1}, {0, 4, 4, 0}};
    for (const auto& s : shapes) {
      const Insn insn = make_load_store(kOpStore, kMemOut, 0, s[3], s[0], s[1], s[2]);
      const auto [measured, expected] = lone_memory_insn(cfg, insn);
      INFO(preset << ": " << disassemble(insn));
      CHECK(measured == expected);
    }
  }
}

TEST_CASE("cycle timing: DRAM_CYCLES_PER_BEAT and latencies from the config", "[cycle]") {
  const HwConfig cfg = config_with("pynq", {{"DRAM_CYCLES_PER_BEAT", 3},
                                            {"DRAM_READ_LATENCY_CYCLES", 7},
                                            {"DRAM_WRITE_LATENCY_CYCLES", 5},
                                            {"MAX_BURST_BEATS", 8},
                                            {"BURST_BOUNDARY_BYTES", 32}});
  for (const Insn& insn : {make_load_store(kOpLoad, kMemInp, 0, 1, 2, 5, 9),
                           make_load_store(kOpLoad, kMemWgt, 0, 0, 1, 2, 2, {}, 0, 0, 1, 0),
                           make_load_store(kOpStore, kMemOut, 0, 3, 2, 7, 11)}) {
    const auto [measured, expected] = lone_memory_insn(cfg, insn);
    INFO(disassemble(insn));
    CHECK(measured == expected);
  }
}

TEST_CASE("cycle timing: lone GEMM and ALU of N uop iterations", "[cycle]") {
  const HwConfig cfg = HwConfig::from_file(fixed_config_path("pynq"));
  std::vector<Insn> cases;
  for (uint32_t n : {1u, 2u, 7u, 100u}) {
    cases.push_back(make_gemm(UopLoop{0, n, 1, 1}, false));
    cases.push_back(make_gemm(UopLoop{0, 1, n, 3, 0, 0}, true));
    cases.push_back(make_alu(kAluAdd, UopLoop{0, 1, 1, n}, true, 3));
    cases.push_back(make_alu(kAluMax, UopLoop{0, 1, 1, n}, false, 0));
  }
  cases.push_back(make_gemm(UopLoop{0, 4, 3, 5}, false));  // 60 iterations
  cases.push_back(make_gemm(UopLoop{0, 0, 3, 5}, false));  // N = 0
  cases.push_back(make_alu(kAluShr, UopLoop{2, 5, 2, 2}, false, 0));
  for (const Insn& insn : cases) {
    Dram dram;
    CycleBackend be(cfg, dram);
    ProgramBuilder pb(cfg, dram);
    pb.push(insn);
    pb.push(make_finish());
    const uint64_t measured = run_cycles(be, pb);
    const RefFetch f = ref_fetch_one_burst(cfg, 2);
    const uint64_t e = ref_compute_end(insn, f.visible[0]);
    INFO(disassemble(insn));
    CHECK(measured == std::max(f.visible[1], e + 1) + 1);
    const double gemm =
        insn.opcode == kOpGemm && !insn.reset_reg ? static_cast<double>(ref_n(insn)) : 0;
    CHECK(counter(be.stats(), "gemm.active_cycles") == gemm);
  }
}

TEST_CASE("cycle timing: fixed-priority burst arbitration (uop before wgt)", "[cycle]") {
  // LOAD WGT with 2 padding elements (load unit, eligible S+3 = 23) and LOAD UOP (compute,
  // eligible 23) compete in cycle 23: uop (client 1) wins over wgt (client 3). The GEMM of 1000
  // iterations that follows the uop load shows when it ended.
  const HwConfig cfg = HwConfig::from_file(fixed_config_path("pynq"));
  Dram dram;
  CycleBackend be(cfg, dram);
  ProgramBuilder pb(cfg, dram);
  const DeviceBuffer wgt = pb.alloc(9 * 256 + 4096);
  const DeviceBuffer uops = pb.alloc_uops({Uop{0, 0, 0}});
  const Insn lw = make_load_store(kOpLoad, kMemWgt, 0, wgt.elem(cfg, kMemWgt), 1, 9, 9,
                                  Deps{false, false, false, true}, 0, 0, 1, 1);
  const Insn lu = make_load_1d(kMemUop, 0, uops.elem(cfg, kMemUop), 1);
  const Insn gemm = make_gemm(UopLoop{0, 1, 10, 100}, false);
  pb.push(lw);
  pb.push(lu);
  pb.push(gemm);
  pb.push(make_finish(true, false));
  const uint64_t measured = run_cycles(be, pb);

  const RefFetch f = ref_fetch_one_burst(cfg, 4);
  RefReadChannel ch{cfg, f.read_free};
  REQUIRE(f.visible[0] + ref_pad(lw) + 1 == f.visible[1] + 1);  // both eligible in one cycle
  const uint64_t g = f.visible[1] + 1;
  const uint64_t uop_end = ch.grant(g, 1) + 1;       // uop granted first
  const uint64_t w0 = ch.grant(g + 1, 256);          // then wgt burst 0 (2048 bytes)
  const uint64_t wgt_end = ch.grant(g + 2, 32) + 1;  // and burst 1 (256 bytes)
  (void)w0;
  const uint64_t gemm_end = std::max(uop_end + 1, f.visible[2]) + 1000 + 4;
  const uint64_t finish = std::max({f.visible[3], gemm_end + 1, wgt_end + 1});
  CHECK(measured == finish + 1);
}

TEST_CASE("cycle timing: a full instruction queue back-pressures fetch", "[cycle]") {
  const HwConfig cfg = config_with("pynq", {{"INSN_QUEUE_DEPTH", 2}});
  Dram dram;
  CycleBackend be(cfg, dram);
  ProgramBuilder pb(cfg, dram);
  std::vector<Insn> prog = {make_gemm(UopLoop{0, 1, 1, 100}, false)};
  for (uint32_t k = 0; k < 6; ++k) {
    prog.push_back(make_gemm(UopLoop{0, 1, 1, 1 + k}, false));
  }
  prog.push_back(make_finish());
  for (const Insn& i : prog) {
    pb.push(i);
  }
  const uint64_t measured = run_cycles(be, pb);

  // All instructions go to compute. Instruction i may be dispatched once instruction i-depth
  // has started (its slot is visible the cycle after): D_i >= S_{i-2} + 1, besides
  // D_i >= arrival + 1 and D_i >= D_{i-1} + 1. S_i = max(D_i + 1, E_{i-1} + 1).
  const uint64_t first = 1 + cfg.dram_read_latency_cycles;
  std::vector<uint64_t> d(prog.size()), s(prog.size()), e(prog.size());
  uint64_t stall = 0;
  for (size_t i = 0; i < prog.size(); ++i) {
    const uint64_t arrive = first + 2 * i + 1;
    uint64_t ready = arrive + 1;
    if (i > 0) {
      ready = std::max(ready, d[i - 1] + 1);
    }
    d[i] = i >= 2 ? std::max(ready, s[i - 2] + 1) : ready;
    stall += d[i] - ready;
    s[i] = std::max(d[i] + 1, i > 0 ? e[i - 1] + 1 : 0);
    e[i] = prog[i].opcode == kOpFinish ? s[i] : ref_compute_end(prog[i], s[i]);
  }
  CHECK(measured == e.back() + 1);
  CHECK(counter(be.stats(), "fetch.stall_queue_full_cycles") == static_cast<double>(stall));
  CHECK(stall > 0);
}

TEST_CASE("cycle timing: a full dependency queue delays the pushing instruction", "[cycle]") {
  // DEP_QUEUE_DEPTH 1: the second LOAD waits until the first GEMM has popped the l2g token.
  const HwConfig cfg = config_with("pynq", {{"DEP_QUEUE_DEPTH", 1}});
  Dram dram;
  CycleBackend be(cfg, dram);
  ProgramBuilder pb(cfg, dram);
  const DeviceBuffer inp = pb.alloc(4096);
  const Deps push_next{false, false, false, true}, pop_prev{true, false, false, false};
  const Insn l0 = make_load_1d(kMemInp, 0, inp.elem(cfg, kMemInp), 1, push_next);
  const Insn l1 = make_load_1d(kMemInp, 1, inp.elem(cfg, kMemInp) + 1, 1, push_next);
  const Insn g0 = make_gemm(UopLoop{0, 1, 1, 200}, false, pop_prev);
  const Insn g1 = make_gemm(UopLoop{0, 1, 1, 1}, false, pop_prev);
  for (const Insn& i : {l0, l1, g0, g1, make_finish()}) {
    pb.push(i);
  }
  const uint64_t measured = run_cycles(be, pb);

  const RefFetch f = ref_fetch_one_burst(cfg, 5);
  RefReadChannel ch{cfg, f.read_free};
  const uint64_t e0 = ref_load_end(cfg, l0, f.visible[0], ch);
  const uint64_t sg0 = std::max(f.visible[2], e0 + 1);            // token visible E0 + 1
  const uint64_t s1 = std::max({f.visible[1], e0 + 1, sg0 + 1});  // room visible after the pop
  const uint64_t e1 = ref_load_end(cfg, l1, s1, ch);
  const uint64_t eg0 = ref_compute_end(g0, sg0);
  const uint64_t sg1 = std::max({f.visible[3], eg0 + 1, e1 + 1});
  const uint64_t eg1 = ref_compute_end(g1, sg1);
  const uint64_t fin = std::max(f.visible[4], eg1 + 1);
  CHECK(measured == fin + 1);
  CHECK(counter(be.stats(), "load.stall_l2g_full_cycles") ==
        static_cast<double>(s1 - std::max(f.visible[1], e0 + 1)));
}

TEST_CASE("cycle timing: two-burst ping-pong fetch of a long stream", "[cycle]") {
  // de10nano: 16-beat bursts of 8 instructions; instruction queues of 2 entries. 40 GEMMs of
  // 1 iteration: compute is slower than fetch, so dispatch stalls on the full queue and the
  // ping-pong rule (burst k waits for burst k-2 to be dispatched) holds fetch back.
  const HwConfig cfg = config_with("de10nano", {{"INSN_QUEUE_DEPTH", 2}});
  Dram dram;
  CycleBackend be(cfg, dram);
  ProgramBuilder pb(cfg, dram);
  const int n = 40;
  for (int k = 0; k < n - 1; ++k) {
    pb.push(make_gemm(UopLoop{0, 1, 1, 1}, false));
  }
  pb.push(make_finish());
  const uint64_t measured = run_cycles(be, pb);

  // Burst k (8 instructions = 16 beats) is posted in max(last beat of k-1, dispatch of the last
  // instruction of burst k-2), eligible one cycle later, and granted then (only client).
  const uint64_t lr = cfg.dram_read_latency_cycles;
  const int per = 8, bursts = n / per;
  std::vector<uint64_t> last_beat(bursts), d(n), s(n), e(n);
  uint64_t free = 0;
  int next = 0;
  for (int k = 0; k < bursts; ++k) {
    uint64_t post = 0;
    if (k >= 1) {
      post = std::max(post, last_beat[k - 1]);
    }
    if (k >= 2) {
      post = std::max(post, d[(k - 1) * per - 1]);
    }
    const uint64_t first = std::max(post + 1 + lr, free);
    free = first + 16;
    last_beat[k] = first + 15;
    for (int j = 0; j < per; ++j, ++next) {
      const uint64_t arrive = first + 2 * j + 1;
      d[next] = std::max(arrive + 1, next > 0 ? d[next - 1] + 1 : 0);
      if (next >= 2) {
        d[next] = std::max(d[next], s[next - 2] + 1);  // queue of 2: room once i-2 started
      }
      s[next] = std::max(d[next] + 1, next > 0 ? e[next - 1] + 1 : 0);
      e[next] = next == n - 1 ? s[next] : s[next] + 1 + 4;
    }
    // Dispatch of later bursts depends on earlier ones only, so this order is exact.
  }
  CHECK(measured == e[n - 1] + 1);
}

TEST_CASE("cycle timing: upstream gemm_test chain (load, compute, store with tokens)", "[cycle]") {
  for (const char* preset : {"pynq", "de10nano", "block32"}) {
    const HwConfig cfg = HwConfig::from_file(fixed_config_path(preset));
    Dram dram;
    CycleBackend be(cfg, dram);
    ProgramBuilder pb(cfg, dram);
    // gemm_test(batch 1, in 4 blocks, out 4 blocks): 16 uncompressed uops.
    const uint32_t in = 4, out = 4;
    std::vector<Uop> uops;
    for (uint32_t k = 0; k < out; ++k) {
      for (uint32_t j = 0; j < in; ++j) {
        uops.push_back(Uop{k, j, k * in + j});
      }
    }
    const DeviceBuffer ub = pb.alloc_uops(uops);
    const DeviceBuffer acc = pb.alloc(out * cfg.acc_elem_bytes + 4096);
    const DeviceBuffer wgt = pb.alloc(in * out * cfg.wgt_elem_bytes + 4096);
    const DeviceBuffer inp = pb.alloc(in * cfg.inp_elem_bytes + 4096);
    const DeviceBuffer res = pb.alloc(out * cfg.out_elem_bytes + 4096);
    const uint32_t nu = static_cast<uint32_t>(uops.size());
    const std::vector<Insn> prog = {
        make_load_1d(kMemUop, 0, ub.elem(cfg, kMemUop), nu),
        make_load_1d(kMemAcc, 0, acc.elem(cfg, kMemAcc), out, Deps{false, false, true, false}),
        make_load_1d(kMemWgt, 0, wgt.elem(cfg, kMemWgt), in * out, Deps{false, true, false, false}),
        make_load_1d(kMemInp, 0, inp.elem(cfg, kMemInp), in, Deps{false, false, false, true}),
        make_gemm(UopLoop{0, nu, 1, 1}, false, Deps{true, false, false, true}),
        make_store_1d(0, res.elem(cfg, kMemOut), out, Deps{true, false, true, false}),
        make_finish(false, true)};
    for (const Insn& i : prog) {
      pb.push(i);
    }
    const uint64_t measured = run_cycles(be, pb);

    // The loads are strictly ordered by their tokens, so they use memory one after the other.
    const RefFetch f = ref_fetch_one_burst(cfg, 7);
    RefReadChannel ch{cfg, f.read_free};
    const auto& v = f.visible;
    const uint64_t e0 = ref_load_end(cfg, prog[0], v[0], ch);
    const uint64_t e1 = ref_load_end(cfg, prog[1], std::max(v[1], e0 + 1), ch);  // g2l push
    const uint64_t e2 = ref_load_end(cfg, prog[2], std::max(v[2], e1 + 1), ch);  // pops g2l
    const uint64_t e3 = ref_load_end(cfg, prog[3], std::max(v[3], e2 + 1), ch);  // l2g push
    const uint64_t s4 = std::max({v[4], e1 + 1, e3 + 1});
    const uint64_t e4 = ref_compute_end(prog[4], s4);
    const uint64_t e5 = ref_store_end(cfg, prog[5], std::max(v[5], e4 + 1));
    const uint64_t s6 = std::max({v[6], e4 + 1, e5 + 1});
    INFO(preset);
    CHECK(measured == s6 + 1);
    CHECK(be.stats().gemm_counter == nu);
  }
}
