#include "vta/compiler/run/network_workers.h"

#include <optional>
#include <utility>

#include <fmt/format.h>

#include "vta/compiler/reports/layer_run_codec.h"
#include "vta/compiler/run/layer_widths.h"
#include "vta/compiler/run/process_pool.h"
#include "vta/compiler/run/wide_network_run.h"
#include "vta/sim/run_progress.h"

namespace vta::compiler {

NetworkRun run_network_parallel(const Target& target, const Network& net, const NetworkOptions& opt,
                                int workers) {
  check_network_widths(target.config, net.name);
  if (needs_wide_network(LayerWidths::of(target.config))) {
    return run_network(target, net, opt);  // the jobs hold int8 tensors: one process
  }
  const NetworkJobs jobs =
      reference_layer_jobs(net, &target.config);  // before the fork: workers inherit it
  NetworkOptions quiet = opt;
  quiet.on_layer = nullptr;
  ProcessPoolOptions po;
  po.workers = size_t(std::max(workers, 1));
  po.in_order = true;
  ProcessPool pool(
      po,
      [&](size_t i) {
        const std::vector<uint8_t> bytes =
            encode_layer_run(run_layer_job(target, net, jobs.jobs.at(i), quiet));
        return std::string(bytes.begin(), bytes.end());
      },
      [&](size_t i) { return fmt::format("layer '{}'", net.layers[jobs.jobs.at(i).layer].name); });
  NetworkRun result;
  result.host_ops = jobs.host_ops;
  std::optional<std::pair<size_t, std::string>> failure;  // the first failing job, in order
  const bool finished = pool.run(jobs.jobs.size(), [&](size_t i, JobOutcome& outcome) {
    if (failure || i != result.runs.size()) {
      return false;  // after the failure (its input unchecked) or an interrupted layer
    }
    if (outcome.status != JobOutcome::Status::kDone) {
      failure = std::make_pair(i, std::move(outcome.bytes));
      return false;
    }
    result.runs.push_back(
        decode_layer_run(std::vector<uint8_t>(outcome.bytes.begin(), outcome.bytes.end())));
    if (opt.on_layer) {
      opt.on_layer(result.runs.back());
    }
    return true;
  });
  if (!finished) {
    throw RunInterrupted();
  }
  if (!failure && jobs.failure) {
    failure = std::make_pair(jobs.jobs.size(), jobs.failure->error);
  }
  if (failure) {
    const size_t layer =
        failure->first < jobs.jobs.size() ? jobs.jobs[failure->first].layer : jobs.failure->layer;
    throw NetworkLayerError(net.layers[layer].name, failure->second, std::move(result.runs));
  }
  if (!result.runs.empty()) {
    result.output = result.runs.back().out;
  }
  return result;
}

}  // namespace vta::compiler
