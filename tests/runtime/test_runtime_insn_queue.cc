// Cross-check of the runtime's dependency machinery against the functional simulator, two
// independent implementations of the token rules: random sequences of loads, compute-stage
// loads, stores and VTADepPush/VTADepPop-style calls go through InsnQueue (flag folding, NOPs,
// upstream's final syncs); whenever InsnQueue::check_tokens accepts the stream, fsim must run it
// to FINISH, and whenever fsim reports a deadlock, check_tokens must have rejected it.
#include <random>
#include <vector>

#include <catch2/catch.hpp>

#include "insn_queue.h"
#include "runtime_test_util.h"
#include "vta/sim/fsim.h"

using namespace vta;

TEST_CASE("random dependency streams: the runtime's deadlock check agrees with fsim", "[runtime]") {
  const HwConfig& cfg = HwConfig::default_config();
  const uint32_t seed = rt_test::test_seed();
  INFO("seed " << seed);
  std::mt19937 rng(seed);
  Dram dram;
  const auto alloc = [&](size_t bytes) { return dram.phys_addr(dram.alloc(bytes)); };
  const uint32_t inp = alloc(cfg.inp_elem_bytes), acc = alloc(cfg.acc_elem_bytes);
  const uint32_t out = alloc(cfg.out_elem_bytes), insn_buf = alloc(1 << 16);
  const std::pair<int, int> pairs[] = {{1, 2}, {2, 1}, {2, 3}, {3, 2}};
  int accepted = 0, rejected = 0;
  for (int trial = 0; trial < 400; ++trial) {
    INFO("trial " << trial);
    InsnQueue q(cfg);
    const int ops = std::uniform_int_distribution<int>(1, 30)(rng);
    for (int k = 0; k < ops; ++k) {
      const int what = std::uniform_int_distribution<int>(0, 4)(rng);
      const auto [from, to] = pairs[std::uniform_int_distribution<int>(0, 3)(rng)];
      Insn in;
      in.y_size = 1;
      in.x_size = in.x_stride = 1;
      switch (what) {
        case 0:  // load stage
          in.opcode = kOpLoad;
          in.memory_type = kMemInp;
          in.dram_base = inp / cfg.inp_elem_bytes;
          q.push(in);
          break;
        case 1:  // compute stage
          in.opcode = kOpLoad;
          in.memory_type = kMemAcc;
          in.dram_base = acc / cfg.acc_elem_bytes;
          q.push(in);
          break;
        case 2:  // store stage
          in.opcode = kOpStore;
          in.memory_type = kMemOut;
          in.dram_base = out / cfg.out_elem_bytes;
          q.push(in);
          break;
        case 3:
          q.dep_push(from, to);
          break;
        default:
          q.dep_pop(from, to);
          break;
      }
    }
    // Upstream's final syncs, as VTASynchronize appends them.
    q.dep_push(kStageStore, kStageCompute);
    q.dep_push(kStageLoad, kStageCompute);
    q.dep_pop(kStageStore, kStageCompute);
    q.dep_pop(kStageLoad, kStageCompute);
    q.commit_pending_pop(kStageCompute);
    bool ok = true;
    try {
      q.check_tokens();
    } catch (const ProgramError&) {
      ok = false;
    }
    Insn finish;
    finish.opcode = kOpFinish;
    q.push(finish);
    for (size_t i = 0; i < q.size(); ++i) {
      IsaCodec::store_words(q.words()[i], dram.host_ptr(insn_buf) + i * kInsnBytes);
    }
    FsimBackend fsim(cfg, dram);
    bool fsim_ok = true;
    std::string fsim_error;
    try {
      fsim.run(insn_buf, static_cast<uint32_t>(q.size()), 0);
    } catch (const ProgramError& e) {
      fsim_ok = false;
      fsim_error = e.what();
    }
    INFO("fsim: " << fsim_error);
    if (ok) {
      CHECK(fsim_ok);  // every stage completes, so FINISH is reached
    }
    if (!fsim_ok) {
      CHECK_FALSE(ok);  // FINISH unreachable: the compute stage is stuck
    }
    (ok ? accepted : rejected)++;
  }
  // Both outcomes were exercised.
  CHECK(accepted > 40);
  CHECK(rejected > 40);
}
