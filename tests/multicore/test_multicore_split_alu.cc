// Grouped convolutions and ALU layers divided over the cores of a system (docs/multicore.md,
// "Grouped convolutions and ALU layers"): a depthwise convolution's group sets (whole, or by
// column tiles when they do not divide over the cores), a max or average pool's tiles (channel
// blocks, and rows when there are fewer blocks than cores) and a clamped sum's or a product's
// tiles go to 2 and 3 cores in one run of all cores. On fsim and the cycle model the output is
// the single core's and the plain C++ reference's, the cores' GEMM and ALU micro-ops and stored
// bytes add up to the single core's, and on the cycle model the divided layer is faster.
#include <algorithm>
#include <array>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "random_bytes.h"
#include "run/group_sets_on_cores.h"
#include "test_paths.h"
#include "vta/compiler/frontend/network.h"
#include "vta/compiler/run/alu_runner.h"
#include "vta/compiler/run/grouped_conv_runner.h"
#include "vta/compiler/run/network_split.h"
#include "vta/compiler/scheduling/auto_schedule.h"

using namespace vta;
using namespace vta::compiler;
using Catch::Matchers::Contains;

namespace {

// pynq_fixed, with CORES = cores (0: the single core, no CORES key) and the channel split.
Target target_on(const std::string& backend, int cores) {
  nlohmann::json j = HwConfig::from_file(config_path("pynq_fixed")).to_json();
  if (cores > 0) {
    j["CORES"] = cores;
  }
  Target t(HwConfig::from_json(j, "pynq_fixed with CORES"), backend);
  t.layer_split = cores > 0 ? LayerSplit::kChannels : LayerSplit::kNone;
  return t;
}

// A depthwise 3x3 convolution, pad 1, stride 1, the plain way: per channel the window sum plus
// the bias, shifted right (arithmetic), ReLU, at most 127.
std::vector<int8_t> depthwise_reference(int c, int hw, const std::vector<int8_t>& x,
                                        const std::vector<int8_t>& w,
                                        const std::vector<int32_t>& bias, int shift) {
  std::vector<int8_t> out(size_t(c) * hw * hw);
  for (int ch = 0; ch < c; ++ch) {
    for (int y = 0; y < hw; ++y) {
      for (int xo = 0; xo < hw; ++xo) {
        int32_t sum = bias[size_t(ch)];
        for (int ky = 0; ky < 3; ++ky) {
          for (int kx = 0; kx < 3; ++kx) {
            const int iy = y + ky - 1, ix = xo + kx - 1;
            if (iy >= 0 && iy < hw && ix >= 0 && ix < hw) {
              sum += int32_t(x[(size_t(ch) * hw + iy) * hw + ix]) * w[size_t(ch) * 9 + ky * 3 + kx];
            }
          }
        }
        out[(size_t(ch) * hw + y) * hw + xo] = int8_t(std::clamp(sum >> shift, 0, 127));
      }
    }
  }
  return out;
}

// A 3x3 max pool, stride 2, pad 1 (padding never wins) over C x H x W.
std::vector<int8_t> maxpool_reference(int c, int h, int w, const std::vector<int8_t>& x) {
  const int oh = (h + 2 - 3) / 2 + 1, ow = (w + 2 - 3) / 2 + 1;
  std::vector<int8_t> out(size_t(c) * oh * ow);
  for (int ch = 0; ch < c; ++ch) {
    for (int y = 0; y < oh; ++y) {
      for (int xo = 0; xo < ow; ++xo) {
        int m = -128;
        for (int iy = std::max(0, 2 * y - 1); iy <= std::min(h - 1, 2 * y + 1); ++iy) {
          for (int ix = std::max(0, 2 * xo - 1); ix <= std::min(w - 1, 2 * xo + 1); ++ix) {
            m = std::max(m, int(x[(size_t(ch) * h + iy) * w + ix]));
          }
        }
        out[(size_t(ch) * oh + y) * ow + xo] = int8_t(m);
      }
    }
  }
  return out;
}

PoolWindow pool_window(int c, int hw) {
  PoolWindow p;
  p.c = c, p.h = p.w = hw, p.kh = p.kw = 3, p.stride_h = p.stride_w = 2;
  p.pad_top = p.pad_left = 1;
  p.oh = p.ow = (hw + 2 - 3) / 2 + 1;
  return p;
}

// What a divided run must keep of the single core's: the output, every GEMM and ALU micro-op
// and every stored byte once; on the cycle model a run no shorter than its slowest core.
void check_divided(const LayerRun& alone, const LayerRun& split, const std::vector<int8_t>& ref,
                   int cores, const std::string& backend) {
  CHECK(alone.out == ref);
  CHECK(split.out == ref);
  CHECK((split.checked && split.mismatches == 0));
  CHECK_THAT(split.split, Contains(fmt::format("on {} cores", cores)));
  CHECK(split.stats.gemm_counter == alone.stats.gemm_counter);
  CHECK(split.stats.alu_counter == alone.stats.alu_counter);
  CHECK(split.stats.out_store_nbytes == alone.stats.out_store_nbytes);
  if (backend == "cycle") {
    for (int k = 0; k < cores; ++k) {
      const NamedCounter* c = split.stats.find(fmt::format("core{}.cycles", k));
      REQUIRE(c != nullptr);
      CHECK(double(split.stats.cycles) >= c->value);
    }
  }
}

}  // namespace

TEST_CASE("multicore split: a depthwise convolution's group sets on 2 and 3 cores",
          "[multicore][split][grouped]") {
  const uint32_t seed = 4021;
  INFO("seed " << seed);
  std::mt19937 rng(seed);
  const int c = 64, hw = 16, shift = 6;  // 64 channels: 4 sets of 16 (pynq's block)
  Conv2dParams whole;
  whole.name = "dw";
  whole.n = 1, whole.c = whole.k = c, whole.h = whole.w = hw, whole.kh = whole.kw = 3;
  whole.pad_top = whole.pad_bottom = whole.pad_left = whole.pad_right = 1;
  Epilogue e;
  e.bias = true, e.shift = shift, e.relu = true, e.clip_hi = 127;
  ConvData data;
  data.x = random_bytes(size_t(c) * hw * hw, rng);
  data.w = random_bytes(size_t(c) * 9, rng);
  std::uniform_int_distribution<int32_t> b(-2000, 2000);
  for (int k = 0; k < c; ++k) {
    data.bias.push_back(b(rng));
  }
  const std::vector<int8_t> ref = depthwise_reference(c, hw, data.x, data.w, data.bias, shift);
  for (const std::string backend : {"fsim", "cycle"}) {
    const Target one = target_on(backend, 0);
    const GroupedConvSplit g = GroupedConvSplit::make(whole, c, one.config);
    REQUIRE(g.sets == 4);
    ConvSchedule s = auto_schedule(g.set, e, one.config);
    s.tile_w = 8;  // 2 column tiles of the 16 output columns
    REQUIRE(TilePlan::make(g.set, e, s, one.config).w_tiles == 2);
    const LayerRun alone = run_conv2d_in_group_sets(one, g, e, s, data, &ref);
    CHECK(alone.split.empty());
    for (const int cores : {2, 3}) {
      INFO(backend << " on " << cores << " cores");
      const LayerRun r = run_conv2d_in_group_sets(target_on(backend, cores), g, e, s, data, &ref);
      check_divided(alone, r, ref, cores, backend);
      // 4 sets on 2 cores: 2 + 2 sets; on 3 cores the 8 (set, column tile) pairs: 3 + 3 + 2.
      CHECK(r.split ==
            (cores == 2 ? "channels: 4 group sets of 16 groups: 2 + 2 on 2 cores"
                        : "channels: 4 group sets of 16 groups x 2 column tiles: 3 + 3 + 2 on 3 "
                          "cores"));
      if (backend == "cycle") {
        CHECK(r.stats.cycles < alone.stats.cycles);
      }
    }
  }
}

TEST_CASE("multicore split: group sets shared by column tiles when they do not divide",
          "[multicore][grouped]") {
  const HwConfig cfg = target_on("fsim", 0).config;
  Conv2dParams whole;
  whole.c = whole.k = 96, whole.h = whole.w = 8, whole.kh = whole.kw = 3;
  const GroupedConvSplit g = GroupedConvSplit::make(whole, 96, cfg);  // 6 sets of 16
  REQUIRE(g.sets == 6);
  // 6 sets x 4 column tiles on 4 cores: 6 pairs each, sets 1 and 4 shared.
  const GroupSetSplit s = split_group_sets(g, 4, 4);
  CHECK(s.why == "6 group sets of 16 groups x 4 column tiles: 6 + 6 + 6 + 6 on 4 cores");
  auto pieces = [&](size_t k) {
    std::vector<std::array<int, 3>> v;
    for (const GroupSetPiece& p : s.cores[k]) {
      v.push_back({p.set, p.wt_begin, p.wt_end});
    }
    return v;
  };
  REQUIRE(s.cores.size() == 4);
  CHECK(pieces(0) == std::vector<std::array<int, 3>>{{0, 0, 4}, {1, 0, 2}});
  CHECK(pieces(1) == std::vector<std::array<int, 3>>{{1, 2, 4}, {2, 0, 4}});
  CHECK(pieces(2) == std::vector<std::array<int, 3>>{{3, 0, 4}, {4, 0, 2}});
  CHECK(pieces(3) == std::vector<std::array<int, 3>>{{4, 2, 4}, {5, 0, 4}});
  // 6 sets on 2 or 3 cores, or one column tile: whole sets.
  CHECK(split_group_sets(g, 4, 3).why == "6 group sets of 16 groups: 2 + 2 + 2 on 3 cores");
  CHECK(split_group_sets(g, 1, 4).why == "6 group sets of 16 groups: 2 + 2 + 1 + 1 on 4 cores");
  CHECK(pieces(3).size() == 2);
}

TEST_CASE("multicore split: a max pool's and a sum's tiles on 2 and 3 cores",
          "[multicore][split][alu]") {
  const uint32_t seed = 977;
  INFO("seed " << seed);
  std::mt19937 rng(seed);
  struct Case {
    int c, hw;  // 64 channels: 4 blocks; 16: one block, divided by rows
  };
  for (const Case k : {Case{64, 32}, Case{16, 32}}) {
    const std::vector<int8_t> x = random_bytes(size_t(k.c) * k.hw * k.hw, rng);
    const std::vector<int8_t> y = random_bytes(x.size(), rng);
    const std::vector<int8_t> pool_ref = maxpool_reference(k.c, k.hw, k.hw, x);
    std::vector<int8_t> sum_ref(x.size());
    for (size_t i = 0; i < x.size(); ++i) {
      sum_ref[i] = int8_t(std::clamp(int(x[i]) + int(y[i]), 0, 100));  // ReLU, clip at 100
    }
    const PoolWindow pw = pool_window(k.c, k.hw);
    for (const std::string backend : {"fsim", "cycle"}) {
      const Target one = target_on(backend, 0);
      const AluAddPlan plan = AluAddPlan::make(1, k.c, k.hw, k.hw, 0, 100, one.config);
      const LayerRun pool1 = run_alu_pool(one, "pool", pw, x, &pool_ref);
      const LayerRun add1 = run_alu_add(one, "add", plan, x, y, &sum_ref);
      for (const int cores : {2, 3}) {
        INFO(backend << ", " << k.c << " channels on " << cores << " cores");
        const Target t = target_on(backend, cores);
        const LayerRun pool = run_alu_pool(t, "pool", pw, x, &pool_ref);
        check_divided(pool1, pool, pool_ref, cores, backend);
        const LayerRun add = run_alu_add(t, "add", plan, x, y, &sum_ref);
        check_divided(add1, add, sum_ref, cores, backend);
        if (backend == "cycle") {
          CHECK(pool.stats.cycles < pool1.stats.cycles);
          CHECK(add.stats.cycles < add1.stats.cycles);
        }
      }
    }
  }
}

TEST_CASE("multicore split: an average pool and a per-channel product on 2 and 3 cores",
          "[multicore][split][alu]") {
  const uint32_t seed = 3301;
  INFO("seed " << seed);
  std::mt19937 rng(seed);
  const int c = 32, hw = 16, plane = hw * hw;  // 2 channel blocks
  const std::vector<int8_t> x = random_bytes(size_t(c) * plane, rng);
  const std::vector<int8_t> scale = random_bytes(size_t(c), rng);
  // 2x2/2 average: the sum of 4 over 4, rounded half away from zero (ALU: a shift by 2).
  PoolWindow avg;
  avg.c = c, avg.h = avg.w = hw, avg.kh = avg.kw = 2, avg.stride_h = avg.stride_w = 2;
  avg.oh = avg.ow = hw / 2, avg.average = true, avg.finish = round_shift_steps(2, 1);
  std::vector<int8_t> avg_ref;
  for (int ch = 0; ch < c; ++ch) {
    for (int y = 0; y < hw / 2; ++y) {
      for (int xo = 0; xo < hw / 2; ++xo) {
        int sum = 0;
        for (int k = 0; k < 4; ++k) {
          sum += x[size_t(ch) * plane + size_t(2 * y + k / 2) * hw + size_t(2 * xo + k % 2)];
        }
        avg_ref.push_back(int8_t(sum >= 0 ? (sum + 2) / 4 : -((-sum + 2) / 4)));
      }
    }
  }
  // x times its channel's value, saturated to int8.
  std::vector<int8_t> mul_ref(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    mul_ref[i] = int8_t(std::clamp(int(x[i]) * int(scale[i / size_t(plane)]), -128, 127));
  }
  for (const std::string backend : {"fsim", "cycle"}) {
    const Target one = target_on(backend, 0);
    const AluAddPlan mul = AluAddPlan::make_binary(1, c, hw, hw, true, {AluStep{kAluMul, 0, true}},
                                                   -128, 127, one.config);
    const LayerRun avg1 = run_alu_pool(one, "avg", avg, x, &avg_ref);
    const LayerRun mul1 = run_alu_add(one, "mul", mul, x, scale, &mul_ref);
    for (const int cores : {2, 3}) {
      INFO(backend << " on " << cores << " cores");
      const Target t = target_on(backend, cores);
      check_divided(avg1, run_alu_pool(t, "avg", avg, x, &avg_ref), avg_ref, cores, backend);
      check_divided(mul1, run_alu_add(t, "mul", mul, x, scale, &mul_ref), mul_ref, cores, backend);
    }
  }
}

TEST_CASE("multicore split: the tiles of an ALU program cut for the cores", "[multicore][alu]") {
  const HwConfig cfg = target_on("fsim", 0).config;
  // One channel block of 16 output rows in one tile: cut to rows for 3 cores (6 + 6 + 4 rows,
  // ceil(16 / 3) per tile).
  const AluPoolPlan one = AluPoolPlan::make(pool_window(16, 32), cfg);
  REQUIRE(one.tiles() == 1);
  const AluPoolPlan three = one.with_tiles(3, cfg);
  CHECK(three.tile_oh == 6);
  CHECK(three.tiles() == 3);
  CHECK(one.with_tiles(1, cfg).tile_oh == one.tile_oh);
  // 1024 elements (4 blocks of 16x16) in one tile: 2 tiles of 512 for 2 cores; a per-channel b
  // of 4 planes on 8 cores: each plane in 2 parts of 128.
  const AluAddPlan sum = AluAddPlan::make(1, 64, 16, 16, -128, 127, cfg);
  REQUIRE(sum.tiles() == 1);
  CHECK(sum.with_tiles(2, cfg).tile == 512);
  const AluAddPlan scale =
      AluAddPlan::make_binary(1, 64, 16, 16, true, {AluStep{kAluMul, 0, true}}, -128, 127, cfg);
  const AluAddPlan parts = scale.with_tiles(8, cfg);
  CHECK(parts.tiles_per_plane == 2);
  CHECK(parts.tile == 128);
  CHECK(parts.tiles() == 8);
}

namespace {

// A grouped convolution of 2 sets, a 1x1 convolution of one output-channel block and a small
// add (1x16x8x8, which the placement puts on VTA: the host's per-layer overhead is larger).
Network grouped_alu_network() {
  return Network::from_json(nlohmann::json::parse(R"({
    "name": "grouped_alu_net", "seed": 3, "input": {"name": "data", "n": 1, "c": 32, "h": 8, "w": 8},
    "layers": [
      {"name": "g", "op": "conv2d", "input": "data", "k": 32, "kernel": 3, "pad": 1, "groups": 2,
       "epilogue": {"bias": true, "shift": 8, "relu": true, "clip_hi": 127}},
      {"name": "c", "op": "conv2d", "input": "g", "k": 16, "kernel": 1,
       "epilogue": {"shift": 7, "clip_lo": -128, "clip_hi": 127}},
      {"name": "sum", "op": "add", "input": "c", "residual": "c", "epilogue": {"relu": true}}]})"),
                            "grouped_alu_net.json");
}

}  // namespace

TEST_CASE("multicore split: a network's grouped convolution and add on 2 cores, rtl = cycle",
          "[multicore][split][grouped]") {
  const Network net = grouped_alu_network();
  const std::vector<int8_t> expected = reference_network_tensors(net).at("sum").data;
  std::vector<uint64_t> cycle_model;  // each layer's cycles on 2 cores of the cycle model
  for (const std::string backend : {"fsim", "cycle", "rtl"}) {
    INFO(backend);
    Target one = target_on(backend, 0);
    const NetworkRun alone = run_network(one, net, NetworkOptions{});
    REQUIRE(alone.output == expected);
    Target two = target_on(backend, 2);
    NetworkOptions opt;
    opt.layer_split = LayerSplit::kChannels;
    const NetworkRun r = run_network(two, net, opt);
    CHECK(r.output == expected);
    REQUIRE(r.runs.size() == 3);  // every layer on VTA
    CHECK(r.runs[0].split == "channels: 2 group sets of 1 group: 1 + 1 on 2 cores");
    CHECK(r.runs[1].split == "channels: 1 output-channel block: core 0 alone");
    CHECK(r.runs[2].split ==
          "channels: 2 tiles (64 elements: 1 channel block of 8x8): 1 + 1 on 2 cores");
    for (size_t i = 0; i < r.runs.size(); ++i) {
      CHECK((r.runs[i].checked && r.runs[i].mismatches == 0));
      CHECK(r.runs[i].stats.gemm_counter == alone.runs[i].stats.gemm_counter);
      CHECK(r.runs[i].stats.alu_counter == alone.runs[i].stats.alu_counter);
      if (backend == "cycle") {
        cycle_model.push_back(r.runs[i].stats.cycles);
      } else if (backend == "rtl") {  // rtl cycle for cycle with the cycle model
        CHECK(r.runs[i].stats.cycles == cycle_model.at(i));
      }
    }
  }
  // The cost model: the grouped layer's 2 sets and the add's tiles shared by 2 cores make the
  // channel candidate's estimate smaller than the single core's (the 1x1 layer's is the same).
  const SplitChoice c = choose_network_split(net, target_on("fsim", 2).config, NetworkSplit::kAuto);
  CHECK(c.split == NetworkSplit::kChannels);
  REQUIRE(c.candidates.size() >= 2);
  CHECK(c.candidates[1].est_cycles < c.candidates[0].est_cycles);
}
