// Networks: the shipped JSON example and the built-in ResNet-18 run on fsim with every VTA
// layer checked against the reference; malformed descriptions are rejected by name.
#include <algorithm>
#include <cmath>
#include <map>
#include <string>

#include <fmt/format.h>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "test_paths.h"
#include "vta/compiler/frontend/network.h"
#include "vta/runtime_cpp.h"

using namespace vta::compiler;

namespace {
Target use_fsim(const char* config) {
  vta::set_error_mode(vta::ErrorMode::kThrow);
  return Target(vta::HwConfig::from_file(config_path(config)), "fsim");
}
}  // namespace

TEST_CASE("tiny_resnet.json runs on fsim with residual adds on VTA", "[network]") {
  for (const char* config : {"pynq", "small", "batch4"}) {
    INFO(config);
    const Target target = use_fsim(config);
    const Network net =
        Network::from_file(std::string(VTA_SOURCE_DIR) + "/compiler/networks/tiny_resnet.json");
    const NetworkRun r = run_network(target, net, NetworkOptions{});
    REQUIRE(r.runs.size() == 7);
    REQUIRE(r.host_ops.size() == 2);
    for (const LayerRun& l : r.runs) {
      INFO(l.name << " " << l.first_mismatch);
      REQUIRE(l.checked);
      REQUIRE(l.mismatches == 0);
    }
    REQUIRE(r.output.size() == 10);
    // b1.conv2 (no bias) loads its residual (1x24x16x16) as ACC_8BIT: one acc element per
    // blocked output element, each counted as ACC elem bytes (vta-reference.md counters).
    const vta::HwConfig& cfg = target.config;
    REQUIRE(r.runs[2].name == "b1.conv2");
    const uint64_t out_elems = uint64_t((1 + cfg.batch - 1) / cfg.batch) *
                               ((24 + cfg.block_out - 1) / cfg.block_out) * 16 * 16;
    REQUIRE(r.runs[2].stats.acc_load_nbytes == out_elems * cfg.acc_elem_bytes);
  }
}

TEST_CASE("built-in ResNet-18 runs on fsim", "[network]") {
  const Network net = Network::resnet18();
  const NetworkRun r = run_network(use_fsim("pynq"), net, NetworkOptions{});
  REQUIRE(r.runs.size() == 21);  // 17 convs, 3 shortcuts, 1 dense
  // MACs per layer from the ResNet-18 shapes: output H*W * out channels * in channels * kernel.
  auto conv = [](uint64_t out_hw, uint64_t k, uint64_t c, uint64_t kernel) {
    return out_hw * out_hw * k * c * kernel * kernel;
  };
  std::map<std::string, uint64_t> expected = {{"C1", conv(112, 64, 3, 7)}, {"fc", 512 * 1000}};
  for (int b = 0; b < 2; ++b) {
    for (int i = 1; i <= 2; ++i) {
      expected[fmt::format("layer1.{}.conv{}", b, i)] = conv(56, 64, 64, 3);
    }
  }
  const int widths[] = {64, 128, 256, 512}, sizes[] = {56, 28, 14, 7};
  for (int stage = 1; stage < 4; ++stage) {
    const uint64_t cin = widths[stage - 1], cout = widths[stage], hw = sizes[stage];
    const std::string p = fmt::format("layer{}.", stage + 1);
    expected[p + "0.down"] = conv(hw, cout, cin, 1);
    expected[p + "0.conv1"] = conv(hw, cout, cin, 3);
    expected[p + "0.conv2"] = conv(hw, cout, cout, 3);
    expected[p + "1.conv1"] = conv(hw, cout, cout, 3);
    expected[p + "1.conv2"] = conv(hw, cout, cout, 3);
  }
  REQUIRE(expected.size() == 21);
  uint64_t macs = 0;
  for (const LayerRun& l : r.runs) {
    INFO(l.name << " " << l.first_mismatch);
    REQUIRE(l.mismatches == 0);
    REQUIRE(expected.count(l.name) == 1);
    REQUIRE(l.macs == expected[l.name]);
    macs += l.macs;
  }
  REQUIRE(macs == 1'814'073'344ull);  // the commonly quoted 1.81 GMACs of ResNet-18
  REQUIRE(r.output.size() == 1000);
}

TEST_CASE("malformed networks are rejected by name", "[network]") {
  auto error_of = [](const char* text) {
    try {
      Network net = Network::from_json(nlohmann::json::parse(text), "net.json");
      run_network(use_fsim("pynq"), net, NetworkOptions{});
    } catch (const vta::Error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  CHECK(error_of(R"({"input": {"c": 16, "h": 4, "w": 4}, "layers": [
          {"name": "a", "op": "conv3d", "input": "data"}]})") ==
        "net.json: layer 'a' has unknown op 'conv3d' (known: conv2d, dense, maxpool, "
        "global_avgpool, avgpool, add, concat, hardsigmoid, sigmoid, tanh, mul, layer_norm, "
        "gelu, softmax, scale, batch_matmul, view, permute, slice, channel_shuffle, add_constant, "
        "min, max)");
  CHECK(error_of(R"({"name": "n", "input": {"c": 16, "h": 4, "w": 4}, "layers": [
          {"name": "a", "op": "conv2d", "input": "x", "k": 16}]})") ==
        "net.json: network n: layer 'a' reads unknown tensor 'x'");
  CHECK(error_of(R"({"name": "n", "input": {"c": 16, "h": 4, "w": 4}, "layers": [
          {"name": "a", "op": "conv2d", "input": "data", "k": 32, "residual": "data"}]})") ==
        "net.json: network n: residual 'data' of layer 'a' has shape 1x16x4x4 but the layer's "
        "output is 1x32x4x4");
  // Maxpool parameters without an output (stride 0 used to divide by zero; kernel 0 or a
  // kernel larger than the padded input gave negative sizes).
  CHECK(error_of(R"({"name": "n", "input": {"c": 16, "h": 4, "w": 4}, "layers": [
          {"name": "p", "op": "maxpool", "input": "data", "kernel": 3, "stride": 0}]})") ==
        "net.json: network n: maxpool layer 'p': stride_h must be >= 1 (got 0)");
  CHECK(error_of(R"({"name": "n", "input": {"c": 16, "h": 4, "w": 4}, "layers": [
          {"name": "p", "op": "maxpool", "input": "data", "kernel": [2, 0]}]})") ==
        "net.json: network n: maxpool layer 'p': kernel width must be >= 1 (got 0)");
  CHECK(error_of(R"({"name": "n", "input": {"c": 16, "h": 4, "w": 4}, "layers": [
          {"name": "p", "op": "maxpool", "input": "data", "kernel": 9, "pad": 1}]})") ==
        "net.json: network n: maxpool layer 'p': kernel 9x9 exceeds the padded input 6x6");
  CHECK(error_of(R"({"name": "n", "input": {"c": 16, "h": 4, "w": 4}, "layers": [
          {"name": "p", "op": "maxpool", "input": "data", "kernel": 3, "pad": [1, 3, 1, 1]}]})") ==
        "net.json: network n: maxpool layer 'p': pad_left = 3 must be smaller than the kernel "
        "(3)");
  CHECK(error_of(R"({"name": "n", "input": {"c": 16, "h": 4, "w": 4}, "layers": [
          {"name": "p", "op": "maxpool", "input": "data", "kernel": 65535, "pad": 65534}]})") ==
        "net.json: network n: maxpool layer 'p': output 1x16x65538x65538 exceeds 65535 per "
        "dimension");
  CHECK(error_of(R"({"name": "n", "input": {"c": 16, "h": 4, "w": 4}, "layers": [
          {"name": "p", "op": "maxpool", "input": "data", "pad": -1}]})") ==
        "net.json: network n: maxpool layer 'p': pad_top must be >= 0 (got -1)");
  // Unknown keys, also keys of another op, are typos, not options.
  CHECK(error_of(R"({"name": "n", "input": {"c": 16, "h": 4, "w": 4}, "layers": [
          {"name": "p", "op": "maxpool", "input": "data", "kernal": 5}]})") ==
        "net.json: maxpool layer 'p' has unknown key 'kernal' (known: name, op, input, kernel, "
        "stride, pad)");
  CHECK(error_of(R"({"name": "n", "input": {"c": 16, "h": 4, "w": 4}, "layers": [
          {"name": "a", "op": "conv2d", "input": "data", "k": 16, "units": 3}]})") ==
        "net.json: conv2d layer 'a' has unknown key 'units' (known: name, op, input, k, kernel, "
        "stride, pad, residual, epilogue, schedule, groups)");
  CHECK(error_of(R"({"input": {"c": 16, "h": 4, "w": 4, "depth": 2}, "layers": []})") ==
        "net.json: input has unknown key 'depth' (known: name, n, c, h, w)");
  CHECK(error_of(R"({"input": {"c": 16, "h": 4, "w": 4}, "layer": []})") ==
        "net.json has unknown key 'layer' (known: name, seed, input, layers)");
  // Input sizes: negative or beyond the ISA's 16-bit size fields.
  CHECK(error_of(R"({"name": "n", "input": {"c": -1, "h": 4, "w": 4}, "layers": []})") ==
        "net.json: network n: input c must be in 1..65535 (got -1)");
  CHECK(error_of(R"({"name": "n", "input": {"c": 16, "h": 65536, "w": 4}, "layers": []})") ==
        "net.json: network n: input h must be in 1..65535 (got 65536)");
  CHECK(error_of(R"({"name": "n", "input": {"c": 16, "h": 4, "w": 4}, "layers": [
          {"name": "a", "op": "conv2d", "input": "data", "k": 16, "stride": 0}]})") ==
        "net.json: network n: conv2d 'a': stride_h must be >= 1 (got 0)");
  CHECK(error_of(R"({"name": "n", "input": {"c": 16, "h": 4, "w": 4}, "layers": [
          {"name": "f", "op": "dense", "input": "data", "units": 70000}]})") ==
        "net.json: network n: matmul 'f': n = 70000 exceeds 65535 (16-bit ISA size fields)");
  CHECK(error_of(R"({"name": "n", "input": {"c": 16, "h": 4, "w": 4}, "layers": [
          {"name": "a", "op": "conv2d", "input": "data", "k": 16},
          {"name": "a", "op": "conv2d", "input": "data", "k": 16}]})") ==
        "net.json: network n: layer name 'a' is used twice");
}

TEST_CASE("networks built in code are validated before they run", "[network]") {
  const Target target = use_fsim("pynq");
  try {
    run_network(target, Network::resnet18(-1), NetworkOptions{});
    FAIL("no error");
  } catch (const vta::Error& e) {
    REQUIRE(std::string(e.what()) == "network resnet18: input n must be in 1..65535 (got -1)");
  }
  Network net;
  net.name = "n";
  net.c = 16, net.h = net.w = 4;
  NetworkLayer pool;
  pool.name = "p", pool.op = "maxpool", pool.input = "data", pool.kh = pool.kw = 2;
  pool.stride_h = 0;
  net.layers.push_back(pool);
  try {
    run_network(target, net, NetworkOptions{});
    FAIL("no error");
  } catch (const vta::Error& e) {
    REQUIRE(std::string(e.what()) == "network n: maxpool layer 'p': stride_h must be >= 1 (got 0)");
  }
}

TEST_CASE("networks/resnet18.json is the built-in ResNet-18", "[network]") {
  const Network file =
      Network::from_file(std::string(VTA_SOURCE_DIR) + "/compiler/networks/resnet18.json");
  REQUIRE(file.to_json() == Network::resnet18().to_json());
  // and the JSON form reads back to the same network
  REQUIRE(Network::from_json(nlohmann::json::parse(file.to_json().dump()), "again").to_json() ==
          file.to_json());
}

TEST_CASE("host operators follow their definitions (plain loops over the input tensor)",
          "[network]") {
  // avgpool with padding not counted, global_avgpool with a rescale, add with a clip and a
  // concat, each recomputed here from the network's input.
  const Network net = Network::from_json(nlohmann::json::parse(R"({
    "name": "host_ops", "seed": 7, "input": {"name": "data", "n": 1, "c": 3, "h": 5, "w": 5},
    "layers": [
      {"name": "ap", "op": "avgpool", "input": "data", "kernel": 3, "stride": 2, "pad": 1,
       "rescale": 1},
      {"name": "gap", "op": "global_avgpool", "input": "data", "rescale": -1},
      {"name": "sum", "op": "add", "input": "data", "residual": "data",
       "epilogue": {"clip_lo": -100, "clip_hi": 90}},
      {"name": "cat", "op": "concat", "inputs": ["data", "sum"]}]})"),
                                         "host_ops.json");
  const std::map<std::string, NetworkTensor> t = reference_network_tensors(net);
  const NetworkTensor& x = t.at("data");
  const auto at = [&](int c, int y, int xx) { return int(x.data[size_t((c * 5 + y) * 5 + xx)]); };
  // mean x 2^rescale, rounded to nearest with ties away from zero, saturated to int8
  const auto round_sat = [](double v) {
    const double r = v < 0 ? -std::floor(-v + 0.5) : std::floor(v + 0.5);
    return int(std::clamp(r, -128.0, 127.0));
  };
  const NetworkTensor& ap = t.at("ap");
  REQUIRE(ap.shape() == "1x3x3x3");
  for (int c = 0; c < 3; ++c) {
    for (int oy = 0; oy < 3; ++oy) {
      for (int ox = 0; ox < 3; ++ox) {
        int sum = 0, count = 0;
        for (int y = 2 * oy - 1; y <= 2 * oy + 1; ++y) {
          for (int xx = 2 * ox - 1; xx <= 2 * ox + 1; ++xx) {
            if (y >= 0 && y < 5 && xx >= 0 && xx < 5) {
              sum += at(c, y, xx);
              ++count;
            }
          }
        }
        CHECK(int(ap.data[size_t((c * 3 + oy) * 3 + ox)]) == round_sat(2.0 * sum / count));
      }
    }
  }
  const NetworkTensor& gap = t.at("gap");
  REQUIRE(gap.shape() == "1x3x1x1");
  for (int c = 0; c < 3; ++c) {
    int sum = 0;
    for (int i = 0; i < 25; ++i) {
      sum += at(c, i / 5, i % 5);
    }
    CHECK(int(gap.data[size_t(c)]) == round_sat(sum / 25.0 / 2.0));
  }
  const NetworkTensor& s = t.at("sum");
  const NetworkTensor& cat = t.at("cat");
  REQUIRE(cat.shape() == "1x6x5x5");
  for (size_t i = 0; i < x.data.size(); ++i) {
    CHECK(int(s.data[i]) == std::clamp(2 * int(x.data[i]), -100, 90));
    CHECK(cat.data[i] == x.data[i]);
    CHECK(cat.data[i + x.data.size()] == s.data[i]);
  }
}
