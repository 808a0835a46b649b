#include "vta/compiler/run/layer_runner.h"

#include <chrono>
#include <map>
#include <mutex>
#include <random>
#include <string>

#include <fmt/format.h>

#include "codegen/runtime_sink.h"
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

// A device buffer of a sink, owned for the duration of one run.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(ProgramSink& sink, size_t bytes) : m_sink(&sink), m_bytes(bytes) {
    if (bytes) {
      m_handle = sink.alloc(bytes);
    }
  }
  template <typename T>
  static DeviceBuffer from(ProgramSink& sink, const std::vector<T>& host) {
    DeviceBuffer b(sink, host.size() * sizeof(T));
    if (b.m_handle) {
      sink.copy_in(b.m_handle, host.data(), b.m_bytes);
    }
    return b;
  }
  DeviceBuffer(DeviceBuffer&& o) noexcept
      : m_sink(o.m_sink), m_handle(o.m_handle), m_bytes(o.m_bytes) {
    o.m_handle = nullptr;
  }
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    std::swap(m_sink, o.m_sink);
    std::swap(m_handle, o.m_handle);
    std::swap(m_bytes, o.m_bytes);
    return *this;
  }
  ~DeviceBuffer() {
    if (m_handle) {
      m_sink->free(m_handle);
    }
  }
  BufferHandle get() const { return m_handle; }
  template <typename T>
  std::vector<T> read() const {
    std::vector<T> host(m_bytes / sizeof(T));
    m_sink->copy_out(m_handle, host.data(), m_bytes);
    return host;
  }

 private:
  ProgramSink* m_sink = nullptr;
  BufferHandle m_handle = nullptr;
  size_t m_bytes = 0;
};

// The device copies of a convolution's tensors, in the blocked layouts.
struct ConvDeviceTensors {
  DeviceBuffer inp, wgt, out, bias, residual, zeros, shifts;
  ConvBuffers buffers() const {
    return ConvBuffers{inp.get(),      wgt.get(),   out.get(),   bias.get(),
                       residual.get(), zeros.get(), shifts.get()};
  }
};

ConvDeviceTensors upload(ProgramSink& sink, const TilePlan& plan, const HwConfig& cfg,
                         const PackedConv& packed, size_t zero_bytes) {
  const BlockedConv& g = plan.g;
  ConvDeviceTensors t;
  t.inp = DeviceBuffer::from(sink, packed.inp);
  t.wgt = DeviceBuffer::from(sink, packed.wgt);
  t.out = DeviceBuffer(sink, size_t(g.nb) * g.ocb * g.oh * g.ow * cfg.out_elem_bytes);
  if (plan.e.bias) {
    t.bias = DeviceBuffer::from(sink, packed.bias);
  }
  if (plan.e.residual) {
    t.residual = DeviceBuffer::from(sink, packed.residual);
  }
  if (zero_bytes) {
    t.zeros = DeviceBuffer::from(sink, std::vector<int8_t>(zero_bytes));
  }
  if (plan.e.per_channel()) {
    t.shifts = DeviceBuffer::from(sink, packed.shifts);
  }
  return t;
}

// The DRAM images of int8_t-held lanes (1..8 bits) at the config's widths: activations and
// weights blocked and lane-packed (the identity at 8 bits), bias and per-channel shifts as
// accumulator lanes (one ACC element per channel block), residuals one byte a lane (ACC_8BIT).
PackedConv pack_conv(const TilePlan& plan, const HwConfig& cfg, const ConvData& data) {
  const BlockedConv& g = plan.g;
  const Conv2dParams& p = g.p;
  PackedConv k;
  k.inp = pack_lanes(pack_nchw(data.x, p.n, p.c, p.h, p.w, g.batch, g.block_in), cfg.inp_width);
  k.wgt =
      pack_lanes(pack_oihw(data.w, p.k, p.c, p.kh, p.kw, g.block_out, g.block_in), cfg.wgt_width);
  if (plan.e.bias) {
    k.bias = pack_wide_lanes(pack_bias(data.bias, p.k, g.batch, g.block_out), cfg.acc_width);
  }
  if (plan.e.residual) {
    k.residual = pack_nchw(data.residual, p.n, p.k, g.oh, g.ow, g.batch, g.block_out);
  }
  if (plan.e.per_channel()) {
    const std::vector<int32_t> shifts(plan.e.shifts.begin(), plan.e.shifts.end());
    k.shifts = pack_wide_lanes(pack_bias(shifts, p.k, g.batch, g.block_out), cfg.acc_width);
  }
  return k;
}

void check_conv_data(const Conv2dParams& p, const Epilogue& e, const ConvData& data) {
  auto expect = [&](const char* what, size_t got, size_t want) {
    if (got != want) {
      throw Error(fmt::format("{}: {} has {} elements, expected {}", p.name, what, got, want));
    }
  };
  expect("input", data.x.size(), size_t(p.n) * p.c * p.h * p.w);
  expect("weights", data.w.size(), size_t(p.k) * p.c * p.kh * p.kw);
  if (e.bias) {
    expect("bias", data.bias.size(), size_t(p.k));
  }
  if (e.residual) {
    expect("residual", data.residual.size(), size_t(p.n) * p.k * p.out_h() * p.out_w());
  }
  if (e.per_channel()) {
    expect("per-channel shifts", e.shifts.size(), size_t(p.k));
  }
}

// The run's description and the figures that follow from the plan alone. `p` is the layer as
// written; the plan's layer differs from it when the schedule folds the kernel window.
LayerRun describe_conv_run(const Target& target, const Conv2dParams& p, const TilePlan& plan) {
  const HwConfig& cfg = target.config;
  LayerRun r;
  r.name = p.name.empty() ? "conv2d" : p.name;
  r.kind = "conv2d";
  r.shape = p.describe();
  r.schedule = plan.s;
  r.epilogue = plan.e;
  r.backend = target.backend;
  r.config = cfg.model_name;
  r.macs = p.macs();
  r.gemm_bound = plan.g.gemm_uop_count();
  r.peak_macs_per_cycle = uint64_t(cfg.batch) * cfg.block_in * cfg.block_out;
  // A fold may need fewer bytes than the channel-padded layer: the smaller minimum counts.
  MinimumBytes bytes = minimum_bytes(BlockedConv::make(p, cfg), plan.e, cfg);
  const MinimumBytes planned = minimum_bytes(plan.g, plan.e, cfg);
  if (planned.total() < bytes.total()) {
    bytes = planned;
  }
  r.bound = layer_bound(plan.g, plan.e, bytes, cfg);
  r.min_bytes = r.bound.bytes.total();
  return r;
}

// The data of the layer the plan computes: with a fold, the folded input and weights.
ConvData planned_data(const Conv2dParams& p, const ConvSchedule& s, const ConvData& data) {
  ConvData d;
  d.x = fold_input(p, s.fold_rows, data.x);
  d.w = fold_weights(p, s.fold_rows, data.w);
  d.bias = data.bias;
  d.residual = data.residual;
  return d;
}

// Counts the elements of r.out that differ from `ref`; `where(i)` names element i.
template <typename Where>
void compare_with_reference(LayerRun& r, const std::vector<int8_t>& ref, const Where& where) {
  r.checked = true;
  for (size_t i = 0; i < ref.size(); ++i) {
    if (ref[i] == r.out[i]) {
      continue;
    }
    if (r.mismatches++ == 0) {
      r.first_mismatch =
          fmt::format("{}: got {}, expected {}", where(i), int(r.out[i]), int(ref[i]));
    }
  }
}

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

// The counters of a run of several cores as one layer's: every core's counts added, the cycles
// the system's (first start to last FINISH); core 0's unit counters and the system's named
// counters (coreK.cycles, coreK.dram_contention_cycles, ...) as the backend gives them.
Stats system_stats(const Backend& b) {
  Stats s = b.stats();
  for (int k = 1; k < b.cores(); ++k) {
    s.add_counts(b.core_stats(k));
  }
  s.cycles = 0;
  if (const NamedCounter* c = s.find("system.cycles")) {
    s.cycles = uint64_t(c->value);
  }
  return s;
}

// One run of several cores (VTASystemBegin ... VTASystemRun): on an error before the run the
// runtime is reset, so no later program is kept for a run that never comes.
class SystemRunScope {
 public:
  explicit SystemRunScope(Runtime& rt) : m_rt(rt) { m_rt.system_begin(); }
  ~SystemRunScope() {
    if (!m_ran) {
      m_rt.reset();
    }
  }
  SystemRunScope(const SystemRunScope&) = delete;
  SystemRunScope& operator=(const SystemRunScope&) = delete;
  void record_on(int core) { m_rt.set_command_core(core); }
  // True on a timeout.
  bool run(uint32_t wait_cycles) {
    m_rt.set_command_core(0);
    m_ran = true;
    return m_rt.system_run(wait_cycles);
  }

 private:
  Runtime& m_rt;
  bool m_ran = false;
};

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
  r.stats = system_stats(target.runtime->backend());
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

namespace {

// The output of a convolution `p` (epilogue at the config's widths) against its reference.
void check_conv_output(LayerRun& r, const Conv2dParams& p, const Epilogue& e, const ConvData& data,
                       const LayerWidths& widths) {
  const size_t ow = size_t(p.out_w()), oh = size_t(p.out_h()), k = size_t(p.k);
  const auto ref =
      widths.is_int8()
          ? ReferenceCache::process().conv2d(p, e, data.x, data.w, data.bias, data.residual)
          : std::make_shared<const std::vector<int8_t>>(conv2d_reference_at(
                p, e, data.x, data.w, data.bias, data.residual, widths.accumulator()));
  compare_with_reference(r, *ref, [&](size_t i) {
    return fmt::format("n {} k {} y {} x {}", i / (ow * oh * k), (i / (ow * oh)) % k, (i / ow) % oh,
                       i % ow);
  });
}

// The output of a matmul (`e` as written; r.epilogue at the config's widths) against its
// reference.
void check_matmul_output(LayerRun& r, const MatmulParams& p, const Epilogue& e,
                         const MatmulData& data, const LayerWidths& widths) {
  const auto ref = widths.is_int8()
                       ? ReferenceCache::process().matmul(p, e, data.a, data.b, data.bias)
                       : std::make_shared<const std::vector<int8_t>>(matmul_reference_at(
                             p, r.epilogue, data.a, data.b, data.bias, widths.accumulator()));
  compare_with_reference(r, *ref,
                         [&](size_t i) { return fmt::format("row {} col {}", i / p.n, i % p.n); });
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

namespace {

// A and B of a matmul as the input and weights of its convolution: row m of A is lane
// m % BATCH of column m / BATCH.
ConvData matmul_conv_data(const MatmulParams& p, const Conv2dParams& c, const MatmulData& data) {
  const int batch = c.n;
  ConvData d;
  d.x.assign(size_t(c.n) * c.c * c.w, 0);
  for (int m = 0; m < p.m; ++m) {
    for (int k = 0; k < p.k; ++k) {
      d.x[(size_t(m % batch) * c.c + k) * c.w + m / batch] = data.a[size_t(m) * p.k + k];
    }
  }
  d.w.resize(size_t(p.n) * p.k);
  for (int n = 0; n < p.n; ++n) {
    for (int k = 0; k < p.k; ++k) {
      d.w[size_t(n) * p.k + k] = data.b[size_t(k) * p.n + n];
    }
  }
  d.bias = data.bias;
  return d;
}

// Throws Error for a matmul whose operands do not match its shape or that asks for a residual.
void check_matmul_data(const MatmulParams& p, const Epilogue& e, const MatmulData& data) {
  p.validate();
  if (e.residual) {
    throw Error(fmt::format("matmul '{}': residual epilogue is not supported", p.name));
  }
  if (data.a.size() != size_t(p.m) * p.k || data.b.size() != size_t(p.k) * p.n) {
    throw Error(fmt::format("matmul '{}': operand sizes do not match {}", p.name, p.describe()));
  }
}

// The convolution's output back as C (M x N).
std::vector<int8_t> matmul_output(const MatmulParams& p, const Conv2dParams& c,
                                  const std::vector<int8_t>& conv_out) {
  const int batch = c.n;
  std::vector<int8_t> out(size_t(p.m) * p.n);
  for (int m = 0; m < p.m; ++m) {
    for (int n = 0; n < p.n; ++n) {
      out[size_t(m) * p.n + n] = conv_out[(size_t(m % batch) * c.k + n) * c.w + m / batch];
    }
  }
  return out;
}

}  // namespace

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

namespace {

// A layer prepared for its core in a run of several layers: the convolution it runs (a
// matmul's), its plan, code generator and device tensors.
struct StagedLayer {
  const CoreLayerWork* work = nullptr;
  Conv2dParams p;
  Epilogue e;     // at the config's widths
  ConvData data;  // the convolution's
  TilePlan plan;
  std::unique_ptr<ConvCodegen> codegen;
  ConvDeviceTensors tensors;
};

void stage_layer(const Target& target, ProgramSink& sink, const CoreLayerWork& w, StagedLayer& st) {
  const HwConfig& cfg = target.config;
  if (w.matmul) {
    check_matmul_data(w.mm, w.e, w.mm_data);
  }
  st.work = &w;
  st.p = w.matmul ? matmul_as_conv(w.mm, cfg) : w.conv;
  st.e = epilogue_at_widths(w.e, cfg);
  st.data = w.matmul ? matmul_conv_data(w.mm, st.p, w.mm_data) : w.conv_data;
  const std::string name = st.p.name.empty() ? "conv2d" : st.p.name;
  check_layer_widths(cfg, name);
  check_conv_data(st.p, st.e, st.data);
  check_conv_lanes(name, st.data, LayerWidths::of(cfg));
  st.plan = TilePlan::make(st.p, st.e, w.s, cfg);
  const PackedConv packed =
      pack_conv(st.plan, cfg, w.s.fold_rows ? planned_data(st.p, w.s, st.data) : st.data);
  st.codegen = std::make_unique<ConvCodegen>(st.plan, cfg);
  st.tensors = upload(sink, st.plan, cfg, packed, st.codegen->zero_bytes());
}

// The staged layer's run after the system's: core `core`'s counters, its output, its check.
LayerRun finish_staged_layer(const Target& target, const StagedLayer& st, int core, bool check) {
  const HwConfig& cfg = target.config;
  const CoreLayerWork& w = *st.work;
  LayerRun r = describe_conv_run(target, st.p, st.plan);
  r.stats = target.runtime->backend().core_stats(core);
  r.verdict = verdict_of(r.bound, r.stats, cfg);
  r.kernels = st.codegen->kernel_count();
  r.kernel_uops = st.codegen->kernel_uops();
  const BlockedConv& g = st.plan.g;
  const size_t out_lanes = size_t(g.nb) * g.ocb * g.oh * g.ow * cfg.batch * cfg.block_out;
  r.out = unpack_nchw(unpack_lanes(st.tensors.out.read<int8_t>(), cfg.out_width, out_lanes), st.p.n,
                      st.p.k, g.oh, g.ow, g.batch, g.block_out);
  const LayerWidths widths = LayerWidths::of(cfg);
  if (w.matmul) {
    r.out = matmul_output(w.mm, st.p, r.out);
    r.kind = "matmul";
    r.shape = w.mm.describe();
    r.macs = w.mm.macs();
    if (check) {
      check_matmul_output(r, w.mm, w.e, w.mm_data, widths);
    }
  } else if (check) {
    check_conv_output(r, st.p, st.e, st.data, widths);
  }
  return r;
}

}  // namespace

std::vector<LayerRun> run_layers_on_cores(const Target& target,
                                          const std::vector<const CoreLayerWork*>& works,
                                          bool check, Stats& system) {
  RuntimeSink sink(target);  // outlives the staged layers' buffers
  std::vector<StagedLayer> staged(works.size());
  for (size_t k = 0; k < works.size(); ++k) {
    if (works[k] != nullptr) {
      stage_layer(target, sink, *works[k], staged[k]);
    }
  }
  sink.clear_stats();
  {
    SystemRunScope run(*target.runtime);
    for (size_t k = 0; k < works.size(); ++k) {
      if (works[k] != nullptr) {
        run.record_on(int(k));
        staged[k].codegen->emit(sink, staged[k].tensors.buffers());
        sink.synchronize();  // kept for the run of all cores
      }
    }
    if (run.run(target.max_cycles)) {
      throw Error(fmt::format("a run of {} cores did not finish within {} cycles", works.size(),
                              target.max_cycles));
    }
  }
  system = system_stats(target.runtime->backend());
  std::vector<LayerRun> runs(works.size());
  for (size_t k = 0; k < works.size(); ++k) {
    if (works[k] != nullptr) {
      runs[k] = finish_staged_layer(target, staged[k], int(k), check);
    }
  }
  return runs;
}

}  // namespace vta::compiler
