// The program verifier (check_program) against the pairwise oracle (pairwise_race_oracle.h) on
// seeded random small programs, and its FINISH rule on hand-built programs.
#include <array>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "pairwise_race_oracle.h"
#include "test_paths.h"
#include "vta/compiler/check/program_check.h"
#include "vta/runtime_cpp.h"
#include "vta/sim/isa.h"

using namespace vta;
using vta::compiler::ProgramCheck;

namespace {

// Random small programs: few SRAM entries so footprints overlap often, token flags that are
// mostly backed by an earlier push (so most programs replay to the end), FINISH anywhere.
class RandomProgram {
 public:
  explicit RandomProgram(uint64_t seed) : m_rng(seed) {}

  SyncedProgram make(const IsaCodec& codec) {
    SyncedProgram p;
    p.uop_phys = 0x10000;
    for (int k = 0, n = pick(1, 12); k < n; ++k) {
      p.uops.push_back(codec.encode_uop(Uop{pick(0, 15), pick(0, 15), pick(0, 15)}));
    }
    m_queued.fill(0);
    for (int k = 0, n = pick(1, 24); k < n; ++k) {
      Insn in = instruction(p.uop_phys / 4);
      tokens(in);
      p.insns.push_back(codec.encode(in));
    }
    if (pick(0, 3) > 0) {
      Insn finish;
      finish.opcode = kOpFinish;
      tokens(finish);
      p.insns.push_back(codec.encode(finish));
    }
    return p;
  }

 private:
  uint32_t pick(uint32_t lo, uint32_t hi) {
    return std::uniform_int_distribution<uint32_t>(lo, hi)(m_rng);
  }

  Insn memory(uint32_t opcode, uint32_t type) {
    Insn in = mem_insn(opcode, type, pick(0, 12), pick(0, 64), pick(0, 2), pick(0, 3), 4);
    if (opcode == kOpLoad && pick(0, 3) == 0) {
      in.y_pad_0 = pick(0, 1), in.y_pad_1 = pick(0, 1), in.x_pad_0 = pick(0, 1);
      in.x_pad_1 = pick(0, 1);
    }
    return in;
  }

  Insn loop(uint32_t opcode) {
    Insn in;
    in.opcode = opcode;
    in.uop_bgn = pick(0, 7), in.uop_end = pick(0, 10);
    in.iter_out = pick(0, 3), in.iter_in = pick(0, 3);
    in.dst_factor_out = pick(0, 3), in.dst_factor_in = pick(0, 3);
    in.src_factor_out = pick(0, 3), in.src_factor_in = pick(0, 3);
    if (opcode == kOpGemm) {
      in.wgt_factor_out = pick(0, 3), in.wgt_factor_in = pick(0, 3);
      in.reset_reg = pick(0, 4) == 0;
    } else {
      in.alu_opcode = kAluAdd, in.use_imm = pick(0, 1) == 1, in.imm = 1;
    }
    return in;
  }

  Insn instruction(uint32_t uop_image_elem) {
    switch (pick(0, 7)) {
      case 0:
        return memory(kOpLoad, kMemInp);
      case 1:
        return memory(kOpLoad, kMemWgt);
      case 2: {  // a LOAD UOP, sometimes partly outside the image
        Insn in =
            mem_insn(kOpLoad, kMemUop, pick(0, 8), uop_image_elem + pick(0, 10), 1, pick(1, 8), 1);
        return in;
      }
      case 3:
        return memory(kOpLoad, pick(0, 1) ? kMemAcc : kMemAcc8);
      case 4:
        return loop(kOpGemm);
      case 5:
        return loop(kOpAlu);
      default:
        return memory(kOpStore, kMemOut);
    }
  }

  // Queues: 0 load->compute, 1 compute->load, 2 compute->store, 3 store->compute. A pop takes a
  // token pushed earlier in program order, except now and then (deadlocks must occur too).
  bool pop(size_t q) {
    const bool take = pick(0, 2) == 0;
    if (take && (m_queued[q] > 0 || pick(0, 19) == 0)) {
      m_queued[q] -= m_queued[q] > 0 ? 1 : 0;
      return true;
    }
    return false;
  }
  bool push(size_t q) {
    const bool put = pick(0, 2) == 0;
    m_queued[q] += put ? 1 : 0;
    return put;
  }
  void tokens(Insn& in) {
    switch (in.stage()) {
      case kStageLoad:
        in.pop_next_dep = pop(1), in.push_next_dep = push(0);
        break;
      case kStageCompute:
        in.pop_prev_dep = pop(0), in.pop_next_dep = pop(3);
        in.push_prev_dep = push(1), in.push_next_dep = push(2);
        break;
      default:
        in.pop_prev_dep = pop(2), in.push_prev_dep = push(3);
        break;
    }
  }

  std::mt19937_64 m_rng;
  std::array<uint64_t, 4> m_queued{};
};

}  // namespace

TEST_CASE("program verifier: the sweep gives the pairwise oracle's counts and first problem",
          "[verifier]") {
  const uint64_t seed = 20261125;
  const int programs = 4000;
  std::printf("program verifier vs pairwise oracle: seed %llu, %d programs\n",
              static_cast<unsigned long long>(seed), programs);
  const HwConfig cfg = HwConfig::from_file(config_path("pynq"));
  const IsaCodec codec(cfg);
  RandomProgram gen(seed);
  size_t ok = 0, racy = 0, finish_problems = 0, deadlocks = 0;
  for (int k = 0; k < programs; ++k) {
    const SyncedProgram p = gen.make(codec);
    const ProgramCheck got = compiler::check_program(p, cfg);
    const ProgramCheck want = compiler::oracle::pairwise_check_program(p, cfg);
    INFO("seed " << seed << ", program " << k << ": " << want.first_problem);
    CHECK(got.insns == want.insns);
    CHECK(got.checked_pairs == want.checked_pairs);
    CHECK(got.races == want.races);
    CHECK(got.leftover_tokens == want.leftover_tokens);
    CHECK(got.unordered_at_finish == want.unordered_at_finish);
    CHECK(got.first_problem == want.first_problem);
    CHECK(got.ok() == want.ok());
    ok += want.ok() ? 1 : 0;
    racy += want.races > 0 ? 1 : 0;
    finish_problems += want.unordered_at_finish > 0 ? 1 : 0;
    deadlocks += want.first_problem.rfind("deadlock", 0) == 0 ? 1 : 0;
  }
  std::printf("  %zu ok, %zu with races, %zu with instructions FINISH may leave, %zu deadlocks\n",
              ok, racy, finish_problems, deadlocks);
  // Every verdict is exercised.
  CHECK(ok > 50);
  CHECK(racy > 50);
  CHECK(finish_problems > 50);
  CHECK(deadlocks > 50);
}

TEST_CASE("program verifier: an instruction not ordered before FINISH is a problem", "[verifier]") {
  const HwConfig cfg = HwConfig::from_file(config_path("pynq"));
  const IsaCodec codec(cfg);
  auto program = [&](bool tokens) {
    Insn store = mem_insn(kOpStore, kMemOut, 0, 0x100, 1, 1, 1);
    store.push_prev_dep = tokens;  // store -> compute: FINISH waits for the STORE
    Insn finish;
    finish.opcode = kOpFinish;
    finish.pop_next_dep = tokens;
    SyncedProgram p;
    p.insns = {codec.encode(store), codec.encode(finish)};
    return p;
  };
  const ProgramCheck racy = compiler::check_program(program(false), cfg);
  CHECK(!racy.ok());
  CHECK(racy.unordered_at_finish == 1);
  CHECK(racy.first_problem.rfind("instruction 0 (STORE", 0) == 0);
  CHECK(racy.first_problem.find("is not ordered before FINISH (instruction 1) by dependency "
                                "tokens") != std::string::npos);
  const ProgramCheck good = compiler::check_program(program(true), cfg);
  CHECK(good.ok());
  CHECK(good.unordered_at_finish == 0);
}
