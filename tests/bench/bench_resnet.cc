// Quality benchmark of the scheduling compiler on ResNet-18, per design: every layer of the
// benchmark table (C1..C11) and the whole network (`vtasim network resnet18`) with automatic
// schedules, against the honest bound (compiler/README.md, Honest bound and verdict): cycles,
// bound, cycles / bound, which bound binds, the verdict, bytes moved / minimum, and for C1 the
// GEMM micro-ops over those of its true MAC count. Prints the targets of the compiler's
// results section and whether they are met.
// Usage: bench_resnet [backend] [--design pynq|block32|block32-bus64|block64|all]
//                     [--memory fixed|dram] [--layer SUBSTRING] [--tune N] [--no-network]
// --memory: the design's MEMORY_MODEL (default: the preset's; dram uses the board's DRAM set).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "vta/backend_factory.h"
#include "vta/compiler/frontend/network.h"
#include "vta/compiler/reports/report.h"
#include "vta/compiler/run/layer_runner.h"
#include "vta/compiler/scheduling/auto_schedule.h"
#include "vta/runtime_cpp.h"

using namespace vta::compiler;

namespace {

struct Design {
  const char* name;
  const char* preset;
  const char* key;  // one upstream key changed from the preset (or nullptr)
  int value;
  double network_target;  // cycles / honest bound of the whole network
};
const Design kDesigns[] = {
    {"pynq", "pynq", nullptr, 0, 1.05},
    {"block32", "block32", nullptr, 0, 1.15},
    {"block32-bus64", "block32", "LOG_BUS_WIDTH", 6, 1.15},
    {"block64", "block32", "LOG_BLOCK", 6, 1.15},
};

vta::HwConfig design_config(const Design& d, const std::string& memory) {
  const std::string path = std::string(VTA_SOURCE_DIR) + "/configs/" + d.preset + ".json";
  std::ifstream f(path);
  nlohmann::json j = nlohmann::json::parse(f);
  if (d.key) {
    j[d.key] = d.value;
  }
  if (!memory.empty()) {
    j["MEMORY_MODEL"] = memory;
  }
  return vta::HwConfig::from_json(j, std::string(d.name) + " (" + path + ")");
}

std::string fixed(double v, int digits) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

LayerRun run_layer(const Target& target, const NamedConvLayer& layer, size_t tune) {
  const ConvData data = random_conv_data(layer.params, layer.epilogue, 1);
  if (tune) {
    TuneResult t = tune_conv2d(target, layer.params, layer.epilogue, data, tune, false);
    return t.trials[t.best].run;
  }
  const ConvSchedule s = auto_schedule(layer.params, layer.epilogue, target.config);
  return run_conv2d(target, layer.params, layer.epilogue, s, data, false);
}

void print_row(const LayerRun& r) {
  const bool timed = r.stats.timed;
  const double ratio = timed ? double(r.stats.cycles) / r.bound.cycles : 0;
  std::printf("%-16s %-28s %10s %10.0f %7s %-8s %-15s %6.2f\n", r.name.c_str(),
              r.schedule.describe().c_str(), timed ? std::to_string(r.stats.cycles).c_str() : "-",
              r.bound.cycles, timed ? fixed(ratio, 3).c_str() : "-", r.bound.binding(),
              r.verdict.key.c_str(), double(r.moved_bytes()) / double(r.min_bytes));
}

void print_header() {
  std::printf("%-16s %-28s %10s %10s %7s %-8s %-15s %6s\n", "layer", "schedule", "cycles", "bound",
              "x bound", "binds", "verdict", "B/min");
}

// C1..C11 of the benchmark table; returns C1's GEMM micro-ops over its true MACs' (0 if not run).
double bench_layers(const Target& target, const std::string& filter, size_t tune) {
  print_header();
  double c1_ratio = 0;
  for (const auto& layer : resnet18_conv_layers()) {
    if (!filter.empty() && layer.params.name.find(filter) == std::string::npos) {
      continue;
    }
    const LayerRun r = run_layer(target, layer, tune);
    print_row(r);
    std::fflush(stdout);
    if (layer.params.name == "resnet18.C1") {
      const double true_uops = double(r.macs) / double(r.peak_macs_per_cycle);
      c1_ratio = double(r.stats.gemm_counter) / true_uops;
    }
  }
  return c1_ratio;
}

// The whole network; returns (cycles / bound, layers above 1.3x their minimum bytes).
std::pair<double, std::vector<std::string>> bench_network(const Target& target, size_t tune) {
  NetworkOptions opt;
  opt.check = false;
  opt.tune_candidates = tune;
  const NetworkRun run = run_network(target, Network::resnet18(1), opt);
  std::printf("network resnet18:\n");
  print_header();
  std::vector<std::string> heavy;
  double cycles = 0, bound = 0, moved = 0, minimum = 0;
  for (const LayerRun& r : run.runs) {
    print_row(r);
    cycles += double(r.stats.cycles);
    bound += r.bound.cycles;
    moved += double(r.moved_bytes());
    minimum += double(r.min_bytes);
    if (double(r.moved_bytes()) > 1.3 * double(r.min_bytes)) {
      heavy.push_back(r.name + " " + fixed(double(r.moved_bytes()) / double(r.min_bytes), 2));
    }
  }
  std::printf("network: %.0f cycles, bound %.0f, %.3f x bound, %.2f x minimum bytes\n", cycles,
              bound, bound > 0 ? cycles / bound : 0, moved / minimum);
  return {bound > 0 ? cycles / bound : 0, heavy};
}

void bench_design(const Design& d, const std::string& backend, const std::string& memory,
                  const std::string& filter, size_t tune, bool network) {
  Target target(design_config(d, memory), backend);
  target.verify_programs = false;  // timing the compiler and the backend only
  std::printf("\n== design %s: config %s, memory %s, backend %s, %s schedules\n", d.name,
              target.config.model_name.c_str(), target.config.memory.model.c_str(), backend.c_str(),
              tune ? "tuned" : "automatic");
  const double c1 = bench_layers(target, filter, tune);
  if (c1 > 0) {
    std::printf("target C1 <= 1.5 x the GEMM micro-ops of its MACs: %.3f %s\n", c1,
                c1 <= 1.5 ? "met" : "MISSED");
  }
  if (!network || backend == "fsim") {
    return;
  }
  const auto [ratio, heavy] = bench_network(target, tune);
  std::printf("target network <= %.2f x bound: %.3f %s\n", d.network_target, ratio,
              ratio <= d.network_target ? "met" : "MISSED");
  if (std::string(d.name) == "pynq") {
    std::printf("target every layer <= 1.3 x minimum bytes: %s\n", heavy.empty() ? "met" : "");
    for (const std::string& h : heavy) {
      std::printf("  above: %s\n", h.c_str());
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  try {
    std::string backend = "cycle";
    const auto names = vta::available_backends();
    if (std::find(names.begin(), names.end(), backend) == names.end()) {
      backend = "fsim";
    }
    std::string filter, design = "pynq", memory;
    size_t tune = 0;
    bool network = true;
    for (int i = 1; i < argc; ++i) {
      const std::string a = argv[i];
      if (a == "--tune" && i + 1 < argc) {
        tune = size_t(std::atoi(argv[++i]));
      } else if (a == "--design" && i + 1 < argc) {
        design = argv[++i];
      } else if (a == "--memory" && i + 1 < argc) {
        memory = argv[++i];
      } else if (a == "--layer" && i + 1 < argc) {
        filter = argv[++i];
        network = false;
      } else if (a == "--no-network") {
        network = false;
      } else if (i == 1 && a[0] != '-') {
        backend = a;
      } else {
        std::fprintf(stderr, "bench_resnet: error: unknown argument '%s'\n", a.c_str());
        return 2;
      }
    }
    vta::set_error_mode(vta::ErrorMode::kThrow);
    bool found = false;
    for (const Design& d : kDesigns) {
      if (design == "all" || design == d.name) {
        found = true;
        bench_design(d, backend, memory, filter, tune, network);
      }
    }
    if (!found) {
      std::fprintf(stderr, "bench_resnet: error: unknown design '%s'\n", design.c_str());
      return 2;
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_resnet: error: %s\n", e.what());
    return 1;
  }
}
