// Quality benchmark of the scheduling compiler: every ResNet-18 layer (C1..C11) on the default
// config with the automatic schedule, on the cycle backend (fsim if cycle is not built):
// cycles and cycles / compute lower bound, where the bound is the GEMM micro-op count
// (MACs / (BATCH*BLOCK_IN*BLOCK_OUT) over the channel-padded layer). Target: <= 1.25 for the
// 3x3 layers. Usage: bench_resnet [backend] [layer-substring] [--tune N]
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "vta/backend_factory.h"
#include "vta/compiler/auto_schedule.h"
#include "vta/compiler/layer_runner.h"
#include "vta/runtime_cpp.h"

using namespace vta::compiler;

int main(int argc, char** argv) {
  try {
    std::string backend = "cycle";
    const auto names = vta::available_backends();
    bool have_cycle = false;
    for (const auto& n : names) {
      have_cycle = have_cycle || n == "cycle";
    }
    if (!have_cycle) {
      backend = "fsim";
    }
    std::string filter;
    size_t tune = 0;
    for (int i = 1; i < argc; ++i) {
      if (!std::strcmp(argv[i], "--tune") && i + 1 < argc) {
        tune = size_t(std::atoi(argv[++i]));
      } else if (backend == "cycle" && i == 1) {
        backend = argv[i];
      } else {
        filter = argv[i];
      }
    }
    vta::set_error_mode(vta::ErrorMode::kThrow);
    Target target(vta::HwConfig::default_config(), backend);
    target.verify_programs = false;  // timing the compiler and the backend only
    const vta::HwConfig& cfg = target.config;
    std::printf("bench_resnet: backend %s, config %s, %s schedules\n", backend.c_str(),
                cfg.model_name.c_str(), tune ? "tuned" : "automatic");
    std::printf("%-14s %-22s %12s %12s %8s %8s %9s\n", "layer", "schedule", "cycles", "bound",
                "x bound", "est x", "wall s");
    double worst3x3 = 0;
    for (const auto& layer : resnet18_conv_layers()) {
      if (!filter.empty() && layer.params.name.find(filter) == std::string::npos) {
        continue;
      }
      const ConvData data = random_conv_data(layer.params, layer.epilogue, 1);
      ConvSchedule s;
      double est = 0;
      LayerRun r;
      if (tune) {
        TuneResult t = tune_conv2d(target, layer.params, layer.epilogue, data, tune, false);
        s = t.trials[t.best].schedule;
        est = t.trials[t.best].est_cycles;
        r = t.trials[t.best].run;
      } else {
        const auto ranked = rank_schedules(layer.params, layer.epilogue, cfg, 1);
        s = ranked.front().schedule;
        est = ranked.front().est_cycles;
        r = run_conv2d(target, layer.params, layer.epilogue, s, data, false);
      }
      const double bound = double(r.gemm_bound);
      const double cycles = r.stats.timed ? double(r.stats.cycles) : 0;
      const std::string measured = r.stats.timed ? std::to_string(uint64_t(cycles)) : "-";
      char ratio_text[32] = "-";
      if (r.stats.timed) {
        std::snprintf(ratio_text, sizeof ratio_text, "%.3f", cycles / bound);
      }
      const std::string ratio = ratio_text;
      std::printf("%-14s %-22s %12s %12.0f %8s %8.3f %9.2f\n", layer.params.name.c_str(),
                  s.describe().c_str(), measured.c_str(), bound, ratio.c_str(), est / bound,
                  r.wall_seconds);
      std::fflush(stdout);
      if (layer.params.kh == 3) {
        worst3x3 = std::max(worst3x3, cycles / bound);
      }
    }
    if (worst3x3 > 0) {
      std::printf("worst 3x3 layer: %.3f x bound (target 1.25)\n", worst3x3);
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_resnet: error: %s\n", e.what());
    return 1;
  }
}
