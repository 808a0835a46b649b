// Several designs in one process: the compiler takes its Target explicitly (and the Target
// its own runtime), so layers compiled for different hardware configs (and backends) can run
// one after the other or on two threads at once, each bit-exact against the plain C++
// reference and each counting the statistics of its own design, whatever ran before or beside.
#include <cstdio>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "test_paths.h"
#include "vta/compiler/check/program_check.h"
#include "vta/compiler/references/reference.h"
#include "vta/compiler/run/layer_runner.h"
#include "vta/compiler/scheduling/auto_schedule.h"

using namespace vta::compiler;
using vta::HwConfig;

namespace {

constexpr uint32_t kSeed = 2718;  // printed by every case that uses it

Target target_of(const char* config, const std::string& backend) {
  return Target(HwConfig::from_file(config_path(config)), backend);
}

// A small seeded conv2d whose 40 input and output channels make the GEMM count depend on the
// block size: 3x3 blocks of 16, 2x2 of 32 and 5x5 of 8.
std::pair<Conv2dParams, Epilogue> seeded_layer(std::mt19937& rng) {
  auto uni = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  Conv2dParams p;
  p.name = "design";
  p.c = 40;
  p.k = 40;
  p.h = uni(5, 10);
  p.w = uni(5, 10);
  p.kh = p.kw = 3;
  p.stride_h = p.stride_w = uni(1, 2);
  p.pad_top = p.pad_bottom = p.pad_left = p.pad_right = 1;
  Epilogue e;
  e.bias = true;
  e.shift = uni(4, 9);
  e.relu = uni(0, 1) == 1;
  e.clip_hi = 127;
  return {p, e};
}

// Runs the layer on the target and checks it against the reference and its design's counters.
LayerRun run_and_check(const Target& target, const Conv2dParams& p, const Epilogue& e,
                       uint64_t data_seed) {
  const HwConfig& cfg = target.config;
  const ConvData data = random_conv_data(p, e, data_seed);
  const ConvSchedule s = auto_schedule(p, e, cfg);
  INFO("config " << cfg.model_name << " backend " << target.backend << ": " << p.describe()
                 << " epilogue " << e.describe() << " schedule " << s.describe());
  const LayerRun r = run_conv2d(target, p, e, s, data, true);
  REQUIRE(r.out == conv2d_reference(p, e, data.x, data.w, data.bias, data.residual));
  REQUIRE(r.mismatches == 0);
  REQUIRE(r.config == cfg.model_name);
  REQUIRE(r.backend == target.backend);
  // Upstream counting rules on this design's blocking.
  const BlockedConv g = BlockedConv::make(p, cfg);
  REQUIRE(r.stats.gemm_counter == g.gemm_uop_count());
  REQUIRE(r.stats.out_store_nbytes == uint64_t(g.nb) * g.ocb * g.oh * g.ow * cfg.out_elem_bytes);
  REQUIRE(r.stats.timed == (target.backend != "fsim"));
  if (r.stats.timed) {
    REQUIRE(r.stats.cycles >= r.stats.gemm_counter);
  }
  return r;
}

// pynq (block 16), block32, small (block 8) and pynq again, all on `backend`.
void designs_one_after_the_other(const std::string& backend) {
  std::printf("designs one after the other on %s: seed %u\n", backend.c_str(), kSeed);
  std::mt19937 rng(kSeed);
  const auto [p, e] = seeded_layer(rng);
  std::vector<uint64_t> gemm;
  for (const char* config : {"pynq", "block32", "small", "pynq"}) {
    INFO("seed " << kSeed << " config " << config);
    gemm.push_back(run_and_check(target_of(config, backend), p, e, kSeed).stats.gemm_counter);
  }
  // The designs really differ, and pynq counts the same after the others ran.
  REQUIRE(gemm[0] != gemm[1]);
  REQUIRE(gemm[0] != gemm[2]);
  REQUIRE(gemm[1] != gemm[2]);
  REQUIRE(gemm[3] == gemm[0]);
}

}  // namespace

TEST_CASE("two designs in one process on fsim", "[targets]") {
  designs_one_after_the_other("fsim");
}

TEST_CASE("two designs in one process on the cycle backend", "[targets][cycle]") {
  designs_one_after_the_other("cycle");
}

TEST_CASE("designs and backends interleaved in one process", "[targets][cycle]") {
  std::printf("designs and backends interleaved: seed %u\n", kSeed + 1);
  std::mt19937 rng(kSeed + 1);
  const auto [p, e] = seeded_layer(rng);
  const std::pair<const char*, const char*> sequence[] = {{"pynq", "cycle"},
                                                          {"small", "fsim"},
                                                          {"block32", "cycle"},
                                                          {"pynq", "fsim"},
                                                          {"small", "cycle"}};
  for (const auto& [config, backend] : sequence) {
    INFO("seed " << kSeed + 1 << " config " << config << " backend " << backend);
    run_and_check(target_of(config, backend), p, e, kSeed + 1);
  }
}

TEST_CASE("matmuls for two batch sizes in one process", "[targets]") {
  std::printf("matmuls for two batch sizes: seed %u\n", kSeed + 2);
  MatmulParams p;
  p.m = 10, p.k = 40, p.n = 24;
  Epilogue e;
  e.bias = true;
  e.shift = 5;
  const MatmulData data = random_matmul_data(p, e, kSeed + 2);
  const std::vector<int8_t> ref = matmul_reference(p, e, data.a, data.b, data.bias);
  for (const char* config : {"pynq", "batch4", "pynq"}) {
    INFO("seed " << kSeed + 2 << " config " << config);
    const Target target = target_of(config, "fsim");
    const HwConfig& cfg = target.config;
    const Conv2dParams conv = matmul_as_conv(p, cfg);
    REQUIRE(conv.n == int(cfg.batch));
    const LayerRun r = run_matmul(target, p, e, auto_schedule(conv, e, cfg), data, /*check=*/true);
    REQUIRE(r.out == ref);
    REQUIRE(r.stats.gemm_counter == BlockedConv::make(conv, cfg).gemm_uop_count());
  }
}

TEST_CASE("the program verifier is a compiler step the target switches", "[targets]") {
  std::mt19937 rng(kSeed);
  const auto [p, e] = seeded_layer(rng);
  Target target = target_of("pynq", "fsim");
  size_t checked = 0;
  target.on_program_check = [&](const ProgramCheck& c) {
    REQUIRE(c.ok());
    REQUIRE(c.checked_pairs > 0);
    ++checked;
  };
  run_and_check(target, p, e, kSeed);
  REQUIRE(checked == 1);  // one synchronisation, verified before it ran
  target.verify_programs = false;
  run_and_check(target, p, e, kSeed);
  REQUIRE(checked == 1);
}

namespace {

// What one run produced, compared between a run alone and the same run on a thread.
struct DesignRun {
  std::vector<int8_t> out;
  vta::Stats stats;
  std::string error;
};

DesignRun run_design(const char* config, const std::string& backend, const Conv2dParams& p,
                     const Epilogue& e, uint64_t data_seed) {
  DesignRun d;
  try {
    const Target target = target_of(config, backend);
    const ConvData data = random_conv_data(p, e, data_seed);
    const LayerRun r =
        run_conv2d(target, p, e, auto_schedule(p, e, target.config), data, /*check=*/true);
    d.out = r.out;
    d.stats = r.stats;
  } catch (const std::exception& ex) {
    d.error = ex.what();
  }
  return d;
}

// Two designs compiled and run on two threads at the same time, each `rounds` times: every
// round matches the C++ reference and is bit-exact (outputs and every counter, cycles included)
// with the same design run alone on this thread. Catch's assertions stay on this thread.
void two_designs_on_two_threads(const std::pair<const char*, const char*> (&designs)[2],
                                uint32_t seed) {
  std::printf("two designs on two threads (%s/%s, %s/%s): seed %u\n", designs[0].first,
              designs[0].second, designs[1].first, designs[1].second, seed);
  std::mt19937 rng(seed);
  const auto [p, e] = seeded_layer(rng);
  const ConvData data = random_conv_data(p, e, seed);
  const std::vector<int8_t> ref = conv2d_reference(p, e, data.x, data.w, data.bias, data.residual);
  constexpr int kRounds = 3;
  DesignRun alone[2];
  std::vector<DesignRun> threaded[2];
  for (int i = 0; i < 2; ++i) {
    alone[i] = run_design(designs[i].first, designs[i].second, p, e, seed);
    INFO("seed " << seed << " design " << designs[i].first << "/" << designs[i].second);
    REQUIRE(alone[i].error.empty());
    REQUIRE(alone[i].out == ref);
  }
  std::vector<std::thread> threads;
  for (int i = 0; i < 2; ++i) {
    threads.emplace_back([&, i] {
      for (int round = 0; round < kRounds; ++round) {
        threaded[i].push_back(run_design(designs[i].first, designs[i].second, p, e, seed));
      }
    });
  }
  for (std::thread& t : threads) {
    t.join();
  }
  for (int i = 0; i < 2; ++i) {
    REQUIRE(threaded[i].size() == size_t(kRounds));
    for (const DesignRun& d : threaded[i]) {
      INFO("seed " << seed << " design " << designs[i].first << "/" << designs[i].second);
      REQUIRE(d.error.empty());
      REQUIRE(d.out == ref);
      REQUIRE(d.stats.to_json().dump() == alone[i].stats.to_json().dump());
      REQUIRE(d.stats.cycles == alone[i].stats.cycles);
    }
  }
}

}  // namespace

TEST_CASE("two designs on fsim on two threads at the same time", "[targets][threads]") {
  two_designs_on_two_threads({{"pynq", "fsim"}, {"block32", "fsim"}}, kSeed + 3);
}

TEST_CASE("fsim and cycle designs on two threads at the same time", "[targets][threads][cycle]") {
  two_designs_on_two_threads({{"pynq", "cycle"}, {"block32", "fsim"}}, kSeed + 4);
}

TEST_CASE("two cycle designs on two threads take turns in SystemC", "[targets][threads][cycle]") {
  two_designs_on_two_threads({{"pynq", "cycle"}, {"block32", "cycle"}}, kSeed + 5);
}

#ifdef VTA_TEST_HAVE_RTL
TEST_CASE("rtl and cycle designs on two threads take turns in SystemC", "[targets][threads][rtl]") {
  two_designs_on_two_threads({{"pynq", "rtl"}, {"block32", "cycle"}}, kSeed + 6);
}
#endif
