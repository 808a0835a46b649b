// `vtasim network -j N`: the VTA layers of one network simulated in parallel by N worker
// processes (process_pool.h). Each layer gets the input the layers before it produce when they
// equal their C++ reference (reference_layer_jobs, computed once in the parent before the
// workers are forked, so they inherit its reference cache); whenever every layer passes its
// check these are exactly the inputs of a sequential run, so cycles, counters and outputs equal
// run_network's. Results come back in layer order.
#pragma once

#include <string>
#include <vector>

#include "vta/compiler/frontend/network.h"
#include "vta/sim/error.h"

namespace vta::compiler {

// A VTA layer that failed: the error names it; `done` holds the layers before it.
class NetworkLayerError : public Error {
 public:
  NetworkLayerError(std::string layer_name, const std::string& what, std::vector<LayerRun> done)
      : Error(what), layer(std::move(layer_name)), runs(std::move(done)) {}
  std::string layer;
  std::vector<LayerRun> runs;
};

// Runs the network's VTA layers on `workers` (>= 1) forked processes, opt.on_layer called in
// layer order in the calling process. A failing layer (an error, or its worker dying) stops
// the dispatch of further layers once the layers before it are reported, and throws
// NetworkLayerError when the running ones are done; a worker's Ctrl-C throws RunInterrupted.
// NetworkRun::output is the last VTA layer's output. Networks of wide lanes (wide_network_run.h)
// run in this process (run_network).
NetworkRun run_network_parallel(const Target& target, const Network& net, const NetworkOptions& opt,
                                int workers);

}  // namespace vta::compiler
