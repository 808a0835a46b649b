// Cross-check of the runtime's dependency machinery against the functional simulator, two
// independent implementations of the token rules: random sequences of loads, compute-stage
// loads, stores and VTADepPush/VTADepPop-style calls go through InsnQueue (flag folding, NOPs,
// upstream's final syncs); whenever InsnQueue::check_tokens accepts the stream, fsim must run it
// to FINISH, and whenever fsim reports a deadlock, check_tokens must have rejected it. The same
// calls under FORCE_SERIAL must always give a stream that passes both.
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
    struct Op {
      int what, from, to;
    };
    std::vector<Op> program;
    const int ops = std::uniform_int_distribution<int>(1, 30)(rng);
    for (int k = 0; k < ops; ++k) {
      const auto [from, to] = pairs[std::uniform_int_distribution<int>(0, 3)(rng)];
      program.push_back({std::uniform_int_distribution<int>(0, 4)(rng), from, to});
    }
    const auto build = [&](InsnQueue& q) {
      for (const Op& op : program) {
        Insn in;
        in.y_size = 1;
        in.x_size = in.x_stride = 1;
        switch (op.what) {
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
            q.dep_push(op.from, op.to);
            break;
          default:
            q.dep_pop(op.from, op.to);
            break;
        }
      }
    };
    Insn finish;
    finish.opcode = kOpFinish;
    const auto run_fsim = [&](const InsnQueue& q, std::string* error) {
      for (size_t i = 0; i < q.size(); ++i) {
        IsaCodec::store_words(q.words()[i], dram.host_ptr(insn_buf) + i * kInsnBytes);
      }
      FsimBackend fsim(cfg, dram);
      try {
        fsim.run(insn_buf, static_cast<uint32_t>(q.size()), 0);
      } catch (const ProgramError& e) {
        *error = e.what();
        return false;
      }
      return true;
    };
    {
      // FORCE_SERIAL rewrites whatever the calls said into a stream that always completes.
      InsnQueue serial(cfg);
      build(serial);
      serial.rewrite_force_serial();
      CHECK_NOTHROW(serial.check_tokens());
      serial.push(finish);
      std::string error;
      const bool serial_ok = run_fsim(serial, &error);
      INFO("fsim (serial): " << error);
      CHECK(serial_ok);
    }
    InsnQueue q(cfg);
    build(q);
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
    q.push(finish);
    std::string fsim_error;
    const bool fsim_ok = run_fsim(q, &fsim_error);
    INFO("fsim: " << fsim_error);
    // FINISH reached, but a load or store the final syncs do not order before it (tokens left
    // over from the calls) had not started: an error naming them since issue 10 item 5.
    const bool left_at_finish = fsim_error.rfind("FINISH (instruction", 0) == 0;
    if (ok) {
      CHECK((fsim_ok || left_at_finish));  // every stage completes, so FINISH is reached
    }
    if (!fsim_ok && !left_at_finish) {
      CHECK_FALSE(ok);  // FINISH unreachable: the compute stage is stuck
    }
    (ok ? accepted : rejected)++;
  }
  // Both outcomes were exercised.
  CHECK(accepted > 40);
  CHECK(rejected > 40);
}
