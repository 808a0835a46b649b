// Networks: the shipped JSON example and the built-in ResNet-18 run on fsim with every VTA
// layer checked against the reference; malformed descriptions are rejected by name.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "test_paths.h"
#include "vta/compiler/network.h"
#include "vta/runtime_cpp.h"

using namespace vta::compiler;

namespace {
void use_fsim(const char* config) {
  vta::set_error_mode(vta::ErrorMode::kThrow);
  vta::runtime_configure("fsim", vta::HwConfig::from_file(config_path(config)));
}
}  // namespace

TEST_CASE("tiny_resnet.json runs on fsim with residual adds on VTA", "[network]") {
  for (const char* config : {"pynq", "small", "batch4"}) {
    INFO(config);
    use_fsim(config);
    const Network net =
        Network::from_file(std::string(VTA_SOURCE_DIR) + "/compiler/networks/tiny_resnet.json");
    const NetworkRun r = run_network(net, NetworkOptions{});
    REQUIRE(r.runs.size() == 7);
    REQUIRE(r.host_ops.size() == 2);
    for (const LayerRun& l : r.runs) {
      INFO(l.name << " " << l.first_mismatch);
      REQUIRE(l.checked);
      REQUIRE(l.mismatches == 0);
    }
    REQUIRE(r.output.size() == 10);
    // The residual layers load their shortcut as ACC_8BIT: 1 acc element per output element.
    REQUIRE(r.runs[2].stats.acc_load_nbytes > 0);
  }
}

TEST_CASE("built-in ResNet-18 runs on fsim", "[network]") {
  use_fsim("pynq");
  const Network net = Network::resnet18();
  const NetworkRun r = run_network(net, NetworkOptions{});
  REQUIRE(r.runs.size() == 21);  // 17 convs, 3 shortcuts, 1 dense
  uint64_t macs = 0;
  for (const LayerRun& l : r.runs) {
    INFO(l.name << " " << l.first_mismatch);
    REQUIRE(l.mismatches == 0);
    macs += l.macs;
  }
  // ResNet-18 at 224x224: about 1.8 GMACs.
  REQUIRE(macs > 1'700'000'000ull);
  REQUIRE(macs < 1'900'000'000ull);
  REQUIRE(r.output.size() == 1000);
}

TEST_CASE("malformed networks are rejected by name", "[network]") {
  auto error_of = [](const char* text) {
    try {
      Network net = Network::from_json(nlohmann::json::parse(text), "net.json");
      use_fsim("pynq");
      run_network(net, NetworkOptions{});
    } catch (const vta::Error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  CHECK(error_of(R"({"input": {"c": 16, "h": 4, "w": 4}, "layers": [
          {"name": "a", "op": "conv3d", "input": "data"}]})") ==
        "net.json: layer 'a' has unknown op 'conv3d' (known: conv2d, dense, maxpool, "
        "global_avgpool)");
  CHECK(error_of(R"({"name": "n", "input": {"c": 16, "h": 4, "w": 4}, "layers": [
          {"name": "a", "op": "conv2d", "input": "x", "k": 16}]})") ==
        "network n: layer 'a' reads unknown tensor 'x'");
  CHECK(error_of(R"({"name": "n", "input": {"c": 16, "h": 4, "w": 4}, "layers": [
          {"name": "a", "op": "conv2d", "input": "data", "k": 32, "residual": "data"}]})") ==
        "network n: residual 'data' of layer 'a' has shape 1x16x4x4 but the layer's output is "
        "1x32x4x4");
}

TEST_CASE("networks/resnet18.json is the built-in ResNet-18", "[network]") {
  const Network file =
      Network::from_file(std::string(VTA_SOURCE_DIR) + "/compiler/networks/resnet18.json");
  REQUIRE(file.to_json() == Network::resnet18().to_json());
  // and the JSON form reads back to the same network
  REQUIRE(Network::from_json(nlohmann::json::parse(file.to_json().dump()), "again").to_json() ==
          file.to_json());
}
