#include "vta/compiler/run/layer_runner.h"

#include <chrono>
#include <map>
#include <mutex>
#include <random>
#include <string>

#include <fmt/format.h>

#include "codegen/runtime_sink.h"
#include "run/conv_device.h"
#include "run/packed_conv_run.h"
#include "vta/compiler/codegen/conv_codegen.h"
#include "vta/compiler/codegen/kernel_fold.h"
#include "vta/compiler/codegen/lane_packing.h"
#include "vta/compiler/codegen/layout.h"
#include "vta/compiler/references/reference_cache.h"
#include "vta/compiler/references/width_reference.h"
#include "vta/compiler/run/core_split.h"
#include "vta/compiler/run/layer_widths.h"
#include "vta/sim/error.h"

namespace vta::compiler {

namespace {

// Eight values per 64-bit draw (every byte of mt19937_64's output is uniform on 0..255): one
// draw per value made the generator a sixth of a network run's time.
std::vector<int8_t> random_int8(size_t n, std::mt19937_64& rng) {
  std::vector<int8_t> v(n);
  for (size_t k = 0; k < n; k += 8) {
    const uint64_t r = rng();
    for (size_t j = 0; j < 8 && k + j < n; ++j) {
      v[k + j] = int8_t(uint8_t(r >> (8 * j)));
    }
  }
  return v;
}

std::vector<int32_t> random_bias(size_t n, std::mt19937_64& rng) {
  std::uniform_int_distribution<int32_t> d(-(1 << 14), (1 << 14) - 1);
  std::vector<int32_t> v(n);
  for (auto& x : v) {
    x = d(rng);
  }
  return v;
}

}  // namespace

ConvData random_conv_data(const Conv2dParams& p, const Epilogue& e, uint64_t seed) {
  std::mt19937_64 rng(seed);
  ConvData d;
  d.x = random_int8(size_t(p.n) * p.c * p.h * p.w, rng);
  d.w = random_int8(size_t(p.k) * p.c * p.kh * p.kw, rng);
  if (e.bias) {
    d.bias = random_bias(size_t(p.k), rng);
  }
  if (e.residual) {
    d.residual = random_int8(size_t(p.n) * p.k * p.out_h() * p.out_w(), rng);
  }
  return d;
}

namespace {

ConvData draw_conv_weights(const Conv2dParams& p, const Epilogue& e, uint64_t seed) {
  std::mt19937_64 rng(seed);
  rng.discard((size_t(p.n) * p.c * p.h * p.w + 7) / 8);  // random_int8's draws for the input
  ConvData d;
  d.w = random_int8(size_t(p.k) * p.c * p.kh * p.kw, rng);
  if (e.bias) {
    d.bias = random_bias(size_t(p.k), rng);
  }
  return d;
}

}  // namespace

// Memoised per process: a sweep worker runs the same network's layers on every design point,
// and drawing ResNet-18's 11 M weights was a twentieth of a point. Bounded; when full, the
// cache starts again.
ConvData random_conv_weights(const Conv2dParams& p, const Epilogue& e, uint64_t seed) {
  static std::mutex mutex;
  static std::map<std::string, ConvData> cache;
  static size_t bytes = 0;
  constexpr size_t kCapacityBytes = size_t(64) << 20;
  const std::string key =
      fmt::format("{} {} {} {} {} {} {} {} {}", p.n, p.c, p.h, p.w, p.k, p.kh, p.kw, e.bias, seed);
  const std::lock_guard<std::mutex> lock(mutex);
  auto it = cache.find(key);
  if (it == cache.end()) {
    ConvData d = draw_conv_weights(p, e, seed);
    const size_t size = d.w.size() + d.bias.size() * sizeof(int32_t);
    if (bytes + size > kCapacityBytes) {
      cache.clear();
      bytes = 0;
    }
    bytes += size;
    it = cache.emplace(key, std::move(d)).first;
  }
  return it->second;
}

MatmulData random_matmul_data(const MatmulParams& p, const Epilogue& e, uint64_t seed) {
  std::mt19937_64 rng(seed);
  MatmulData d;
  d.a = random_int8(size_t(p.m) * p.k, rng);
  d.b = random_int8(size_t(p.k) * p.n, rng);
  if (e.bias) {
    d.bias = random_bias(size_t(p.n), rng);
  }
  return d;
}

void LayerRun::add_program(const LayerRun& part) {
  stats.add_counts(part.stats);
  wall_seconds += part.wall_seconds;
  gemm_bound += part.gemm_bound;
  min_bytes += part.min_bytes;
  kernels += part.kernels, kernel_uops += part.kernel_uops;
  bound.gemm_cycles += part.bound.gemm_cycles;
  bound.alu_cycles += part.bound.alu_cycles;
  bound.acc_load_cycles += part.bound.acc_load_cycles;
  bound.compute_cycles += part.bound.compute_cycles;
  bound.bytes.read += part.bound.bytes.read;
  bound.bytes.write += part.bound.bytes.write;
  bound.bytes.acc_counted += part.bound.bytes.acc_counted;
  bound.bytes.acc_moved += part.bound.bytes.acc_moved;
  bound.memory_cycles += part.bound.memory_cycles;
  bound.cycles += part.bound.cycles;
}

uint64_t LayerRun::moved_bytes() const {
  return stats.inp_load_nbytes + stats.wgt_load_nbytes + stats.acc_load_nbytes +
         stats.uop_load_nbytes + stats.out_store_nbytes;
}

LayerRun run_packed_conv2d(const Target& target, const Conv2dParams& p, const TilePlan& plan,
                           const PackedConv& packed, std::vector<int8_t>& out_bytes) {
  const HwConfig& cfg = target.config;
  RuntimeSink sink(target);  // outlives the buffers below
  ConvCodegen codegen(plan, cfg);
  const ConvDeviceTensors tensors = upload(sink, plan, cfg, packed, codegen.zero_bytes());
  sink.clear_stats();
  const auto t0 = std::chrono::steady_clock::now();
  codegen.emit(sink, tensors.buffers());
  sink.synchronize();
  const auto t1 = std::chrono::steady_clock::now();

  LayerRun r = describe_conv_run(target, p, plan);
  r.stats = sink.stats();
  r.verdict = verdict_of(r.bound, r.stats, cfg);
  r.wall_seconds = std::chrono::duration<double>(t1 - t0).count();
  r.kernels = codegen.kernel_count();
  r.kernel_uops = codegen.kernel_uops();
  out_bytes = tensors.out.read<int8_t>();
  return r;
}

namespace {

// The layer on every core of the split at once: one program per core over its tile range,
// all into the same output tensor, started together.
LayerRun run_split_conv2d(const Target& target, const Conv2dParams& p, const Epilogue& e,
                          const TilePlan& plan, const CoreSplitPlan& split,
                          const PackedConv& packed, std::vector<int8_t>& out_bytes) {
  const HwConfig& cfg = target.config;
  RuntimeSink sink(target);  // outlives the buffers below
  std::vector<std::unique_ptr<ConvCodegen>> codegens;
  for (size_t k = 0; k < split.ranges.size(); ++k) {
    codegens.push_back(std::make_unique<ConvCodegen>(plan, cfg));
  }
  const ConvDeviceTensors tensors = upload(sink, plan, cfg, packed, codegens[0]->zero_bytes());
  sink.clear_stats();
  const auto t0 = std::chrono::steady_clock::now();
  {
    SystemRunScope system(*target.runtime);
    for (size_t k = 0; k < split.ranges.size(); ++k) {
      system.record_on(int(k));
      codegens[k]->emit(sink, tensors.buffers(), split.ranges[k]);
      sink.synchronize();  // kept for the run of all cores
    }
    if (system.run(target.max_cycles)) {
      throw Error(fmt::format("{}: the {} cores did not all finish within {} cycles",
                              p.name.empty() ? "conv2d" : p.name, split.ranges.size(),
                              target.max_cycles));
    }
  }
  const auto t1 = std::chrono::steady_clock::now();
  LayerRun r = describe_conv_run(target, p, plan);
  r.peak_macs_per_cycle *= split.ranges.size();  // every core's MACs in a cycle of the system
  r.bound = estimate_split(e, split, cfg).bound;
  r.min_bytes = r.bound.bytes.total();
  r.stats = system_run_stats(target.runtime->backend());
  r.verdict = verdict_of(r.bound, r.stats, cfg);
  r.wall_seconds = std::chrono::duration<double>(t1 - t0).count();
  for (const auto& c : codegens) {
    r.kernels += c->kernel_count();
    r.kernel_uops += c->kernel_uops();
  }
  out_bytes = tensors.out.read<int8_t>();
  return r;
}

// The layer's run on the target: split over the cores as target.layer_split says, else (one
// core, no split, or a layer the split cannot divide) on core 0 alone.
LayerRun run_planned_conv2d(const Target& target, const Conv2dParams& p, const Epilogue& e,
                            const ConvSchedule& s, const ConvData& data,
                            std::vector<int8_t>& out_bytes, TilePlan& plan) {
  const HwConfig& cfg = target.config;
  CoreSplitPlan split;
  if (target.layer_split != LayerSplit::kNone && cfg.num_cores() > 1) {
    split = split_layer(p, s, target.layer_split, cfg.num_cores(), cfg);
  }
  plan = TilePlan::make(p, e, split.split != LayerSplit::kNone ? split.schedule : s, cfg);
  const PackedConv packed = pack_conv(plan, cfg, s.fold_rows ? planned_data(p, s, data) : data);
  LayerRun r = split.split != LayerSplit::kNone
                   ? run_split_conv2d(target, p, e, plan, split, packed, out_bytes)
                   : run_packed_conv2d(target, p, plan, packed, out_bytes);
  if (target.layer_split != LayerSplit::kNone && cfg.num_cores() > 1) {
    r.split = fmt::format("{}: {}", layer_split_name(target.layer_split), split.why);
  }
  return r;
}

}  // namespace

LayerRun run_conv2d(const Target& target, const Conv2dParams& p, const Epilogue& layer_e,
                    const ConvSchedule& s, const ConvData& data, bool check) {
  const HwConfig& cfg = target.config;
  const LayerWidths widths = LayerWidths::of(cfg);
  check_layer_widths(cfg, p.name.empty() ? "conv2d" : p.name);
  const Epilogue e = epilogue_at_widths(layer_e, cfg);
  check_conv_data(p, e, data);
  check_conv_lanes(p.name.empty() ? "conv2d" : p.name, data, widths);
  std::vector<int8_t> out_bytes;
  TilePlan plan;
  LayerRun r = run_planned_conv2d(target, p, e, s, data, out_bytes, plan);
  const BlockedConv& g = plan.g;
  const size_t out_lanes = size_t(g.nb) * g.ocb * g.oh * g.ow * cfg.batch * cfg.block_out;
  r.out = unpack_nchw(unpack_lanes(std::move(out_bytes), cfg.out_width, out_lanes), p.n, p.k, g.oh,
                      g.ow, g.batch, g.block_out);
  if (check) {
    check_conv_output(r, p, e, data, widths);
  }
  return r;
}

Conv2dParams matmul_as_conv(const MatmulParams& p, const HwConfig& cfg) {
  const int batch = cfg.batch;
  Conv2dParams c;
  c.name = p.name;
  c.n = batch;
  c.c = p.k;
  c.h = 1;
  c.w = ceil_div(p.m, batch);
  c.k = p.n;
  c.kh = c.kw = 1;
  return c;
}

LayerRun run_matmul(const Target& target, const MatmulParams& p, const Epilogue& e,
                    const ConvSchedule& s, const MatmulData& data, bool check) {
  check_matmul_data(p, e, data);
  const Conv2dParams c = matmul_as_conv(p, target.config);
  // A matmul's batch is its rows: the convolution's columns.
  Target t = target;
  if (t.layer_split == LayerSplit::kBatch) {
    t.layer_split = LayerSplit::kColumns;
  }
  LayerRun r = run_conv2d(t, c, e, s, matmul_conv_data(p, c, data), false);
  r.out = matmul_output(p, c, r.out);
  r.kind = "matmul";
  r.shape = p.describe();
  r.macs = p.macs();
  if (check) {
    check_matmul_output(r, p, e, data, LayerWidths::of(target.config));
  }
  return r;
}

}  // namespace vta::compiler
