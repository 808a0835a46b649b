// The design the compiler generates code for and runs on: a hardware config, the backend that
// executes the programs, the runtime that runs them, and the checks applied to every program.
// Every compiler entry point takes its Target explicitly and reaches the runtime only through
// it, so one process can compile and run several designs, one after the other or on several
// threads at once (one thread per Target), without any process-wide runtime state.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <utility>

#include "vta/runtime_object.h"
#include "vta/sim/hw_config.h"
#include "vta/sim/stats.h"

namespace vta::compiler {

struct ProgramCheck;

// How a layer's output tiles go to the cores of a system (run/core_split.h): kNone runs every
// layer on core 0 alone, as on a single core; kColumns is a matmul's batch (its rows).
enum class LayerSplit { kNone, kChannels, kBatch, kColumns };

struct Target {
  Target(HwConfig cfg, std::string backend_name)
      : config(std::move(cfg)),
        backend(std::move(backend_name)),
        runtime(std::make_shared<Runtime>(backend, config)) {}

  HwConfig config;
  std::string backend;  // "fsim", "cycle" or "rtl" (vta::available_backends())
  // The runtime of this design (its own DRAM, device and command queue), shared by copies of
  // the Target; made from `config` and `backend` at construction (change neither afterwards).
  // Callers may set its hooks (trace, program dump) before compiling.
  std::shared_ptr<Runtime> runtime;
  // Run the static program verifier (program_check.h) on every synchronised program before it
  // executes; a problem is a vta::Error "program verifier: ...".
  bool verify_programs = true;
  // Budget of each synchronised program (VTASynchronize's wait_cycles; fsim counts work units).
  uint32_t max_cycles = 1u << 31;
  // With CORES > 1: each conv2d / matmul layer runs on every core together, its output tiles
  // split this way (run/core_split.h); the default runs on core 0 alone.
  LayerSplit layer_split = LayerSplit::kNone;
  // Optional: also receives the verifier's result for every checked program (e.g. to collect
  // statistics); called before the error for a failing program is thrown.
  std::function<void(const ProgramCheck&)> on_program_check;
  // Optional: told where the steps of a command (network layers on track "layers", tuning
  // candidates on track "candidates") begin and end, with the counters of the step (empty if
  // it failed); the CLI turns them into named slices of the trace.
  std::function<void(const std::string& track, const std::string& name)> on_step_begin;
  std::function<void(const std::string& track, const Stats& counters)> on_step_end;
  // Optional: told when a network layer ran on the host (run_network), by its name; the CLI
  // puts the layer's modelled host time on the trace's "host" track.
  std::function<void(const std::string& layer)> on_host_layer;
};

// Marks one step for Target::on_step_begin / on_step_end; a step left by an exception ends
// with empty counters.
class TargetStep {
 public:
  TargetStep(const Target& target, std::string track, const std::string& name)
      : m_target(target), m_track(std::move(track)) {
    if (m_target.on_step_begin) {
      m_target.on_step_begin(m_track, name);
    }
  }
  ~TargetStep() {
    if (!m_done && m_target.on_step_end) {
      try {
        m_target.on_step_end(m_track, Stats{});
      } catch (...) {  // the step's own error is the one to report
      }
    }
  }
  TargetStep(const TargetStep&) = delete;
  TargetStep& operator=(const TargetStep&) = delete;
  void done(const Stats& counters) {
    m_done = true;
    if (m_target.on_step_end) {
      m_target.on_step_end(m_track, counters);
    }
  }

 private:
  const Target& m_target;
  std::string m_track;
  bool m_done = false;
};

}  // namespace vta::compiler
