// The operators VTA runs on its ALU alone (max and average pools, clamped add, mul, min, max, a
// scale by a power of two) and grouped / depthwise convolutions on the GEMM core in sets of
// groups: for a few layer shapes and designs, the cycle estimate the placement uses, the cycles
// of the cycle model (values checked against the host's int8 execution), VTA's time at the
// design's clock, the host CPU model's time and where choose_placement puts the layer.
// Usage: bench_alu_ops [config...]   (default: pynq ultra96 block32)
#include <cstdio>
#include <string>
#include <vector>

#include "vta/backend_factory.h"
#include "vta/compiler/ops/op_def.h"
#include "vta/compiler/run/alu_runner.h"
#include "vta/compiler/run/grouped_conv_runner.h"
#include "vta/compiler/scheduling/auto_schedule.h"
#include "vta/runtime_cpp.h"

using namespace vta::compiler;

namespace {

struct Case {
  const char* what;
  const char* op;
  TensorShape in;
  int k, s, pad;            // window
  int out = 0, groups = 0;  // conv2d: output channels, groups; mul: out 1 = per channel
};
const Case kCases[] = {
    {"resnet18 stem pool", "maxpool", {1, 64, 112, 112}, 3, 2, 1},
    {"resnet18 stem pool at 32x32", "maxpool", {1, 64, 16, 16}, 3, 2, 1},
    {"small pool", "maxpool", {1, 16, 8, 8}, 3, 2, 1},
    {"add 1x64x56x56", "add", {1, 64, 56, 56}, 0, 0, 0},
    {"add 1x16x8x8", "add", {1, 16, 8, 8}, 0, 0, 0},
    {"mobilenet_v2 dw 144x56x56", "conv2d", {1, 144, 56, 56}, 3, 1, 1, 144, 144},
    {"resnext50 3x3 128x56x56 g32", "conv2d", {1, 128, 56, 56}, 3, 1, 1, 128, 32},
    {"regnet_x 3x3 64x28x28 g4", "conv2d", {1, 64, 28, 28}, 3, 1, 1, 64, 4},
    {"mul 1x16x32x32 (hardswish)", "mul", {1, 16, 32, 32}, 0, 0, 0},
    {"mul 1x96x4x4 (hardswish)", "mul", {1, 96, 4, 4}, 0, 0, 0},
    {"SE mul 1x96x4x4 per channel", "mul", {1, 96, 4, 4}, 0, 0, 0, 1},
    {"SE mul 1x576x2x2 per channel", "mul", {1, 576, 2, 2}, 0, 0, 0, 1},
    {"avgpool 2x2/2 1x64x56x56", "avgpool", {1, 64, 56, 56}, 2, 2, 0},
    {"avgpool 2x2/2 1x16x8x8", "avgpool", {1, 16, 8, 8}, 2, 2, 0},
    {"SE global avgpool 1x96x4x4", "global_avgpool", {1, 96, 4, 4}, 0, 0, 0},
    {"SE global avgpool 1x16x16x16", "global_avgpool", {1, 16, 16, 16}, 0, 0, 0},
    {"min 1x64x56x56", "min", {1, 64, 56, 56}, 0, 0, 0},
    {"min 1x16x8x8", "min", {1, 16, 8, 8}, 0, 0, 0},
    {"max 1x64x28x28", "max", {1, 64, 28, 28}, 0, 0, 0},
    {"max 1x16x8x8", "max", {1, 16, 8, 8}, 0, 0, 0},
    {"scale x*0.25 1x64x56x56", "scale", {1, 64, 56, 56}, 0, 0, 0},
    {"scale x*0.25 1x16x8x8", "scale", {1, 16, 8, 8}, 0, 0, 0},
};

NetworkLayer layer_of(const Case& c) {
  NetworkLayer l;
  l.name = "x";
  l.op = c.op;
  l.input = "data";
  const std::string op = c.op;
  l.residual = c.k || op == "global_avgpool" || op == "scale" ? "" : "data";
  l.k = c.out, l.groups = c.groups ? c.groups : 1;
  l.epilogue.shift = c.groups ? 8 : 0;
  l.kh = l.kw = c.k;
  l.stride_h = l.stride_w = c.s;
  l.pad_top = l.pad_left = l.pad_bottom = l.pad_right = c.pad;
  l.epilogue.relu = true;
  if (std::string(c.op) == "mul") {  // the importer's scales of a hardswish product
    l.attrs = {{"a_exp", 4}, {"b_exp", 7}, {"out_exp", 4}, {"per_channel", c.out}};
    l.k = 0, l.groups = 1;
  }
  if (op == "scale") {  // x * 0.25 at one exponent: a multiply and a rounding shift by 2
    l.attrs = {{"alpha", 0.25}, {"beta", 0}, {"in_exp", 4}, {"out_exp", 4}};
  }
  return l;
}

LayerRun run_case(const Target& t, const Case& c, const NetworkLayer& l) {
  const TensorShape& s = c.in;
  const std::vector<int8_t> x(size_t(s.n) * s.c * s.h * s.w, 5);
  if (c.groups) {
    Conv2dParams p;
    p.n = s.n, p.c = s.c, p.h = s.h, p.w = s.w, p.k = c.out, p.kh = p.kw = c.k;
    p.stride_h = p.stride_w = c.s;
    p.pad_top = p.pad_left = p.pad_bottom = p.pad_right = c.pad;
    const GroupedConvSplit g = GroupedConvSplit::make(p, c.groups, t.config);
    ConvData d;
    d.x = x;
    d.w.assign(size_t(c.out) * (s.c / c.groups) * c.k * c.k, 3);
    return run_conv2d_in_group_sets(t, g, l.epilogue, auto_schedule(g.set, l.epilogue, t.config), d,
                                    nullptr);
  }
  if (std::string(c.op) == "mul") {
    NetworkLayerJob job;
    job.input_shape = NetworkTensor{s.n, s.c, s.h, s.w, {}};
    job.conv.x = x;
    job.conv.residual.assign(c.out ? size_t(s.n) * s.c : x.size(), 3);
    return op_def("mul").vta.run(t, Network{}, l, job, NetworkOptions{}).run;
  }
  const std::string op = c.op;
  if (op.find("avgpool") != std::string::npos || op == "min" || op == "max" || op == "scale") {
    NetworkLayerJob job;
    job.input_shape = NetworkTensor{s.n, s.c, s.h, s.w, {}};
    job.conv.x = x;
    if (!l.residual.empty()) {
      job.conv.residual.assign(x.size(), 3);
    }
    return op_def(c.op).vta.run(t, Network{}, l, job, NetworkOptions{}).run;
  }
  if (c.k) {
    PoolWindow p;
    p.n = s.n, p.c = s.c, p.h = s.h, p.w = s.w, p.kh = p.kw = c.k, p.stride_h = p.stride_w = c.s;
    p.pad_top = p.pad_left = c.pad;
    p.oh = (s.h + 2 * c.pad - c.k) / c.s + 1, p.ow = (s.w + 2 * c.pad - c.k) / c.s + 1;
    return run_alu_pool(t, l.name, p, x, nullptr);
  }
  return run_alu_add(t, l.name, AluAddPlan::make(s.n, s.c, s.h, s.w, 0, 127, t.config), x, x,
                     nullptr);
}

}  // namespace

int main(int argc, char** argv) {
  vta::set_error_mode(vta::ErrorMode::kThrow);
  std::vector<std::string> configs(argv + 1, argv + argc);
  if (configs.empty()) {
    configs = {"pynq", "ultra96", "block32"};
  }
  std::printf("%-28s %-8s %10s %10s %10s %10s  %s\n", "layer", "config", "estimate", "cycles",
              "VTA us", "host us", "placed");
  for (const std::string& name : configs) {
    const Target t(
        vta::HwConfig::from_file(std::string(VTA_SOURCE_DIR) + "/configs/" + name + ".json"),
        "cycle");
    for (const Case& c : kCases) {
      const NetworkLayer l = layer_of(c);
      const PlacementChoice p = choose_placement(l, c.in, &t.config);
      const LayerRun r = run_case(t, c, l);
      const double est = double(op_def(c.op).vta.estimate_cycles(l, c.in, t.config));
      const HostWorkCount w = op_def(c.op).host_work(l, c.in);
      const double host = host_layer_us(host_cpu_for(t.config.target), w.work, w.ops, w.bytes);
      std::printf("%-28s %-8s %10.0f %10llu %10.1f %10.1f  %s\n", c.what, name.c_str(), est,
                  static_cast<unsigned long long>(r.stats.cycles),
                  double(r.stats.cycles) / t.config.clock_mhz, host, p.reason.c_str());
    }
  }
  return 0;
}
