// Cost of the C++ reference check against the simulation it checks. Per ResNet-18 layer shape
// (C1..C11 and the 512->1000 dense layer, random data): the plain reference loops (with
// --plain; slow), the fast reference (im2col + vectorised int8 product) and the simulation of
// the layer on the backend (automatic schedule, no verifier, no check). Then the whole built-in
// ResNet-18 network: wall time without the check, with it (empty reference cache) and with it
// again in the same process (every reference from the cache, as in a sweep worker).
// Usage: bench_reference [backend] [--plain]
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>

#include "vta/compiler/frontend/network.h"
#include "vta/compiler/references/fast_reference.h"
#include "vta/compiler/references/reference.h"
#include "vta/compiler/references/reference_cache.h"
#include "vta/compiler/run/layer_runner.h"
#include "vta/compiler/scheduling/auto_schedule.h"
#include "vta/runtime_cpp.h"

using namespace vta::compiler;

namespace {

template <typename F>
double seconds_of(const F& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void bench_layers(const Target& target, bool plain) {
  std::printf("%-12s %10s %10s %10s %10s %9s\n", "layer", "MMAC", "plain ms", "fast ms", "sim ms",
              "fast/sim");
  double fast_total = 0, sim_total = 0;
  for (const auto& layer : resnet18_conv_layers()) {
    const Conv2dParams& p = layer.params;
    const Epilogue& e = layer.epilogue;
    const ConvData d = random_conv_data(p, e, 1);
    double plain_s = 0;
    if (plain) {
      plain_s = seconds_of([&] { conv2d_reference(p, e, d.x, d.w, d.bias, d.residual); });
    }
    const double fast_s =
        seconds_of([&] { conv2d_reference_fast(p, e, d.x, d.w, d.bias, d.residual); });
    const ConvSchedule s = auto_schedule(p, e, target.config);
    const double sim_s = seconds_of([&] { run_conv2d(target, p, e, s, d, false); });
    fast_total += fast_s;
    sim_total += sim_s;
    std::printf("%-12s %10.1f %10s %10.2f %10.2f %9.2f\n", p.name.c_str(), double(p.macs()) / 1e6,
                plain ? std::to_string(plain_s * 1e3).substr(0, 7).c_str() : "-", fast_s * 1e3,
                sim_s * 1e3, fast_s / sim_s);
  }
  MatmulParams fc;
  fc.name = "fc";
  fc.m = 1, fc.k = 512, fc.n = 1000;
  Epilogue e;
  e.shift = 8;
  const MatmulData d = random_matmul_data(fc, e, 1);
  const double fast_s = seconds_of([&] { matmul_reference_fast(fc, e, d.a, d.b, d.bias); });
  std::printf("%-12s %10.1f %10s %10.2f\n", "fc", double(fc.macs()) / 1e6, "-", fast_s * 1e3);
  std::printf("layers C1..C11: fast reference %.1f ms, simulation %.1f ms (%.2fx)\n",
              fast_total * 1e3, sim_total * 1e3, fast_total / sim_total);
}

void bench_network(Target target) {
  const Network net = Network::resnet18();
  NetworkOptions off;
  off.check = false;
  NetworkOptions on;
  target.verify_programs = false;
  const double t_off = seconds_of([&] { run_network(target, net, off); });
  ReferenceCache::process().clear();
  const double t_on = seconds_of([&] { run_network(target, net, on); });
  const double t_cached = seconds_of([&] { run_network(target, net, on); });
  const auto c = ReferenceCache::process().counters();
  std::printf(
      "network resnet18 (no verifier): no check %.3f s, check %.3f s (%.2fx), check from the "
      "cache %.3f s (%.2fx); cache %llu hits, %llu misses, %.1f MiB\n",
      t_off, t_on, t_on / t_off, t_cached, t_cached / t_off, (unsigned long long)c.hits,
      (unsigned long long)c.misses, double(c.bytes) / (1 << 20));
}

}  // namespace

int main(int argc, char** argv) {
  try {
    std::string backend = "cycle";
    bool plain = false;
    for (int i = 1; i < argc; ++i) {
      if (!std::strcmp(argv[i], "--plain")) {
        plain = true;
      } else {
        backend = argv[i];
      }
    }
    vta::set_error_mode(vta::ErrorMode::kThrow);
    Target target(vta::HwConfig::default_config(), backend);
    target.verify_programs = false;
    std::printf("bench_reference: backend %s, config %s\n", backend.c_str(),
                target.config.model_name.c_str());
    bench_layers(target, plain);
    bench_network(target);
    return 0;
  } catch (const std::exception& ex) {
    std::fprintf(stderr, "bench_reference: %s\n", ex.what());
    return 1;
  }
}
