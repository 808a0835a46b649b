// Grouped convolutions and ALU layers divided over the cores of a system (docs/multicore.md,
// "Grouped convolutions and ALU layers"): MobileNet-v2's depthwise layers, ResNet-18's stem
// pool and a residual-sized add on 1, 2 and 4 cores of a config, on the cycle backend, each
// divided by the channel split; every run's output compared with the single core's, which is
// compared with the plain reference.
// Usage: bench_multicore_layers [config] [cores...]   (default: pynq 1 2 4)
#include <algorithm>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "random_bytes.h"
#include "vta/compiler/references/reference.h"
#include "vta/compiler/run/alu_runner.h"
#include "vta/compiler/run/grouped_conv_runner.h"
#include "vta/compiler/scheduling/auto_schedule.h"

using namespace vta;
using namespace vta::compiler;

namespace {

struct Case {
  const char* what;
  int c, hw, stride;  // depthwise 3x3 pad 1 (stride), or a pool / add (c, hw)
  const char* op;     // "dw", "maxpool", "add"
};
const Case kCases[] = {
    {"mobilenet_v2 dw 3x3 1x96x112x112 s2", 96, 112, 2, "dw"},
    {"mobilenet_v2 dw 3x3 1x144x56x56", 144, 56, 1, "dw"},
    {"mobilenet_v2 dw 3x3 1x192x28x28", 192, 28, 1, "dw"},
    {"mobilenet_v2 dw 3x3 1x576x14x14", 576, 14, 1, "dw"},
    {"resnet18 stem maxpool 3x3/2 1x64x112x112", 64, 112, 2, "maxpool"},
    {"add 1x64x56x56 with ReLU", 64, 56, 1, "add"},
};

Target target_of(const std::string& config, int cores) {
  nlohmann::json j =
      HwConfig::from_file(std::string(VTA_SOURCE_DIR) + "/configs/" + config + ".json").to_json();
  if (cores > 1) {
    j["CORES"] = cores;
  }
  Target t(HwConfig::from_json(j, config), "cycle");
  t.layer_split = cores > 1 ? LayerSplit::kChannels : LayerSplit::kNone;
  return t;
}

// The depthwise layer's reference: every channel a convolution of one input channel.
std::vector<int8_t> depthwise_reference(const Conv2dParams& whole, const Epilogue& e,
                                        const ConvData& d) {
  Conv2dParams one = whole;
  one.c = one.k = 1;
  const size_t in_plane = size_t(whole.h) * whole.w, out_plane = size_t(one.out_h()) * one.out_w();
  std::vector<int8_t> out;
  for (int ch = 0; ch < whole.c; ++ch) {
    const std::vector<int8_t> x(d.x.begin() + long(ch * in_plane),
                                d.x.begin() + long((ch + 1) * in_plane));
    const std::vector<int8_t> w(d.w.begin() + ch * 9, d.w.begin() + (ch + 1) * 9);
    const std::vector<int8_t> o = conv2d_reference(one, e, x, w, {}, {});
    out.insert(out.end(), o.begin(), o.begin() + long(out_plane));
  }
  return out;
}

LayerRun run_depthwise(const Target& t, const Case& c, std::mt19937& rng) {
  Conv2dParams p;
  p.name = c.what;
  p.c = p.k = c.c, p.h = p.w = c.hw, p.kh = p.kw = 3, p.stride_h = p.stride_w = c.stride;
  p.pad_top = p.pad_bottom = p.pad_left = p.pad_right = 1;
  Epilogue e;
  e.shift = 6, e.relu = true, e.clip_hi = 127;
  ConvData d;
  d.x = random_bytes(size_t(c.c) * c.hw * c.hw, rng);
  d.w = random_bytes(size_t(c.c) * 9, rng);
  const GroupedConvSplit g = GroupedConvSplit::make(p, c.c, t.config);
  const std::vector<int8_t> ref = depthwise_reference(p, e, d);
  return run_conv2d_in_group_sets(t, g, e, auto_schedule(g.set, e, t.config), d, &ref);
}

LayerRun run_alu(const Target& t, const Case& c, std::mt19937& rng) {
  const std::vector<int8_t> x = random_bytes(size_t(c.c) * c.hw * c.hw, rng);
  if (std::string(c.op) == "maxpool") {
    PoolWindow p;
    p.c = c.c, p.h = p.w = c.hw, p.kh = p.kw = 3, p.stride_h = p.stride_w = 2;
    p.pad_top = p.pad_left = 1;
    p.oh = p.ow = (c.hw - 1) / 2 + 1;
    return run_alu_pool(t, c.what, p, x, nullptr);
  }
  const std::vector<int8_t> y = random_bytes(x.size(), rng);
  std::vector<int8_t> ref(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    ref[i] = int8_t(std::clamp(int(x[i]) + int(y[i]), 0, 127));
  }
  return run_alu_add(t, c.what, AluAddPlan::make(1, c.c, c.hw, c.hw, 0, 127, t.config), x, y, &ref);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string config = argc > 1 ? argv[1] : "pynq";
  std::vector<int> cores;
  for (int i = 2; i < argc; ++i) {
    cores.push_back(std::stoi(argv[i]));
  }
  if (cores.empty()) {
    cores = {1, 2, 4};
  }
  std::printf("| layer | config | cores | split | cycles | speed-up | check |\n");
  std::printf("| --- | --- | ---: | --- | ---: | ---: | --- |\n");
  for (const Case& c : kCases) {
    uint64_t one = 0;
    std::vector<int8_t> first;
    for (const int n : cores) {
      std::mt19937 rng(2024);  // the same data on every number of cores
      const Target t = target_of(config, n);
      const LayerRun r = std::string(c.op) == "dw" ? run_depthwise(t, c, rng) : run_alu(t, c, rng);
      one = one ? one : r.stats.cycles;
      first = first.empty() ? r.out : first;
      const bool same = r.out == first && r.ok();
      std::printf("| %s | %s | %d | %s | %llu | %.2f | %s |\n", c.what, config.c_str(), n,
                  r.split.empty() ? "-" : r.split.c_str(), (unsigned long long)r.stats.cycles,
                  double(one) / double(r.stats.cycles),
                  same ? (r.checked ? "reference, 1 core" : "1 core") : "MISMATCH");
    }
  }
  return 0;
}
