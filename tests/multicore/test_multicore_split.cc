// The compiler's splits over the cores of a system (compiler/include/vta/compiler/run/
// core_split.h, network_split.h, pipeline_split.h): a small network of conv2d and dense layers
// on 2 and 3 cores, split by output channels, by batch and as a pipeline of its layers,
// bit-exact with its single-core run and with the network's plain C++ reference on fsim, the
// cycle model and rtl (rtl cycle for cycle with the cycle model); the choice of the cost model
// and the pipeline's stages where the answer is known by hand; the errors of splits that cannot
// run.
#include <map>
#include <string>

#include <fmt/format.h>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "test_paths.h"
#include "vta/compiler/frontend/network.h"
#include "vta/compiler/run/core_split.h"
#include "vta/compiler/run/network_split.h"
#include "vta/compiler/run/pipeline_split.h"
#include "vta/compiler/scheduling/auto_schedule.h"
#include "vta/sim/error.h"

using namespace vta;
using namespace vta::compiler;
using Catch::Matchers::Contains;

namespace {

HwConfig with_cores(int cores) {
  nlohmann::json j = HwConfig::from_file(config_path("pynq_fixed")).to_json();
  if (cores > 0) {
    j["CORES"] = cores;
  }
  return HwConfig::from_json(j, "pynq_fixed with CORES");
}

// Batch 2; 64 output channels = 4 blocks of 16 (3 cores: 2 + 1 + 1), a residual, a strided
// 1x1, a dense layer of 40 units (3 blocks, the last one partial).
Network small_network(int batch) {
  nlohmann::json j = nlohmann::json::parse(R"({
    "name": "split_net", "seed": 11, "input": {"name": "data", "n": 2, "c": 16, "h": 8, "w": 8},
    "layers": [
      {"name": "c1", "op": "conv2d", "input": "data", "k": 64, "kernel": 3, "pad": 1,
       "epilogue": {"bias": true, "shift": 10, "relu": true, "clip_hi": 127}},
      {"name": "c2", "op": "conv2d", "input": "c1", "k": 64, "kernel": 3, "pad": 1,
       "residual": "c1", "epilogue": {"shift": 11, "relu": true, "clip_hi": 127}},
      {"name": "down", "op": "conv2d", "input": "c2", "k": 48, "kernel": 1, "stride": 2,
       "epilogue": {"shift": 9, "clip_lo": -128, "clip_hi": 127}},
      {"name": "fc", "op": "dense", "input": "down", "units": 40,
       "epilogue": {"bias": true, "shift": 10, "clip_lo": -128, "clip_hi": 127}}]})");
  j["input"]["n"] = batch;
  return Network::from_json(j, "split_net.json");
}

NetworkRun run_on(const std::string& backend, int cores, LayerSplit split, const Network& net) {
  Target target(with_cores(cores), backend);
  NetworkOptions opt;
  opt.layer_split = split;
  return run_network(target, net, opt);
}

double counter(const Stats& s, const std::string& name) {
  const NamedCounter* c = s.find(name);
  return c ? c->value : -1.0;
}

}  // namespace

TEST_CASE("multicore split: channels and batch bit-exact with one core and the reference",
          "[multicore][split]") {
  const Network net = small_network(2);
  const auto ref = reference_network_tensors(net);
  const std::vector<int8_t>& expected = ref.at("fc").data;
  std::map<std::string, uint64_t> cycle_model;  // each split layer's cycles on the cycle model
  for (const std::string backend : {"fsim", "cycle", "rtl"}) {
    const NetworkRun alone = run_on(backend, 0, LayerSplit::kNone, net);
    REQUIRE(alone.output == expected);
    struct Case {
      int cores;
      LayerSplit split;
    };
    for (const Case c : {Case{2, LayerSplit::kChannels}, Case{2, LayerSplit::kBatch},
                         Case{3, LayerSplit::kChannels}}) {
      INFO(backend << " on " << c.cores << " cores, split " << layer_split_name(c.split));
      const NetworkRun r = run_on(backend, c.cores, c.split, net);
      CHECK(r.output == expected);
      REQUIRE(r.runs.size() == alone.runs.size());
      for (size_t i = 0; i < r.runs.size(); ++i) {
        const LayerRun& l = r.runs[i];
        INFO("layer " << l.name << ": " << l.split);
        CHECK((l.checked && l.mismatches == 0));
        CHECK_THAT(l.split, Contains(fmt::format("on {} cores", c.cores)));
        // The same work, divided: every GEMM micro-op and every output byte once.
        CHECK(l.stats.gemm_counter == alone.runs[i].stats.gemm_counter);
        CHECK(l.stats.out_store_nbytes == alone.runs[i].stats.out_store_nbytes);
        if (backend != "fsim") {
          // The run lasts as long as its slowest core, and never less than that core's GEMMs.
          for (int k = 0; k < c.cores; ++k) {
            CHECK(double(l.stats.cycles) >= counter(l.stats, fmt::format("core{}.cycles", k)));
          }
          CHECK(l.stats.cycles >= l.bound.gemm_cycles);
          // rtl and the cycle model agree cycle for cycle on every split layer.
          const std::string key = fmt::format("{} {} {}", c.cores, layer_split_name(c.split), i);
          if (backend == "cycle") {
            cycle_model[key] = l.stats.cycles;
          } else {
            CHECK(l.stats.cycles == cycle_model.at(key));
          }
        }
      }
    }
  }
}

TEST_CASE("multicore split: 3 cores share 4 channel blocks 2 + 1 + 1", "[multicore][split]") {
  const HwConfig cfg = with_cores(3);
  Conv2dParams p;
  p.n = 1, p.c = 16, p.h = p.w = 8, p.k = 64, p.kh = p.kw = 3, p.pad_top = p.pad_bottom = 1;
  p.pad_left = p.pad_right = 1;
  const Epilogue e;
  const CoreSplitPlan plan =
      split_layer(p, auto_schedule(p, e, cfg), LayerSplit::kChannels, 3, cfg);
  CHECK(plan.why == "4 output-channel blocks: 2 + 1 + 1 on 3 cores");
  REQUIRE(plan.slices.size() == 3);
  CHECK(plan.slices[0].k == 32);
  CHECK(plan.slices[1].k == 16);
  CHECK(plan.slices[2].k == 16);
}

TEST_CASE("multicore split: the cost model's choice where it is known by hand",
          "[multicore][split]") {
  const HwConfig cfg = with_cores(2);
  // Batch 1: a batch split is impossible, whatever the estimates.
  const SplitChoice one = choose_network_split(small_network(1), cfg, NetworkSplit::kAuto);
  CHECK(one.split == NetworkSplit::kChannels);
  CHECK_THAT(one.reason,
             Contains("auto: channels") && Contains("batch not possible (a batch of 1)"));
  // One output-channel block: the channel split leaves core 1 idle (its estimate is the single
  // core's), the batch of 2 gives each core one sample.
  Conv2dParams p;
  p.n = 2, p.c = 64, p.h = p.w = 14, p.k = 16, p.kh = p.kw = 3;
  p.pad_top = p.pad_bottom = p.pad_left = p.pad_right = 1;
  const Epilogue e;
  const SplitChoice c =
      choose_layer_split(p, e, auto_schedule(p, e, cfg), false, cfg, NetworkSplit::kAuto);
  CHECK(c.split == NetworkSplit::kBatch);
  REQUIRE(c.candidates.size() == 3);
  CHECK(c.candidates[1].est_cycles == c.candidates[0].est_cycles);  // channels = one core
  CHECK(c.candidates[2].est_cycles < c.candidates[0].est_cycles);
  CHECK_THAT(c.reason, Contains("auto: batch"));
  const CoreSplitPlan ch = split_layer(p, auto_schedule(p, e, cfg), LayerSplit::kChannels, 2, cfg);
  CHECK(ch.split == LayerSplit::kNone);
  CHECK(ch.why == "1 output-channel block: core 0 alone");
}

TEST_CASE("multicore split: splits that cannot run are named errors", "[multicore][split]") {
  CHECK_THROWS_WITH(choose_network_split(small_network(1), with_cores(2), NetworkSplit::kBatch),
                    Contains("split batch: network split_net has a batch of 1"));
  CHECK_THROWS_WITH(choose_network_split(small_network(2), with_cores(0), NetworkSplit::kChannels),
                    Contains("split channels: the config has one core"));
  CHECK_THROWS_WITH(parse_network_split("diagonal"),
                    Contains("unknown split 'diagonal' (auto, channels, batch, pipeline or none)"));
  // auto on one core runs as before.
  CHECK(choose_network_split(small_network(2), with_cores(0), NetworkSplit::kAuto).split ==
        NetworkSplit::kNone);
}

TEST_CASE("multicore split: tiles balanced over the cores", "[multicore][split]") {
  // 1000 units = 63 blocks of 16 on 4 cores: tiles of 16 give 16 + 16 + 16 + 15 (tiles of 15
  // would give the first core 2 of 5 tiles, 30 blocks).
  const HwConfig cfg = with_cores(4);
  Conv2dParams p;
  p.n = 1, p.c = 64, p.h = p.w = 1, p.k = 1000, p.kh = p.kw = 1;
  const Epilogue e;
  ConvSchedule s = auto_schedule(p, e, cfg);
  s.tile_oc_blocks = 63;
  const CoreSplitPlan plan = split_layer(p, s, LayerSplit::kChannels, 4, cfg);
  CHECK(plan.why == "63 output-channel blocks: 16 + 16 + 16 + 15 on 4 cores");
  CHECK(plan.schedule.tile_oc_blocks == 16);
  CHECK(plan.slices[3].k == 1000 - 48 * 16);
}

namespace {

NetworkRun run_pipeline(const std::string& backend, int cores, const Network& net) {
  Target target(with_cores(cores), backend);
  NetworkOptions opt;
  opt.pipeline = true;
  return run_network(target, net, opt);
}

uint64_t total_gemm(const NetworkRun& r) {
  uint64_t sum = 0;
  for (const LayerRun& l : r.runs) {
    sum += l.stats.gemm_counter;
  }
  return sum;
}

}  // namespace

TEST_CASE(
    "multicore pipeline: 4 inputs through 2 and 3 stages bit-exact with one core and the "
    "reference",
    "[multicore][pipeline]") {
  const Network net = small_network(4);  // 4 VTA layers: c1, c2, down, fc
  const auto ref = reference_network_tensors(net);
  const std::vector<int8_t>& expected = ref.at("fc").data;
  std::map<std::string, uint64_t> cycle_model;  // each step's cycles on the cycle model
  for (const std::string backend : {"fsim", "cycle", "rtl"}) {
    const NetworkRun alone = run_on(backend, 0, LayerSplit::kNone, net);
    REQUIRE(alone.output == expected);
    for (const int cores : {2, 3}) {
      INFO(backend << " on " << cores << " cores");
      const PipelinePlan plan = plan_pipeline(net, with_cores(cores));
      REQUIRE(plan.why_not.empty());
      REQUIRE(plan.stages.size() == size_t(cores));
      CHECK(plan.stages.front().first == 0);
      CHECK(plan.stages.back().second == 4);
      // The segments: the stages, cut between down and fc where one stage holds both (fc, a
      // dense layer, cannot load down's output as stored); c1 -> c2 -> down chain.
      const auto stage_of = [&](int layer) {
        for (int k = 0; k < cores; ++k) {
          if (layer >= plan.stages[size_t(k)].first && layer < plan.stages[size_t(k)].second) {
            return k;
          }
        }
        return -1;
      };
      const size_t cut = stage_of(2) == stage_of(3) ? 1 : 0;
      REQUIRE(plan.segments.size() == size_t(cores) + cut);
      for (const PipelineSegment& seg : plan.segments) {
        CHECK(seg.first >= plan.stages[size_t(seg.core)].first);
        CHECK(seg.last <= plan.stages[size_t(seg.core)].second);
        CHECK((seg.first == 3 || seg.last <= 3));  // fc starts its own segment
      }
      const NetworkRun r = run_pipeline(backend, cores, net);
      CHECK(r.output == expected);
      // One run of all cores per step: 4 inputs through the segments, fill and drain included.
      CHECK(r.runs.size() == 4 + plan.segments.size() - 1);
      for (const LayerRun& l : r.runs) {
        INFO(l.name << ": " << l.shape);
        CHECK((l.checked && l.mismatches == 0));
        if (backend != "fsim") {
          for (int k = 0; k < cores; ++k) {
            CHECK(double(l.stats.cycles) >= counter(l.stats, fmt::format("core{}.cycles", k)));
          }
          const std::string key = fmt::format("{} {}", cores, l.name);
          if (backend == "cycle") {
            cycle_model[key] = l.stats.cycles;
          } else {  // rtl cycle for cycle with the cycle model
            CHECK(l.stats.cycles == cycle_model.at(key));
          }
        }
      }
      // Every layer on every input once: the single core's GEMM micro-ops.
      CHECK(total_gemm(r) == total_gemm(alone));
    }
  }
}

// Four single-tile 1x1 convolutions, two per stage: each stage's second layer loads the first's
// output (and b its residual) in the same program. The first layer's GEMMs end before its ALU
// epilogue and its store, so without the barrier between the two layers the second layer's loads
// would read the buffer before the store (on the cycle model the whole output is then wrong).
TEST_CASE("multicore pipeline: a layer loads its producer's output after the producer's store",
          "[multicore][pipeline]") {
  const Network net = Network::from_json(nlohmann::json::parse(R"({
    "name": "chain_net", "seed": 5, "input": {"name": "data", "n": 4, "c": 16, "h": 4, "w": 4},
    "layers": [
      {"name": "a", "op": "conv2d", "input": "data", "k": 16, "kernel": 1,
       "epilogue": {"bias": true, "shift": 6, "relu": true, "clip_hi": 127}},
      {"name": "b", "op": "conv2d", "input": "a", "k": 16, "kernel": 1, "residual": "a",
       "epilogue": {"shift": 6, "relu": true, "clip_hi": 127}},
      {"name": "c", "op": "conv2d", "input": "b", "k": 16, "kernel": 1,
       "epilogue": {"shift": 6, "relu": true, "clip_hi": 127}},
      {"name": "d", "op": "conv2d", "input": "c", "k": 16, "kernel": 1,
       "epilogue": {"shift": 6, "relu": true, "clip_hi": 127}}]})"),
                                         "chain_net.json");
  const PipelinePlan plan = plan_pipeline(net, with_cores(2));
  REQUIRE(plan.segments.size() == 2);  // a..b on core 0, c..d on core 1: one program each
  CHECK(plan.segments[0].last - plan.segments[0].first == 2);
  CHECK(plan.segments[1].last - plan.segments[1].first == 2);
  const auto ref = reference_network_tensors(net);
  const std::vector<int8_t>& expected = ref.at("d").data;
  for (const std::string backend : {"fsim", "cycle", "rtl"}) {
    INFO(backend);
    const NetworkRun r = run_pipeline(backend, 2, net);
    CHECK(r.output == expected);
    CHECK(r.runs.size() == 5);  // 4 inputs through 2 segments
    for (const LayerRun& l : r.runs) {
      INFO(l.name << ": " << l.shape << ": " << l.first_mismatch);
      CHECK((l.checked && l.mismatches == 0));
    }
  }
}

TEST_CASE("multicore pipeline: stages minimise the largest stage's cost", "[multicore][pipeline]") {
  using Ranges = std::vector<std::pair<int, int>>;
  // 4 3 | 2 6 | 1 5: largest 8; every other cut has a stage of 9 or more.
  CHECK(partition_stages({4, 3, 2, 6, 1, 5}, 3) == Ranges{{0, 2}, {2, 4}, {4, 6}});
  // 10 | 1 1 1: the first layer alone.
  CHECK(partition_stages({10, 1, 1, 1}, 2) == Ranges{{0, 1}, {1, 4}});
  // Ties (largest 2 in three ways): the first stages longest.
  CHECK(partition_stages({1, 1, 1, 1}, 3) == Ranges{{0, 2}, {2, 3}, {3, 4}});
  // More cores than layers: one layer per stage.
  CHECK(partition_stages({5, 5}, 3) == Ranges{{0, 1}, {1, 2}});
  CHECK(partition_stages({}, 2).empty());
}

TEST_CASE("multicore pipeline: auto weighs it; a batch of 1 or one VTA layer is an error",
          "[multicore][pipeline]") {
  const SplitChoice c = choose_network_split(small_network(4), with_cores(2), NetworkSplit::kAuto);
  REQUIRE(c.candidates.size() == 4);
  CHECK(c.candidates[3].split == NetworkSplit::kPipeline);
  CHECK(c.candidates[3].why_not.empty());
  CHECK(c.candidates[3].est_cycles > 0);
  const int steps = plan_pipeline(small_network(4), with_cores(2)).steps();
  CHECK_THAT(c.reason,
             Contains("pipeline est") && Contains(fmt::format("4 inputs in {} steps", steps)));
  CHECK_THROWS_WITH(
      choose_network_split(small_network(1), with_cores(2), NetworkSplit::kPipeline),
      Contains("split pipeline: network split_net: a batch of 1; a pipeline streams 2 or more"));
  Network one_layer = small_network(3);
  one_layer.layers.resize(1);
  CHECK_THROWS_WITH(choose_network_split(one_layer, with_cores(2), NetworkSplit::kPipeline),
                    Contains("split pipeline: network split_net: 1 VTA layer; a pipeline needs 2"));
  CHECK_THROWS_WITH(run_pipeline("fsim", 2, one_layer), Contains("1 VTA layer"));
  CHECK_THROWS_WITH(parse_network_split("pipe"),
                    Contains("unknown split 'pipe' (auto, channels, batch, pipeline or none)"));
}

// ResNet-18's first layer at 64x64 (7x7, stride 2, 64 channels) on two cores of pynq with its
// DRAM model: each core's stores must reach DRAM whatever the order of the cores' requests in
// a cycle (a store that waited for its turn in the cycle once lost its data to the end of the
// run), bit-exact with the plain reference on the cycle model and rtl.
TEST_CASE("multicore split: ResNet-18's first layer on two pynq cores equals the reference",
          "[multicore][split]") {
  const Network net = Network::from_json(nlohmann::json::parse(R"({
    "name": "c1_only", "seed": 18, "input": {"name": "data", "n": 1, "c": 3, "h": 64, "w": 64},
    "layers": [{"name": "C1", "op": "conv2d", "input": "data", "k": 64, "kernel": [7, 7],
                "stride": [2, 2], "pad": [3, 3, 3, 3],
                "epilogue": {"shift": 10, "relu": true, "clip_hi": 127}}]})"),
                                         "c1_only.json");
  const std::vector<int8_t> expected = reference_network_tensors(net).at("C1").data;
  nlohmann::json j = HwConfig::from_file(config_path("pynq")).to_json();
  j["CORES"] = 2;
  const HwConfig cfg = HwConfig::from_json(j, "pynq with CORES");
  for (const std::string backend : {"cycle", "rtl"}) {
    INFO(backend);
    Target target(cfg, backend);
    NetworkOptions opt;
    opt.layer_split = LayerSplit::kChannels;
    const NetworkRun r = run_network(target, net, opt);
    REQUIRE(r.output.size() == expected.size());
    size_t bad = 0;
    for (size_t i = 0; i < expected.size(); ++i) {
      bad += r.output[i] != expected[i] ? 1 : 0;
    }
    CHECK(bad == 0);
  }
}
