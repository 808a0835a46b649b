#include "run/group_sets_on_cores.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>

#include <fmt/format.h>

#include "codegen/runtime_sink.h"
#include "run/conv_device.h"
#include "vta/compiler/codegen/conv_codegen.h"
#include "vta/compiler/codegen/kernel_fold.h"
#include "vta/compiler/codegen/lane_packing.h"
#include "vta/compiler/codegen/layout.h"
#include "vta/compiler/run/layer_widths.h"
#include "vta/sim/error.h"

namespace vta::compiler {

namespace {

// One set ready to emit: its layer, plan, code generator and device tensors.
struct StagedSet {
  TilePlan plan;
  std::unique_ptr<ConvCodegen> codegen;
  ConvDeviceTensors tensors;
  LayerBound bound;
};

// Throws Error naming the layer when the set's data do not match its shape (the layer's input,
// weights or bias of the wrong size).
void check_set_data(const Conv2dParams& p, const Epilogue& e, const ConvData& d) {
  auto expect = [&](const char* what, size_t got, size_t want) {
    if (got != want) {
      throw Error(fmt::format("{}: a group set's {} has {} elements, expected {}", p.name, what,
                              got, want));
    }
  };
  expect("input", d.x.size(), size_t(p.n) * p.c * p.h * p.w);
  expect("weights", d.w.size(), size_t(p.k) * p.c * p.kh * p.kw);
  if (e.bias) {
    expect("bias", d.bias.size(), size_t(p.k));
  }
  if (e.residual) {
    throw Error(fmt::format("{}: a grouped convolution takes no residual", p.name));
  }
}

void stage_set(const Target& target, ProgramSink& sink, const GroupedConvSplit& g,
               const Epilogue& e, const ConvSchedule& s, const ConvData& data, int set,
               StagedSet& st) {
  const HwConfig& cfg = target.config;
  const Conv2dParams& p = g.set;
  const std::string name = p.name.empty() ? "conv2d" : p.name;
  const Epilogue se = epilogue_at_widths(e.channels(size_t(set) * size_t(p.k), size_t(p.k)), cfg);
  ConvData d = group_set_data(g, e, data, set);
  check_set_data(p, se, d);
  check_conv_lanes(name, d, LayerWidths::of(cfg));
  if (s.fold_rows) {
    d.x = fold_input(p, s.fold_rows, d.x);
    d.w = fold_weights(p, s.fold_rows, d.w);
  }
  st.plan = TilePlan::make(p, se, s, cfg);
  st.bound = conv_bound(p, st.plan, cfg);
  st.codegen = std::make_unique<ConvCodegen>(st.plan, cfg);
  st.tensors = upload(sink, st.plan, cfg, pack_conv(st.plan, cfg, d), st.codegen->zero_bytes());
}

// The set's output (N x K_set x OH x OW) read back from the device.
std::vector<int8_t> set_output(const StagedSet& st, const HwConfig& cfg) {
  const BlockedConv& b = st.plan.g;
  std::vector<int8_t> bytes = st.tensors.out.read<int8_t>();
  const size_t lanes = size_t(b.nb) * b.ocb * b.oh * b.ow * cfg.batch * cfg.block_out;
  const Conv2dParams& p = st.plan.g.p;
  return unpack_nchw(unpack_lanes(std::move(bytes), cfg.out_width, lanes), p.n, p.k, b.oh, b.ow,
                     b.batch, b.block_out);
}

// Adds `b`'s compute figures into `sum` (the sets of one core, one after the other).
void add_compute(LayerBound& sum, const LayerBound& b) {
  sum.gemm_cycles += b.gemm_cycles;
  sum.alu_cycles += b.alu_cycles;
  sum.acc_load_cycles += b.acc_load_cycles;
  sum.compute_cycles += b.compute_cycles;
}

// The layer's bound on the split: the busiest core's compute (each piece its share of its
// set's column tiles) against the DRAM time of every set's minimum bytes.
LayerBound split_bound(const std::vector<StagedSet>& sets, const GroupSetSplit& split,
                       const HwConfig& cfg) {
  LayerBound all;
  for (const std::vector<GroupSetPiece>& pieces : split.cores) {
    LayerBound core;
    for (const GroupSetPiece& piece : pieces) {
      const StagedSet& st = sets[size_t(piece.set)];
      const int end = piece.wt_end < 0 ? st.plan.w_tiles : piece.wt_end;
      const double share = double(end - piece.wt_begin) / double(st.plan.w_tiles);
      LayerBound b = st.bound;
      b.gemm_cycles = uint64_t(std::ceil(double(b.gemm_cycles) * share));
      b.alu_cycles = uint64_t(std::ceil(double(b.alu_cycles) * share));
      b.acc_load_cycles = uint64_t(std::ceil(double(b.acc_load_cycles) * share));
      b.compute_cycles = b.gemm_cycles + b.alu_cycles + b.acc_load_cycles;
      add_compute(core, b);
    }
    if (core.compute_cycles > all.compute_cycles) {
      all = core;
    }
  }
  for (const StagedSet& st : sets) {
    all.bytes.read += st.bound.bytes.read, all.bytes.write += st.bound.bytes.write;
    all.bytes.acc_counted += st.bound.bytes.acc_counted;
    all.bytes.acc_moved += st.bound.bytes.acc_moved;
  }
  all.memory_cycles = dram_cycles(double(all.bytes.dram_read()), double(all.bytes.write), cfg);
  all.cycles = std::max(double(all.compute_cycles), all.memory_cycles);
  return all;
}

// Emits every core's pieces into its command queue and runs all cores together.
void run_sets(const Target& target, ProgramSink& sink, std::vector<StagedSet>& sets,
              const GroupSetSplit& split, const std::string& name) {
  SystemRunScope system(*target.runtime);
  for (size_t k = 0; k < split.cores.size(); ++k) {
    if (split.cores[k].empty()) {
      continue;
    }
    system.record_on(int(k));
    for (const GroupSetPiece& piece : split.cores[k]) {
      ConvTileRange range;
      range.wt_begin = piece.wt_begin, range.wt_end = piece.wt_end;
      StagedSet& st = sets[size_t(piece.set)];
      st.codegen->emit(sink, st.tensors.buffers(), range);
    }
    sink.synchronize();  // kept for the run of all cores
  }
  if (system.run(target.max_cycles)) {
    throw Error(fmt::format("{}: the {} cores did not all finish within {} cycles", name,
                            split.cores.size(), target.max_cycles));
  }
}

// Contiguous ranges of `count` units over `cores` cores, sizes differing by at most one (the
// first cores get the larger ones), and the sizes in words ("5 + 4").
std::vector<std::pair<int, int>> partition(int count, int cores, std::string& sizes) {
  std::vector<std::pair<int, int>> r;
  int begin = 0;
  for (int k = 0; k < cores; ++k) {
    const int size = count / cores + (k < count % cores ? 1 : 0);
    r.emplace_back(begin, begin + size);
    sizes += fmt::format("{}{}", k ? " + " : "", size);
    begin += size;
  }
  return r;
}

}  // namespace

GroupSetSplit split_group_sets(const GroupedConvSplit& g, int w_tiles, int cores) {
  GroupSetSplit s;
  const bool whole = g.sets % cores == 0 || w_tiles < 2;
  const int per_set = whole ? 1 : w_tiles;  // units per set
  std::string sizes;
  for (const auto& [u0, u1] : partition(g.sets * per_set, cores, sizes)) {
    std::vector<GroupSetPiece> pieces;
    for (int u = u0; u < u1;) {
      const int set = u / per_set, first = u % per_set;
      const int last = std::min(u1 - set * per_set, per_set);  // this set's units, exclusive
      pieces.push_back(whole ? GroupSetPiece{set, 0, -1} : GroupSetPiece{set, first, last});
      u = set * per_set + last;
    }
    s.cores.push_back(std::move(pieces));
  }
  const std::string sets =
      fmt::format("{} group sets of {} group{}", g.sets, g.per_set, g.per_set == 1 ? "" : "s");
  s.why = whole ? fmt::format("{}: {} on {} cores", sets, sizes, cores)
                : fmt::format("{} x {} column tiles: {} on {} cores", sets, w_tiles, sizes, cores);
  return s;
}

LayerRun run_group_sets_on_cores(const Target& target, const GroupedConvSplit& g, const Epilogue& e,
                                 const ConvSchedule& s, const ConvData& data, int cores,
                                 std::vector<int8_t>& out) {
  const HwConfig& cfg = target.config;
  const std::string name = g.whole.name.empty() ? "conv2d" : g.whole.name;
  check_layer_widths(cfg, name);
  RuntimeSink sink(target);  // outlives the sets' buffers
  std::vector<StagedSet> sets(size_t(g.sets));
  for (int set = 0; set < g.sets; ++set) {
    stage_set(target, sink, g, e, s, data, set, sets[size_t(set)]);
  }
  const GroupSetSplit split = split_group_sets(g, sets[0].plan.w_tiles, cores);
  sink.clear_stats();
  const auto t0 = std::chrono::steady_clock::now();
  run_sets(target, sink, sets, split, name);
  LayerRun r;
  r.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.kind = "conv2d";
  r.schedule = sets[0].plan.s;
  r.backend = target.backend;
  r.config = cfg.model_name;
  r.peak_macs_per_cycle = uint64_t(cfg.batch) * cfg.block_in * cfg.block_out * split.cores.size();
  r.bound = split_bound(sets, split, cfg);
  r.min_bytes = r.bound.bytes.total();
  r.stats = system_run_stats(target.runtime->backend());
  r.verdict = verdict_of(r.bound, r.stats, cfg);
  r.split = split.why;
  for (int set = 0; set < g.sets; ++set) {
    const StagedSet& st = sets[size_t(set)];
    r.gemm_bound += st.plan.g.gemm_uop_count();
    r.kernels += st.codegen->kernel_count();
    r.kernel_uops += st.codegen->kernel_uops();
    place_group_set_output(g, set_output(st, cfg), set, out);
  }
  return r;
}

}  // namespace vta::compiler
