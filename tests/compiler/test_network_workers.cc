// `vtasim network -j N`: the layers of a network simulated by worker processes give exactly
// the sequential run's results (cycles, every counter, outputs, checks, order), and a failing
// layer is reported like the sequential run reports it, with the layers before it.
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "test_paths.h"
#include "vta/compiler/frontend/network.h"
#include "vta/compiler/reports/json_file.h"
#include "vta/compiler/reports/layer_run_codec.h"
#include "vta/compiler/run/network_workers.h"
#include "vta/runtime_cpp.h"

using namespace vta::compiler;

namespace {

Target cycle_target() {
  vta::set_error_mode(vta::ErrorMode::kThrow);
  return Target(vta::HwConfig::from_file(config_path("pynq")), "cycle");
}

nlohmann::json tiny_resnet_json() {
  return read_json_file(std::string(VTA_SOURCE_DIR) + "/compiler/networks/tiny_resnet.json",
                        "network");
}

void require_same_run(const LayerRun& a, const LayerRun& b) {
  INFO("layer " << a.name);
  REQUIRE(a.name == b.name);
  REQUIRE(a.shape == b.shape);
  REQUIRE(a.schedule == b.schedule);
  REQUIRE(a.out == b.out);
  REQUIRE(a.stats.to_json() == b.stats.to_json());  // cycles and every backend counter
  REQUIRE(a.stats.cycles == b.stats.cycles);
  REQUIRE(a.checked == b.checked);
  REQUIRE(a.mismatches == b.mismatches);
  REQUIRE(a.gemm_bound == b.gemm_bound);
  REQUIRE(a.min_bytes == b.min_bytes);
}

}  // namespace

TEST_CASE("network layers on 2 and 3 worker processes equal the sequential run", "[network]") {
  const Target target = cycle_target();
  const Network net = Network::from_json(tiny_resnet_json(), "tiny_resnet.json");
  std::vector<std::string> order;
  NetworkOptions opt;
  const NetworkRun seq = run_network(target, net, opt);
  REQUIRE(seq.runs.size() == 7);
  opt.on_layer = [&](const LayerRun& r) { order.push_back(r.name); };
  for (int workers : {2, 3}) {
    INFO(workers << " workers");
    order.clear();
    const NetworkRun par = run_network_parallel(target, net, opt, workers);
    REQUIRE(par.runs.size() == seq.runs.size());
    for (size_t i = 0; i < seq.runs.size(); ++i) {
      require_same_run(seq.runs[i], par.runs[i]);
      REQUIRE(order.at(i) == seq.runs[i].name);  // progress in layer order
      REQUIRE(par.runs[i].checked);
      REQUIRE(par.runs[i].mismatches == 0);
    }
    REQUIRE(par.host_ops == seq.host_ops);
    REQUIRE(par.output == seq.output);  // the last layer (fc) runs on VTA
  }
}

TEST_CASE("a failing layer under workers is named, with the layers before it", "[network]") {
  const Target target = cycle_target();
  nlohmann::json j = tiny_resnet_json();
  // b2.down (the 4th VTA layer, 8x8 outputs) gets a schedule with 20-row tiles.
  j["layers"][4]["schedule"] = {
      {"tile_h", 20}, {"tile_w", 8}, {"tile_oc_blocks", 1}, {"tile_ic_blocks", 1}, {"threads", 1}};
  const Network net = Network::from_json(j, "bad_tiny.json");
  std::string sequential_error;
  try {
    run_network(target, net, NetworkOptions{});
  } catch (const vta::Error& ex) {
    sequential_error = ex.what();
  }
  REQUIRE_FALSE(sequential_error.empty());
  try {
    run_network_parallel(target, net, NetworkOptions{}, 2);
    FAIL("no error");
  } catch (const NetworkLayerError& ex) {
    REQUIRE(ex.layer == "b2.down");
    REQUIRE(std::string(ex.what()) == sequential_error);
    REQUIRE(ex.runs.size() == 3);
    REQUIRE(ex.runs[2].name == "b1.conv2");
  }
}

TEST_CASE("a layer run survives the trip from a worker unchanged", "[network]") {
  const Target target = cycle_target();
  const Network net = Network::from_json(tiny_resnet_json(), "tiny_resnet.json");
  const NetworkJobs jobs = reference_layer_jobs(net);
  REQUIRE(jobs.jobs.size() == 7);
  REQUIRE_FALSE(jobs.failure);
  const LayerRun r = run_layer_job(target, net, jobs.jobs[2], NetworkOptions{});
  const LayerRun back = decode_layer_run(encode_layer_run(r));
  require_same_run(r, back);
  REQUIRE(back.epilogue.to_json() == r.epilogue.to_json());
  REQUIRE(back.wall_seconds == r.wall_seconds);
  REQUIRE(back.stats.extra.size() == r.stats.extra.size());
  REQUIRE(back.kernels == r.kernels);
}
