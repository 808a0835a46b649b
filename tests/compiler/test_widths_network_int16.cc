// Networks at int16 x int16 -> int32 (wide_network_run.h): a network with VTA convolutions (a
// residual one), host operators and a dense layer on fsim and cycle, bit for bit against the
// network's width reference; a network of hand-computed values beyond int8's range through two
// convolutions, a maxpool and a global average pool; the errors for operators the wide path
// does not run and for int32 lanes.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "test_target.h"
#include "vta/compiler/frontend/network.h"
#include "vta/compiler/run/layer_widths.h"
#include "vta/compiler/run/wide_network_run.h"
#include "widths_network_fixture.h"

using namespace vta::compiler;

namespace {

uint64_t test_seed() {
  return widths_test_seed("test_widths_network_int16", 4711);
}

// Shifts for int16 data (random lanes over the whole int16 range), a residual conv, a host add
// and maxpool, a global average pool and a dense layer.
Network int16_network(uint64_t seed) {
  WidthsNetworkLanes l;
  l.name = "int16_net", l.hw = 8, l.lane_lo = -32768, l.lane_hi = 32767;
  l.stem_shift = 17, l.c1_shift = 17, l.c2_shift = 18, l.fc_shift = 14;
  l.c2_clip_hi = 30000;
  return widths_test_network(l, seed);
}

template <class T>
std::shared_ptr<const std::vector<T>> values(std::vector<T> v) {
  return std::make_shared<const std::vector<T>>(std::move(v));
}

}  // namespace

TEST_CASE("a network at int16 lanes runs on fsim and cycle bit for bit against its reference",
          "[compiler][widths][network]") {
  const Network net = int16_network(test_seed());
  const Target target = use("fsim", "pynq_int16");
  const NetworkRun r = run_network(target, net, NetworkOptions{});
  REQUIRE(r.runs.size() == 4);  // stem, c1, c2, fc
  for (const LayerRun& l : r.runs) {
    INFO(l.name << " " << l.first_mismatch);
    REQUIRE(l.checked);
    REQUIRE(l.mismatches == 0);
  }
  REQUIRE(r.output.empty());
  const WideTensors ref = reference_network_tensors_wide(net, LayerWidths::of(target.config));
  REQUIRE(r.wide_output == ref.at("fc").data);
  REQUIRE(run_network(use("cycle", "pynq_int16"), net, NetworkOptions{}).wide_output ==
          r.wide_output);
  // Every tensor holds int16 lanes, many of them beyond int8's range.
  for (const auto& [name, t] : ref) {
    INFO(name);
    const auto [lo, hi] = std::minmax_element(t.data.begin(), t.data.end());
    REQUIRE(*lo >= -32768);
    REQUIRE(*hi <= 32767);
    REQUIRE(std::max(-*lo, *hi) > 1000);
  }
  // The host add saturates at the int16 lane, by hand.
  const auto& c1 = ref.at("c1").data;
  const auto& c2 = ref.at("c2").data;
  const auto& sum = ref.at("sum").data;
  for (size_t i = 0; i < sum.size(); ++i) {
    REQUIRE(sum[i] == std::clamp(c1[i] + c2[i], -32768, 32767));
  }
  // The residual conv's output stays within its own bounds [0, 30000] after the host's add.
  REQUIRE(*std::max_element(c2.begin(), c2.end()) <= 30000);
  REQUIRE(*std::min_element(c2.begin(), c2.end()) >= 0);
}

TEST_CASE("int16 lanes carry values beyond int8 through convolutions and pools, by hand",
          "[compiler][widths][network]") {
  nlohmann::json j = nlohmann::json::parse(R"({
    "name": "hand16", "input": {"name": "x", "n": 1, "c": 1, "h": 2, "w": 2},
    "layers": [
      {"name": "a", "op": "conv2d", "input": "x", "k": 2, "kernel": 1, "epilogue": {}},
      {"name": "b", "op": "conv2d", "input": "a", "k": 1, "kernel": 1,
       "epilogue": {"shift": 2, "relu": true, "clip_hi": 20000}},
      {"name": "p", "op": "maxpool", "input": "a", "kernel": 2, "stride": 2},
      {"name": "g", "op": "global_avgpool", "input": "b"}]})");
  Network net = Network::from_json(j, "hand16");
  net.input_data = values<int8_t>({100, -50, 20, 7});
  net.layers[0].weights = values<int8_t>({120, -3});  // K x C x 1 x 1
  net.layers[1].weights = values<int8_t>({7, 1});
  const WideTensors ref = reference_network_tensors_wide(net, LayerWidths{16, 16, 32, 16});
  // a: 120 x and -3 x, kept whole in int16 lanes (no shift, no clip).
  REQUIRE(ref.at("a").data == std::vector<int32_t>{12000, -6000, 2400, 840, -300, 150, -60, -21});
  // b: (7 a0 + a1) >> 2 (floor), ReLU, clipped at 20000: 83700 >> 2 = 20925 -> 20000;
  // -41850 -> 0; 16740 >> 2 = 4185; 5859 >> 2 = 1464.
  REQUIRE(ref.at("b").data == std::vector<int32_t>{20000, 0, 4185, 1464});
  REQUIRE(ref.at("p").data == std::vector<int32_t>{12000, 150});
  // g: 25649 / 4 = 6412.25, rounded to nearest.
  REQUIRE(ref.at("g").data == std::vector<int32_t>{6412});
  for (const char* backend : {"fsim", "cycle"}) {
    INFO(backend);
    const NetworkRun r = run_network(use(backend, "pynq_int16"), net, NetworkOptions{});
    REQUIRE(r.wide_output == std::vector<int32_t>{6412});
    for (const LayerRun& l : r.runs) {
      INFO(l.name << " " << l.first_mismatch);
      REQUIRE(l.checked);
      REQUIRE(l.mismatches == 0);
    }
  }
}

TEST_CASE("int16 networks name the operators they do not run; int32 lanes are refused",
          "[compiler][widths][network]") {
  nlohmann::json j = nlohmann::json::parse(R"({
    "name": "cat16", "input": {"name": "x", "n": 1, "c": 2, "h": 2, "w": 2},
    "layers": [{"name": "cat", "op": "concat", "inputs": ["x", "x"]}]})");
  const Network net = Network::from_json(j, "cat16");
  REQUIRE_THROWS_WITH(run_network(use("fsim", "pynq_int16"), net, NetworkOptions{}),
                      Catch::Contains("network cat16: layer 'cat' (concat) does not run at int16 "
                                      "x int16 -> int32 lanes yet"));
  const Target int32 = use("fsim", "pynq_int32");
  REQUIRE_THROWS_WITH(run_network(int32, net, NetworkOptions{}),
                      Catch::Contains("network cat16: config " + int32.config.model_name +
                                      " has int32 x int32 -> int32 lanes"));
}
