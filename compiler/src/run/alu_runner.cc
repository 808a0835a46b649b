#include "vta/compiler/run/alu_runner.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include <fmt/format.h>

#include "codegen/runtime_sink.h"
#include "run/system_run_scope.h"
#include "vta/compiler/codegen/layout.h"
#include "vta/compiler/run/core_split.h"
#include "vta/compiler/scheduling/bound.h"
#include "vta/sim/error.h"

namespace vta::compiler {

namespace {

// A device buffer of a sink, freed at the end of the run.
struct PoolBuffer {
  ProgramSink& sink;
  BufferHandle handle;
  PoolBuffer(ProgramSink& s, size_t bytes) : sink(s), handle(s.alloc(bytes)) {}
  PoolBuffer(const PoolBuffer&) = delete;
  PoolBuffer& operator=(const PoolBuffer&) = delete;
  ~PoolBuffer() { sink.free(handle); }
};

// Bytes of the packed input (ACC_8BIT elements) and output.
size_t packed_bytes(const AluPoolPlan& plan, int h, int w) {
  return size_t(plan.nb) * size_t(plan.cb) * size_t(h) * size_t(w) * size_t(plan.batch) *
         size_t(plan.block);
}

// The compute unit's ALU issue cycles `alu` and its ACC_8BIT bus cycles, the inputs and the
// output moved once.
LayerBound alu_bound(const HwConfig& cfg, uint64_t in_elems, uint64_t out_elems, uint64_t alu) {
  const uint64_t elem = uint64_t(cfg.batch) * uint64_t(cfg.block_out);
  LayerBound b;
  b.alu_cycles = alu;
  b.acc_load_cycles = uint64_t(dram_cycles(double(in_elems * elem), 0, cfg));
  b.compute_cycles = b.alu_cycles + b.acc_load_cycles;
  b.bytes.acc_counted = in_elems * uint64_t(cfg.acc_elem_bytes);
  b.bytes.acc_moved = in_elems * elem;
  b.bytes.read = b.bytes.acc_counted;
  b.bytes.write = out_elems * uint64_t(cfg.out_elem_bytes);
  b.memory_cycles = dram_cycles(double(b.bytes.dram_read()), double(b.bytes.write), cfg);
  b.cycles = std::max(double(b.compute_cycles), b.memory_cycles);
  return b;
}

LayerRun describe_alu_run(const Target& target, const std::string& name, const char* kind,
                          std::string shape, const LayerBound& bound) {
  LayerRun r;
  r.name = name.empty() ? kind : name;
  r.kind = kind;
  r.shape = std::move(shape);
  r.backend = target.backend;
  r.config = target.config.model_name;
  r.peak_macs_per_cycle =
      uint64_t(target.config.batch) * target.config.block_in * target.config.block_out;
  r.bound = bound;
  r.min_bytes = r.bound.bytes.total();
  return r;
}

// Compares r.out (N x C x H x W) with `ref`.
void compare(LayerRun& r, int c, int h, int w, const std::vector<int8_t>& ref) {
  r.checked = true;
  const size_t plane = size_t(h) * size_t(w);
  for (size_t i = 0; i < ref.size(); ++i) {
    if (ref[i] != r.out[i] && r.mismatches++ == 0) {
      r.first_mismatch =
          fmt::format("n {} c {} y {} x {}: got {}, expected {}", i / (plane * size_t(c)),
                      (i / plane) % size_t(c), (i % plane) / size_t(w), i % size_t(w),
                      int(r.out[i]), int(ref[i]));
    }
  }
}

// The run's counters, verdict and wall time after the program ran.
void measure(LayerRun& r, const ProgramSink& sink, const HwConfig& cfg, double seconds) {
  r.stats = sink.stats();
  r.verdict = verdict_of(r.bound, r.stats, cfg);
  r.wall_seconds = seconds;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// "1 row tile", "4 channel blocks".
std::string count_of(int n, const char* what) {
  return fmt::format("{} {}{}", n, what, n == 1 ? "" : "s");
}

// The cores a layer is divided over: the system's with a split asked (Target::layer_split),
// else 1.
int split_cores(const Target& target) {
  const int cores = target.config.num_cores();
  return target.layer_split != LayerSplit::kNone && cores > 1 ? cores : 1;
}

// How an ALU program's tiles went to the cores: contiguous ranges in program order, sizes
// differing by at most one (the first cores get the larger ones); one range: core 0 alone.
struct AluCoreSplit {
  std::vector<AluTileRange> ranges;
  uint64_t most = 0;  // tiles of the busiest core
  std::string why;    // "8 tiles (4 channel blocks x 2 row tiles): 4 + 4 on 2 cores"
};

AluCoreSplit split_tiles(uint64_t tiles, int cores, const std::string& what) {
  AluCoreSplit s;
  if (cores < 2 || tiles < 2) {
    s.ranges = {AluTileRange{}};
    s.most = tiles;
    s.why = fmt::format("{} tile{}: core 0 alone", tiles, tiles == 1 ? "" : "s");
    return s;
  }
  std::string sizes;
  uint64_t begin = 0;
  for (int k = 0; k < cores; ++k) {
    const uint64_t size = tiles / uint64_t(cores) + (uint64_t(k) < tiles % uint64_t(cores) ? 1 : 0);
    s.ranges.push_back(AluTileRange{begin, begin + size});
    s.most = std::max(s.most, size);
    sizes += fmt::format("{}{}", k ? " + " : "", size);
    begin += size;
  }
  s.why = fmt::format("{} tiles ({}): {} on {} cores", tiles, what, sizes, cores);
  return s;
}

// Runs the program `emit` appends for a range of tiles: on core 0 alone (one range), else each
// core its range, all started together (one VTASystemBegin ... VTASystemRun).
template <typename Emit>
void run_tiles(const Target& target, ProgramSink& sink, const AluCoreSplit& split,
               const std::string& name, const Emit& emit) {
  if (split.ranges.size() == 1) {
    emit(split.ranges[0]);
    sink.synchronize();
    return;
  }
  SystemRunScope system(*target.runtime);
  for (size_t k = 0; k < split.ranges.size(); ++k) {
    if (!split.ranges[k].empty()) {
      system.record_on(int(k));
      emit(split.ranges[k]);
      sink.synchronize();  // kept for the run of all cores
    }
  }
  if (system.run(target.max_cycles)) {
    throw Error(fmt::format("{}: the {} cores did not all finish within {} cycles", name,
                            split.ranges.size(), target.max_cycles));
  }
}

// The bound of a divided layer: the busiest core's share of the compute (its tiles of `tiles`),
// all of the layer's bytes through the shared DRAM.
LayerBound split_bound(LayerBound b, const AluCoreSplit& split, uint64_t tiles) {
  if (split.ranges.size() < 2) {
    return b;
  }
  const double share = double(split.most) / double(tiles);
  b.alu_cycles = uint64_t(std::ceil(double(b.alu_cycles) * share));
  b.acc_load_cycles = uint64_t(std::ceil(double(b.acc_load_cycles) * share));
  b.compute_cycles = b.alu_cycles + b.acc_load_cycles;
  b.cycles = std::max(double(b.compute_cycles), b.memory_cycles);
  return b;
}

// The run's counters (every core's on a split), its bound, split and verdict.
void measure_split(LayerRun& r, const Target& target, const ProgramSink& sink,
                   const AluCoreSplit& split, uint64_t tiles, double seconds) {
  const HwConfig& cfg = target.config;
  const bool divided = split.ranges.size() > 1;
  r.bound = split_bound(r.bound, split, tiles);
  r.min_bytes = r.bound.bytes.total();
  r.peak_macs_per_cycle *= divided ? split.ranges.size() : 1;
  measure(r, sink, cfg, seconds);
  if (divided) {
    r.stats = system_run_stats(target.runtime->backend());
    r.verdict = verdict_of(r.bound, r.stats, cfg);
  }
  if (split_cores(target) > 1) {
    r.split = fmt::format("{}: {}", layer_split_name(target.layer_split), split.why);
  }
}

}  // namespace

LayerRun run_alu_pool(const Target& target, const std::string& name, const PoolWindow& p,
                      const std::vector<int8_t>& x, const std::vector<int8_t>* reference) {
  const HwConfig& cfg = target.config;
  const int cores = split_cores(target);
  const AluPoolPlan plan = AluPoolPlan::make(p, cfg).with_tiles(uint64_t(cores), cfg);
  if (x.size() != size_t(p.n) * p.c * p.h * p.w) {
    throw Error(fmt::format("pool '{}': the input has {} values, {} needs {}", name, x.size(),
                            p.describe(), size_t(p.n) * p.c * p.h * p.w));
  }
  const AluCoreSplit split =
      split_tiles(plan.tiles(), cores,
                  fmt::format("{} x {}", count_of(plan.nb * plan.cb, "channel block"),
                              count_of(plan.row_tiles(), "row tile")));
  RuntimeSink sink(target);  // outlives the buffers below
  PoolBuffer in(sink, packed_bytes(plan, p.h, p.w));
  PoolBuffer out(sink, packed_bytes(plan, p.oh, p.ow));
  const std::vector<int8_t> packed = pack_nchw(x, p.n, p.c, p.h, p.w, cfg.batch, cfg.block_out);
  sink.copy_in(in.handle, packed.data(), packed.size());
  sink.clear_stats();
  const auto t0 = std::chrono::steady_clock::now();
  run_tiles(target, sink, split, name, [&](const AluTileRange& range) {
    emit_alu_pool(sink, plan, in.handle, out.handle, range);
  });
  const uint64_t out_elems = uint64_t(plan.nb) * plan.cb * uint64_t(p.oh) * uint64_t(p.ow);
  const uint64_t in_elems = uint64_t(plan.nb) * plan.cb * uint64_t(p.h) * uint64_t(p.w);
  uint64_t alu = out_elems * (2 + 2 * uint64_t(p.kh) * uint64_t(p.kw));  // init + taps
  for (const AluStep& step : p.finish) {
    alu += out_elems * (step.vector ? 2 : 1);
  }
  alu += p.average ? 2 * out_elems : 0;  // the clamp
  LayerRun r = describe_alu_run(target, name, p.average ? "avgpool" : "maxpool", p.describe(),
                                alu_bound(cfg, in_elems, out_elems, alu));
  measure_split(r, target, sink, split, plan.tiles(), seconds_since(t0));
  std::vector<int8_t> blocked(packed_bytes(plan, p.oh, p.ow));
  sink.copy_out(out.handle, blocked.data(), blocked.size());
  r.out = unpack_nchw(blocked, p.n, p.c, p.oh, p.ow, cfg.batch, cfg.block_out);
  if (reference) {
    compare(r, p.c, p.oh, p.ow, *reference);
  }
  return r;
}

std::unique_ptr<RecordingSink> lower_alu_pool(const HwConfig& cfg, const PoolWindow& p) {
  const AluPoolPlan plan = AluPoolPlan::make(p, cfg);
  auto sink = std::make_unique<RecordingSink>();
  BufferHandle in = sink->alloc(packed_bytes(plan, p.h, p.w));
  BufferHandle out = sink->alloc(packed_bytes(plan, p.oh, p.ow));
  sink->name_buffer(in, "data");
  sink->name_buffer(out, "res");
  emit_alu_pool(*sink, plan, in, out);
  return sink;
}

LayerRun run_alu_add(const Target& target, const std::string& name, const AluAddPlan& plan,
                     const std::vector<int8_t>& a, const std::vector<int8_t>& b,
                     const std::vector<int8_t>* reference) {
  const HwConfig& cfg = target.config;
  const size_t size = size_t(plan.n) * plan.c * plan.h * plan.w;
  const size_t b_size = plan.per_channel ? size_t(plan.n) * plan.c : size;
  if (a.size() != size || (plan.binary && b.size() != b_size)) {
    throw Error(
        fmt::format("elementwise '{}': the operands have {} and {} values, {} needs {} and {}",
                    name, a.size(), b.size(), plan.describe(), size, b_size));
  }
  const AluAddPlan tiled = plan.with_tiles(uint32_t(split_cores(target)), cfg);
  const std::string blocks =
      count_of(int(plan.elems / (uint32_t(plan.h) * uint32_t(plan.w))), "channel block");
  const AluCoreSplit split =
      split_tiles(tiled.tiles(), split_cores(target),
                  fmt::format("{} elements: {} of {}x{}", plan.elems, blocks, plan.h, plan.w));
  RuntimeSink sink(target);  // outlives the buffers below
  const size_t bytes = size_t(plan.elems) * size_t(cfg.batch) * size_t(cfg.block_out);
  PoolBuffer da(sink, bytes), db(sink, bytes), dout(sink, bytes);
  const auto packed_a = pack_nchw(a, plan.n, plan.c, plan.h, plan.w, cfg.batch, cfg.block_out);
  sink.copy_in(da.handle, packed_a.data(), packed_a.size());
  if (plan.binary) {
    const int bh = plan.per_channel ? 1 : plan.h, bw = plan.per_channel ? 1 : plan.w;
    const auto packed_b = pack_nchw(b, plan.n, plan.c, bh, bw, cfg.batch, cfg.block_out);
    sink.copy_in(db.handle, packed_b.data(), packed_b.size());
  }
  sink.clear_stats();
  const auto t0 = std::chrono::steady_clock::now();
  run_tiles(target, sink, split, name, [&](const AluTileRange& range) {
    emit_alu_add(sink, tiled, da.handle, db.handle, dout.handle, range);
  });
  const uint64_t e = plan.elems;
  uint64_t alu = 2 * e;  // the clamp
  for (const AluStep& op : plan.ops) {
    alu += op.vector ? 2 * e : e;  // a vector operand reads twice
  }
  const uint64_t b_elems = plan.binary ? (plan.per_channel ? e / plan.plane : e) : 0;
  const bool add = plan.binary && plan.ops.size() == 1 && plan.ops[0].opcode == kAluAdd;
  LayerRun r = describe_alu_run(target, name, add ? "add" : "elementwise", plan.describe(),
                                alu_bound(cfg, e + b_elems, e, alu));
  measure_split(r, target, sink, split, tiled.tiles(), seconds_since(t0));
  std::vector<int8_t> blocked(bytes);
  sink.copy_out(dout.handle, blocked.data(), blocked.size());
  r.out = unpack_nchw(blocked, plan.n, plan.c, plan.h, plan.w, cfg.batch, cfg.block_out);
  if (reference) {
    compare(r, plan.c, plan.h, plan.w, *reference);
  }
  return r;
}

std::unique_ptr<RecordingSink> lower_alu_add(const AluAddPlan& plan) {
  auto sink = std::make_unique<RecordingSink>();
  const size_t bytes = size_t(plan.elems) * 64;  // any size: a recording copies nothing
  BufferHandle a = sink->alloc(bytes), b = sink->alloc(bytes), out = sink->alloc(bytes);
  sink->name_buffer(a, "a");
  sink->name_buffer(b, "b");
  sink->name_buffer(out, "res");
  emit_alu_add(*sink, plan, a, b, out);
  return sink;
}

}  // namespace vta::compiler
