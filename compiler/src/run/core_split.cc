#include "vta/compiler/run/core_split.h"

#include <algorithm>

#include <fmt/format.h>

#include "vta/compiler/codegen/layout.h"
#include "vta/compiler/scheduling/auto_schedule.h"

namespace vta::compiler {

const char* layer_split_name(LayerSplit split) {
  switch (split) {
    case LayerSplit::kChannels:
      return "channels";
    case LayerSplit::kBatch:
      return "batch";
    case LayerSplit::kColumns:
      return "columns";
    case LayerSplit::kNone:
      break;
  }
  return "none";
}

namespace {

// Item ranges of `count` items over `cores` cores, contiguous, sizes differing by at most one
// (the first cores get the larger ones).
std::vector<std::pair<int, int>> partition(int count, int cores) {
  std::vector<std::pair<int, int>> r;
  int begin = 0;
  for (int k = 0; k < cores; ++k) {
    const int size = count / cores + (k < count % cores ? 1 : 0);
    r.emplace_back(begin, begin + size);
    begin += size;
  }
  return r;
}

// What the split divides: its unit's name, the count of units in the layer and the tile size
// in units the schedule uses.
struct SplitAxis {
  const char* unit;
  int count;
  int* tile;  // into the plan's schedule
};

SplitAxis axis_of(LayerSplit split, const Conv2dParams& p, const HwConfig& cfg, ConvSchedule& s) {
  switch (split) {
    case LayerSplit::kChannels:
      return {"output-channel block", ceil_div(p.k, cfg.block_out), &s.tile_oc_blocks};
    case LayerSplit::kBatch:
      return {"batch block", ceil_div(p.n, cfg.batch), nullptr};
    default:
      return {"column", p.out_w(), &s.tile_w};
  }
}

// Core k's part of `p`: the units [u0, u1) of the split's axis.
Conv2dParams slice_of(const Conv2dParams& p, LayerSplit split, int u0, int u1,
                      const HwConfig& cfg) {
  Conv2dParams q = p;
  if (split == LayerSplit::kChannels) {
    q.k = std::min(p.k, u1 * cfg.block_out) - u0 * cfg.block_out;
  } else if (split == LayerSplit::kBatch) {
    q.n = std::min(p.n, u1 * cfg.batch) - u0 * cfg.batch;
  } else {  // a 1x1 convolution without padding or stride (a matmul): input columns = output's
    q.w = u1 - u0;
  }
  return q;
}

// Units of the busiest core and the cores with units when `count` units in tiles of `tile` go
// to `cores` cores.
std::pair<int, int> core_load(int count, int tile, int cores) {
  int most = 0, busy = 0;
  for (const auto& [t0, t1] : partition(ceil_div(count, tile), cores)) {
    const int units = std::min(count, t1 * tile) - std::min(count, t0 * tile);
    most = std::max(most, units);
    busy += units > 0 ? 1 : 0;
  }
  return {most, busy};
}

// The tile size (at most the schedule's `largest`) that gives the busiest core the fewest
// units; of equal ones the one that keeps the most cores busy, then the largest (fewer tiles
// reload less input): 63 blocks on 4 cores in tiles of 16 (16 + 16 + 16 + 15; tiles of 15 would
// give 30 + 15 + 15 + 3), 4 blocks on 3 cores in tiles of 1 (2 + 1 + 1).
int balanced_tile(int count, int largest, int cores) {
  int best = 1;
  std::pair<int, int> best_load = core_load(count, 1, cores);
  for (int t = 2; t <= std::min(largest, count); ++t) {
    const std::pair<int, int> load = core_load(count, t, cores);
    if (load.first < best_load.first ||
        (load.first == best_load.first && load.second >= best_load.second)) {
      best = t, best_load = load;
    }
  }
  return best;
}

}  // namespace

CoreSplitPlan split_layer(const Conv2dParams& p, const ConvSchedule& s, LayerSplit split, int cores,
                          const HwConfig& cfg) {
  CoreSplitPlan plan;
  plan.schedule = s;
  plan.ranges.assign(size_t(std::max(cores, 1)), ConvTileRange{0, 0, 0, 0, 0, 0});
  plan.ranges[0] = ConvTileRange{};
  plan.slices.assign(plan.ranges.size(), p);
  for (size_t k = 1; k < plan.slices.size(); ++k) {
    plan.slices[k].k = 0;
  }
  if (split == LayerSplit::kNone || cores < 2) {
    plan.why = cores < 2 ? "one core" : "no split: core 0 alone";
    return plan;
  }
  const SplitAxis axis = axis_of(split, p, cfg, plan.schedule);
  if (axis.count < 2) {
    plan.why = fmt::format("1 {}: core 0 alone", axis.unit);
    return plan;
  }
  int tile = 1;
  if (axis.tile != nullptr) {
    *axis.tile = balanced_tile(axis.count, *axis.tile, cores);
    tile = *axis.tile;
  }
  const int tiles = ceil_div(axis.count, tile);
  const auto parts = partition(tiles, cores);
  std::string sizes;
  for (int k = 0; k < cores; ++k) {
    const auto [t0, t1] = parts[size_t(k)];
    ConvTileRange& r = plan.ranges[size_t(k)];
    r = ConvTileRange{};
    int& begin = split == LayerSplit::kChannels ? r.ot_begin
                 : split == LayerSplit::kBatch  ? r.nb_begin
                                                : r.wt_begin;
    int& end = split == LayerSplit::kChannels ? r.ot_end
               : split == LayerSplit::kBatch  ? r.nb_end
                                              : r.wt_end;
    begin = t0, end = t1;
    const int u0 = std::min(axis.count, t0 * tile), u1 = std::min(axis.count, t1 * tile);
    plan.slices[size_t(k)] = slice_of(p, split, u0, u1, cfg);
    if (t0 == t1) {
      plan.slices[size_t(k)].k = 0;
    }
    sizes += fmt::format("{}{}", k ? " + " : "", u1 - u0);
  }
  plan.split = split;
  plan.why = fmt::format("{} {}s: {} on {} cores", axis.count, axis.unit, sizes, cores);
  return plan;
}

namespace {

// The slice's epilogue: per-channel shifts cut to its channels (their values do not matter to
// the estimate).
Epilogue slice_epilogue(const Epilogue& e, const Conv2dParams& slice) {
  Epilogue s = e;
  if (s.per_channel()) {
    s.shifts.resize(size_t(slice.k), s.shifts.front());
  }
  return s;
}

// The slice's schedule: tiles no larger than the slice.
ConvSchedule slice_schedule(ConvSchedule s, const Conv2dParams& slice, const HwConfig& cfg) {
  s.tile_oc_blocks = std::min(s.tile_oc_blocks, ceil_div(slice.k, cfg.block_out));
  s.tile_w = std::min(s.tile_w, slice.out_w());
  return s;
}

}  // namespace

SplitEstimate estimate_split(const Epilogue& e, const CoreSplitPlan& plan, const HwConfig& cfg) {
  SplitEstimate est;
  double read = 0, write = 0;
  MinimumBytes all;
  for (const Conv2dParams& slice : plan.slices) {
    if (slice.k == 0) {
      continue;
    }
    const Epilogue se = slice_epilogue(e, slice);
    const TilePlan tp = TilePlan::make(slice, se, slice_schedule(plan.schedule, slice, cfg), cfg);
    est.core_max = std::max(est.core_max, estimate_cycles(tp, cfg));
    const DramTraffic t = estimate_traffic(tp, cfg);
    read += t.read, write += t.write;
    const MinimumBytes b = minimum_bytes(BlockedConv::make(slice, cfg), se, cfg);
    const LayerBound lb = layer_bound(tp.g, se, b, cfg);
    est.bound.gemm_cycles = std::max(est.bound.gemm_cycles, lb.gemm_cycles);
    est.bound.alu_cycles = std::max(est.bound.alu_cycles, lb.alu_cycles);
    est.bound.acc_load_cycles = std::max(est.bound.acc_load_cycles, lb.acc_load_cycles);
    est.bound.compute_cycles = std::max(est.bound.compute_cycles, lb.compute_cycles);
    all.read += b.read, all.write += b.write;
    all.acc_counted += b.acc_counted, all.acc_moved += b.acc_moved;
  }
  est.dram = dram_cycles(read, write, cfg);
  est.bytes = read + write;
  est.cycles = std::max(est.core_max, est.dram);
  est.bound.bytes = all;
  est.bound.memory_cycles = dram_cycles(double(all.dram_read()), double(all.write), cfg);
  est.bound.cycles = std::max(double(est.bound.compute_cycles), est.bound.memory_cycles);
  return est;
}

}  // namespace vta::compiler
