// The contract layer on hand-built instruction sequences, with expectations written from the
// rules in sim/README.md section 1 (a stage starts an instruction when every queue it pops holds
// a token and every queue it pushes has room; queues are FIFO and hold DEP_QUEUE_DEPTH tokens).
#include <catch2/catch.hpp>

#include <cstdio>
#include <cstring>
#include <string>

#include "vta/sim/contract/counter_schema.h"
#include "vta/sim/contract/deadlock_report.h"
#include "vta/sim/contract/dependency_replay.h"
#include "vta/sim/contract/dependency_rule.h"
#include "vta/sim/contract/program_loader.h"
#include "vta/sim/dram.h"
#include "vta/sim/error.h"
#include "vta/sim/hw_config.h"

using namespace vta;

namespace {

Insn with_flags(Insn i, bool pop_prev, bool pop_next, bool push_prev, bool push_next) {
  i.pop_prev_dep = pop_prev;
  i.pop_next_dep = pop_next;
  i.push_prev_dep = push_prev;
  i.push_next_dep = push_next;
  return i;
}
Insn load_inp(bool pop_next = false, bool push_next = false) {
  return with_flags(mem_insn(kOpLoad, kMemInp, 0, 0, 1, 1, 1), false, pop_next, false, push_next);
}
Insn gemm(bool pop_prev = false, bool pop_next = false, bool push_prev = false,
          bool push_next = false) {
  Insn i;
  i.opcode = kOpGemm;
  return with_flags(i, pop_prev, pop_next, push_prev, push_next);
}
Insn store(bool pop_prev = false, bool push_prev = false) {
  return with_flags(mem_insn(kOpStore, kMemOut, 0, 0, 1, 1, 1), pop_prev, false, push_prev, false);
}
std::string hex(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%x", v);
  return buf;
}
Insn finish() {
  Insn i;
  i.opcode = kOpFinish;
  return i;
}

}  // namespace

TEST_CASE("contract: flags name the upstream queues of each stage", "[contract]") {
  // load pushes l2g (next) and pops g2l (next); compute pops l2g (prev) and s2g (next), pushes
  // g2l (prev) and g2s (next); store pops g2s (prev) and pushes s2g (prev).
  CHECK(flag_queue(kFlagPushNext, kStageLoad) == kL2G);
  CHECK(flag_queue(kFlagPopNext, kStageLoad) == kG2L);
  CHECK(flag_queue(kFlagPopPrev, kStageLoad) == -1);
  CHECK(flag_queue(kFlagPopPrev, kStageCompute) == kL2G);
  CHECK(flag_queue(kFlagPopNext, kStageCompute) == kS2G);
  CHECK(flag_queue(kFlagPushPrev, kStageCompute) == kG2L);
  CHECK(flag_queue(kFlagPushNext, kStageCompute) == kG2S);
  CHECK(flag_queue(kFlagPopPrev, kStageStore) == kG2S);
  CHECK(flag_queue(kFlagPushPrev, kStageStore) == kS2G);
  CHECK(flag_queue(kFlagPushNext, kStageStore) == -1);
  const TokenUse u = token_use(gemm(true, false, false, true), kStageCompute);
  CHECK(u.pop(0) == kL2G);
  CHECK(u.pop(1) == -1);
  CHECK(u.push(0) == -1);
  CHECK(u.push(1) == kG2S);
}

TEST_CASE("contract: the start rule names the first blocking flag, pops before pushes",
          "[contract]") {
  const TokenUse u = token_use(gemm(true, true, true, true), kStageCompute);
  TokenCounts t{};  // everything empty
  StartBlock b = start_block(u, t, 2);
  CHECK(b.flag == kFlagPopPrev);
  CHECK(b.queue == kL2G);
  CHECK_FALSE(b.on_push());
  t[kL2G] = 1;
  b = start_block(u, t, 2);
  CHECK(b.flag == kFlagPopNext);
  CHECK(b.queue == kS2G);
  t[kS2G] = 1;
  t[kG2L] = 2;  // full at capacity 2
  b = start_block(u, t, 2);
  CHECK(b.flag == kFlagPushPrev);
  CHECK(b.on_push());
  t[kG2L] = 1;
  CHECK_FALSE(start_block(u, t, 2).blocked());
  pop_tokens(u, t);
  push_tokens(u, t);
  CHECK(t == TokenCounts{0, 2, 0, 1});
}

TEST_CASE("contract: replay orders stages through their tokens (FIFO)", "[contract]") {
  // 0 load push l2g; 1 load push l2g; 2 gemm pop l2g, push g2s; 3 gemm pop l2g; 4 store pop g2s;
  // 5 finish.
  const std::vector<Insn> p = {load_inp(false, true),
                               load_inp(false, true),
                               gemm(true, false, false, true),
                               gemm(true),
                               store(true),
                               finish()};
  const DependencyReplay r = replay_dependencies(p, 2);
  CHECK_FALSE(r.deadlocked());
  // load runs to its end first (stages are tried load, compute, store), then compute, store.
  CHECK(r.order == std::vector<uint32_t>{0, 1, 2, 3, 5, 4});
  CHECK(r.popped_from[2][0] == 0);  // first pop takes the first push
  CHECK(r.popped_from[3][0] == 1);
  CHECK(r.popped_from[4][0] == 2);
  CHECK(r.popped_from[0][0] == -1);
  CHECK(r.left == TokenCounts{0, 0, 0, 0});
}

TEST_CASE("contract: replay reports the stage that waits forever and tokens left", "[contract]") {
  // The store pops g2s that nobody pushes; the load pushes a token nobody pops.
  const std::vector<Insn> p = {load_inp(false, true), store(true), finish()};
  const DependencyReplay r = replay_dependencies(p, 2);
  REQUIRE(r.deadlocked());
  REQUIRE(r.stuck[kStageStore]);
  CHECK(r.stuck[kStageStore]->insn == 1);
  CHECK(r.stuck[kStageStore]->block.queue == kG2S);
  CHECK_FALSE(r.stuck[kStageLoad]);
  CHECK(r.left[kL2G] == 1);
}

TEST_CASE("contract: a push into a full queue blocks the replay at DEP_QUEUE_DEPTH", "[contract]") {
  const std::vector<Insn> p = {load_inp(false, true), load_inp(false, true), load_inp(false, true),
                               finish()};
  const DependencyReplay r = replay_dependencies(p, 2);
  REQUIRE(r.stuck[kStageLoad]);
  CHECK(r.stuck[kStageLoad]->insn == 2);
  CHECK(r.stuck[kStageLoad]->block.flag == kFlagPushNext);
  CHECK(r.left[kL2G] == 2);
  CHECK_FALSE(replay_dependencies(p, UINT64_MAX).deadlocked());
}

TEST_CASE("contract: one wording for deadlocks and missing FINISH", "[contract]") {
  UnitReports u{};
  u[1].kind = UnitReport::kBlocked;
  u[1].insn = 3;
  u[1].opcode = kOpGemm;
  u[1].block = StartBlock{kFlagPopPrev, kL2G};
  u[2].kind = UnitReport::kBlocked;
  u[2].insn = 4;
  u[2].opcode = kOpStore;
  u[2].block = StartBlock{kFlagPushPrev, kS2G};
  CHECK(deadlock_message(u, TokenCounts{0, 1, 8, 0}, 8, "") ==
        "deadlock: no unit can progress and FINISH has not executed: load unit has no "
        "instructions left; compute unit is blocked at instruction 3 (GEMM): pop_prev_dep waits "
        "on queue l2g (empty); store unit is blocked at instruction 4 (STORE): push_prev_dep "
        "waits on queue s2g (full, 8 tokens); tokens l2g=0 g2l=1 s2g=8 g2s=0");
  CHECK(deadlock_message(UnitReports{}, TokenCounts{}, 8, "cycle 7")
            .find("; cycle 7; tokens l2g=0") != std::string::npos);
  CHECK_FALSE(no_instructions_left(u));
  CHECK(no_instructions_left(UnitReports{}));
  CHECK(no_finish_message(5, "") ==
        "fetch unit: no FINISH executed within insn_count = 5 instructions");
  CHECK(no_finish_message(5, "cycle 9") ==
        "fetch unit: no FINISH executed within insn_count = 5 instructions (cycle 9)");
}

TEST_CASE("contract: program loading checks, decodes and routes the stream", "[contract]") {
  const HwConfig cfg = HwConfig::default_config();
  const IsaCodec codec(cfg);
  Dram dram;
  const std::vector<Insn> p = {load_inp(), gemm(), store(), finish()};
  void* buf = dram.alloc(4096);
  const uint32_t phys = dram.phys_addr(buf);
  for (size_t k = 0; k < p.size(); ++k) {
    IsaCodec::store_words(codec.encode(p[k]), dram.host_ptr(phys) + k * kInsnBytes);
  }
  const LoadedProgram lp = load_program(codec, dram, phys, 4);
  CHECK(lp.count() == 4);
  CHECK(lp.insns[2] == p[2]);
  CHECK(lp.per_stage[kStageLoad] == std::vector<uint32_t>{0});
  CHECK(lp.per_stage[kStageCompute] == std::vector<uint32_t>{1, 3});
  CHECK(lp.per_stage[kStageStore] == std::vector<uint32_t>{2});
  CHECK_THROWS_WITH(load_program(codec, dram, phys + 4, 2),
                    "fetch unit: the instruction stream at physical address 0x" + hex(phys + 4) +
                        " is not 16-byte aligned");
  CHECK_THROWS_AS(load_program(codec, dram, 0x10, 1), ProgramError);
  IsaCodec::store_words(codec.encode(finish()), dram.host_ptr(phys));
  std::memset(dram.host_ptr(phys), 0x06, 1);  // opcode 6 with no flags
  CHECK_THROWS_WITH(load_program(codec, dram, phys, 1),
                    Catch::Contains("instruction 0") && Catch::Contains("field 'opcode' = 6"));
}

TEST_CASE("contract: counters are published with units, and ratios over all runs", "[contract]") {
  Stats st;
  st.cycles = 100;
  TimedCounters c;
  c.unit[1].busy = 80;
  c.unit[1].insns = 7;
  c.gemm_active = 50;
  c.read[kClientInp].bytes = 300;
  c.read[kClientInp].bursts = 3;
  publish_counters(st, c);
  REQUIRE(st.find("compute.busy_cycles") != nullptr);
  CHECK(st.find("compute.busy_cycles")->value == 80);
  CHECK(st.find("compute.busy_cycles")->unit == "cycles");
  CHECK(st.find("insns.compute")->value == 7);
  CHECK(st.find("insns.compute")->unit == "instructions");
  CHECK(st.find("compute.stall_l2g_cycles") != nullptr);
  CHECK(st.find("load.stall_l2g_cycles") == nullptr);  // the load stage never pops l2g
  CHECK(st.find("mem.inp.read_bytes")->value == 300);
  CHECK(st.find("gemm.utilization")->value == Approx(0.5));
  CHECK(st.find("mem.read_bandwidth")->value == Approx(3.0));
  st.cycles = 200;  // a second run of 100 cycles, same counts: sums and recomputed ratios
  publish_counters(st, c);
  CHECK(st.find("compute.busy_cycles")->value == 160);
  CHECK(st.find("gemm.utilization")->value == Approx(0.5));
  Stats rtl;
  rtl.cycles = 10;
  c.exact_bytes = false;
  publish_counters(rtl, c);
  CHECK(rtl.find("mem.inp.read_bytes") == nullptr);
  CHECK(rtl.find("mem.read_bandwidth") == nullptr);
  CHECK(rtl.find("mem.inp.bursts")->value == 3);
}
