#include "vta/compiler/run/alu_pool_runner.h"

#include <chrono>

#include <fmt/format.h>

#include "codegen/runtime_sink.h"
#include "vta/compiler/codegen/layout.h"
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

// The compute unit's ALU issue cycles and ACC_8BIT bus cycles, the input and output moved once.
LayerBound pool_bound(const AluPoolPlan& plan, const HwConfig& cfg) {
  const PoolWindow& p = plan.p;
  const uint64_t in_elems = uint64_t(plan.nb) * plan.cb * uint64_t(p.h) * uint64_t(p.w);
  const uint64_t out_elems = uint64_t(plan.nb) * plan.cb * uint64_t(p.oh) * uint64_t(p.ow);
  const uint64_t elem = uint64_t(plan.batch) * uint64_t(plan.block);
  LayerBound b;
  b.alu_cycles = out_elems * (2 + 2 * uint64_t(p.kh) * uint64_t(p.kw));  // init + taps
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

LayerRun describe_pool_run(const Target& target, const std::string& name, const AluPoolPlan& plan) {
  LayerRun r;
  r.name = name.empty() ? "maxpool" : name;
  r.kind = "maxpool";
  r.shape = plan.p.describe();
  r.backend = target.backend;
  r.config = target.config.model_name;
  r.peak_macs_per_cycle =
      uint64_t(target.config.batch) * target.config.block_in * target.config.block_out;
  r.bound = pool_bound(plan, target.config);
  r.min_bytes = r.bound.bytes.total();
  return r;
}

void compare(LayerRun& r, const PoolWindow& p, const std::vector<int8_t>& ref) {
  r.checked = true;
  const size_t plane = size_t(p.oh) * size_t(p.ow);
  for (size_t i = 0; i < ref.size(); ++i) {
    if (ref[i] != r.out[i] && r.mismatches++ == 0) {
      r.first_mismatch =
          fmt::format("n {} c {} y {} x {}: got {}, expected {}", i / (plane * size_t(p.c)),
                      (i / plane) % size_t(p.c), (i % plane) / size_t(p.ow), i % size_t(p.ow),
                      int(r.out[i]), int(ref[i]));
    }
  }
}

}  // namespace

LayerRun run_alu_maxpool(const Target& target, const std::string& name, const PoolWindow& p,
                         const std::vector<int8_t>& x, const std::vector<int8_t>* reference) {
  const HwConfig& cfg = target.config;
  const AluPoolPlan plan = AluPoolPlan::make(p, cfg);
  if (x.size() != size_t(p.n) * p.c * p.h * p.w) {
    throw Error(fmt::format("maxpool '{}': the input has {} values, {} needs {}", name, x.size(),
                            p.describe(), size_t(p.n) * p.c * p.h * p.w));
  }
  RuntimeSink sink(target);  // outlives the buffers below
  PoolBuffer in(sink, packed_bytes(plan, p.h, p.w));
  PoolBuffer out(sink, packed_bytes(plan, p.oh, p.ow));
  const std::vector<int8_t> packed = pack_nchw(x, p.n, p.c, p.h, p.w, cfg.batch, cfg.block_out);
  sink.copy_in(in.handle, packed.data(), packed.size());
  sink.clear_stats();
  const auto t0 = std::chrono::steady_clock::now();
  emit_alu_maxpool(sink, plan, in.handle, out.handle);
  sink.synchronize();
  const auto t1 = std::chrono::steady_clock::now();
  LayerRun r = describe_pool_run(target, name, plan);
  r.stats = sink.stats();
  r.verdict = verdict_of(r.bound, r.stats, cfg);
  r.wall_seconds = std::chrono::duration<double>(t1 - t0).count();
  std::vector<int8_t> blocked(packed_bytes(plan, p.oh, p.ow));
  sink.copy_out(out.handle, blocked.data(), blocked.size());
  r.out = unpack_nchw(blocked, p.n, p.c, p.oh, p.ow, cfg.batch, cfg.block_out);
  if (reference) {
    compare(r, p, *reference);
  }
  return r;
}

std::unique_ptr<RecordingSink> lower_alu_maxpool(const HwConfig& cfg, const PoolWindow& p) {
  const AluPoolPlan plan = AluPoolPlan::make(p, cfg);
  auto sink = std::make_unique<RecordingSink>();
  BufferHandle in = sink->alloc(packed_bytes(plan, p.h, p.w));
  BufferHandle out = sink->alloc(packed_bytes(plan, p.oh, p.ow));
  sink->name_buffer(in, "data");
  sink->name_buffer(out, "res");
  emit_alu_maxpool(*sink, plan, in, out);
  return sink;
}

}  // namespace vta::compiler
