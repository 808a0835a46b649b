// Robustness: thousands of random instruction streams (fully random words and plausible
// instructions near valid ranges) either run or stop with a ProgramError; never a crash, a hang
// or another exception. Seeded; the seed of a failing program is printed.
#include <catch2/catch.hpp>

#include <array>
#include <random>
#include <string>

#include "program_builder.h"
#include "vta/sim/error.h"
#include "vta/sim/fsim.h"

using namespace vta;
using namespace vta::testprog;

namespace {

// A plausible instruction: valid opcode, small fields, addresses inside `buf` most of the time.
Insn plausible(std::mt19937& rng, const HwConfig& cfg, const DeviceBuffer& buf) {
  auto u = [&](uint32_t lo, uint32_t hi) {
    return std::uniform_int_distribution<uint32_t>(lo, hi)(rng);
  };
  Insn i;
  i.opcode = u(0, 9) == 0 ? u(0, 7) : std::array<uint32_t, 5>{0, 1, 2, 3, 4}[u(0, 4)];
  // Mostly legal memory types and flags (for the instruction's unit), sometimes anything.
  const bool wild = u(0, 9) == 0;
  i.memory_type = wild                   ? u(0, 7)
                  : i.opcode == kOpStore ? uint32_t{kMemOut}
                                         : std::array<uint32_t, 5>{0, 1, 2, 3, 5}[u(0, 4)];
  const Stage stage = i.stage();
  i.pop_prev_dep = (wild || stage >= kStageCompute) && u(0, 7) == 0;
  i.pop_next_dep = (wild || stage <= kStageCompute) && u(0, 7) == 0;
  i.push_prev_dep = (wild || stage >= kStageCompute) && u(0, 5) == 0;
  i.push_next_dep = (wild || stage <= kStageCompute) && u(0, 5) == 0;
  const uint32_t e = i.memory_type <= 5
                         ? static_cast<uint32_t>(cfg.elem_bytes(static_cast<int>(i.memory_type)))
                         : 16;
  i.sram_base = u(0, 3) == 0 ? u(0, 65535) : u(0, 64);
  i.dram_base = u(0, 7) == 0 ? u(0, UINT32_MAX) : buf.phys / e + u(0, 8);
  i.y_size = u(0, 4);
  i.x_size = u(0, 6);
  i.x_stride = u(0, 8);
  if (i.opcode == kOpStore && !wild) {
    return i;  // no padding
  }
  i.y_pad_0 = u(0, 2);
  i.y_pad_1 = u(0, 2);
  i.x_pad_0 = u(0, 2);
  i.x_pad_1 = u(0, 2);
  i.reset_reg = u(0, 3) == 0;
  i.uop_bgn = u(0, 8);
  i.uop_end = u(0, 5) == 0 ? u(0, cfg.uop_buff_depth) : i.uop_bgn + u(0, 4);
  i.iter_out = u(0, 4);
  i.iter_in = u(0, 4);
  i.dst_factor_out = u(0, 40);
  i.dst_factor_in = u(0, 40);
  i.src_factor_out = u(0, 40);
  i.src_factor_in = u(0, 40);
  i.wgt_factor_out = u(0, 20);
  i.wgt_factor_in = u(0, 20);
  i.alu_opcode = wild ? u(0, 7) : u(0, 4);
  i.use_imm = u(0, 1);
  i.imm = static_cast<int32_t>(u(0, 65535)) - 32768;
  return i;
}

}  // namespace

TEST_CASE("fsim survives random instruction streams", "[fsim]") {
  const HwConfig cfg = HwConfig::default_config();
  const IsaCodec codec(cfg);
  Dram dram;
  FsimBackend fsim(cfg, dram);
  ProgramBuilder data(cfg, dram);
  const DeviceBuffer buf = data.alloc(64 * 1024);
  std::mt19937 fill(5);
  fill_random_i8(reinterpret_cast<int8_t*>(buf.host), buf.bytes, -128, 128, fill);
  int ran = 0, rejected = 0;
  for (uint32_t seed = 1; seed <= 3000; ++seed) {
    std::mt19937 rng(seed);
    fsim.set_stage_order_seed(seed % 3);
    ProgramBuilder pb(cfg, dram);
    const int n = std::uniform_int_distribution<int>(1, 12)(rng);
    for (int k = 0; k < n; ++k) {
      if (seed % 4 == 0) {
        pb.push_raw(InsnWords{(static_cast<uint64_t>(rng()) << 32) | rng(),
                              (static_cast<uint64_t>(rng()) << 32) | rng()});
        continue;
      }
      Insn i = plausible(rng, cfg, buf);
      try {
        pb.push_raw(codec.encode(i));
      } catch (const ProgramError&) {
        pb.push_raw(InsnWords{i.opcode, 0});  // a field did not fit: use the bare opcode
      }
    }
    if (seed % 2 == 0) {
      pb.push(make_finish());
    }
    INFO("program seed " << seed);
    try {
      pb.run(fsim);
      ++ran;
    } catch (const ProgramError& e) {
      // Ran to FINISH, which then named the instructions that never started (issue 10 item 5).
      const bool ran_to_finish = std::string(e.what()).rfind("FINISH (instruction", 0) == 0;
      ++(ran_to_finish ? ran : rejected);
    }
  }
  INFO("ran " << ran << ", rejected " << rejected);
  CHECK(ran > 300);
  CHECK(rejected > 100);
}
