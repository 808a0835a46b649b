#include "vta/compiler/run/grouped_conv_runner.h"

#include <fmt/format.h>

#include "run/group_sets_on_cores.h"
#include "vta/compiler/run/core_split.h"
#include "vta/compiler/scheduling/auto_schedule.h"
#include "vta/sim/error.h"

namespace vta::compiler {

namespace {

// Set `s`'s input channels (all batches).
std::vector<int8_t> set_input(const GroupedConvSplit& g, const std::vector<int8_t>& x, int s) {
  const Conv2dParams& w = g.whole;
  const size_t plane = size_t(w.h) * size_t(w.w), cs = size_t(g.set.c);
  std::vector<int8_t> out(size_t(w.n) * cs * plane);
  for (int n = 0; n < w.n; ++n) {
    std::copy_n(x.begin() + long((size_t(n) * size_t(w.c) + size_t(s) * cs) * plane), cs * plane,
                out.begin() + long(size_t(n) * cs * plane));
  }
  return out;
}

// Set `s`'s block-diagonal weights [K_set][C_set][KH][KW] from the layer's [K][C/groups][KH][KW].
std::vector<int8_t> set_weights(const GroupedConvSplit& g, const std::vector<int8_t>& w, int s) {
  const Conv2dParams& p = g.set;
  const int ci = p.c / g.per_set, co = p.k / g.per_set;
  const size_t taps = size_t(p.kh) * size_t(p.kw);
  std::vector<int8_t> out(size_t(p.k) * size_t(p.c) * taps, 0);
  for (int o = 0; o < p.k; ++o) {
    const int group = o / co;  // within the set
    const size_t src = (size_t(s) * size_t(p.k) + size_t(o)) * size_t(ci) * taps;
    for (int i = 0; i < ci; ++i) {
      std::copy_n(w.begin() + long(src + size_t(i) * taps), taps,
                  out.begin() + long((size_t(o) * size_t(p.c) + size_t(group * ci + i)) * taps));
    }
  }
  return out;
}

}  // namespace

ConvData group_set_data(const GroupedConvSplit& g, const Epilogue& e, const ConvData& d, int s) {
  ConvData sd;
  sd.x = set_input(g, d.x, s);
  sd.w = set_weights(g, d.w, s);
  if (e.bias) {
    sd.bias.assign(d.bias.begin() + s * g.set.k, d.bias.begin() + (s + 1) * g.set.k);
  }
  return sd;
}

// Writes set `s`'s output (N x K_set x OH x OW) into the layer's.
void place_group_set_output(const GroupedConvSplit& g, const std::vector<int8_t>& part, int s,
                            std::vector<int8_t>& out) {
  const size_t plane = size_t(g.set.out_h()) * size_t(g.set.out_w()), ks = size_t(g.set.k);
  for (int n = 0; n < g.whole.n; ++n) {
    std::copy_n(part.begin() + long(size_t(n) * ks * plane), ks * plane,
                out.begin() + long((size_t(n) * size_t(g.whole.k) + size_t(s) * ks) * plane));
  }
}

uint64_t GroupedConvSplit::true_macs() const {
  Conv2dParams one = whole;
  one.c = whole.c / groups, one.k = whole.k / groups;
  return one.macs() * uint64_t(groups);
}

GroupedConvSplit GroupedConvSplit::make(const Conv2dParams& whole, int groups,
                                        const HwConfig& cfg) {
  if (groups < 1 || whole.c % groups || whole.k % groups) {
    throw Error(fmt::format("conv2d '{}': {} groups do not divide {} input and {} output channels",
                            whole.name, groups, whole.c, whole.k));
  }
  GroupedConvSplit g;
  g.groups = groups;
  g.whole = whole;
  const int ci = whole.c / groups, co = whole.k / groups;
  g.per_set = groups;
  for (int n = 1; n < groups; ++n) {
    if (groups % n == 0 && (n * ci) % cfg.block_in == 0 && (n * co) % cfg.block_out == 0) {
      g.per_set = n;
      break;
    }
  }
  g.sets = groups / g.per_set;
  g.set = whole;
  g.set.c = g.per_set * ci, g.set.k = g.per_set * co;
  g.set.validate();
  return g;
}

uint64_t grouped_conv_cycle_estimate(const GroupedConvSplit& g, const Epilogue& e,
                                     const HwConfig& cfg) {
  const ConvSchedule s = auto_schedule(g.set, e, cfg);
  const double one = estimate_cycles(TilePlan::make(g.set, e, s, cfg), cfg);
  return uint64_t(one + 2 * dram_read_latency(cfg)) * uint64_t(g.sets);
}

namespace {

// The sets one program after another on the target's core 0 (a set itself may be split over
// the cores as any convolution is); the run's counters are the sum over the programs.
LayerRun run_sets_one_by_one(const Target& target, const GroupedConvSplit& g, const Epilogue& e,
                             const ConvSchedule& s, const ConvData& data,
                             std::vector<int8_t>& out) {
  LayerRun r;
  for (int set = 0; set < g.sets; ++set) {
    const Epilogue set_e = e.channels(size_t(set) * size_t(g.set.k), size_t(g.set.k));
    const LayerRun part =
        run_conv2d(target, g.set, set_e, s, group_set_data(g, e, data, set), false);
    place_group_set_output(g, part.out, set, out);
    if (set == 0) {
      r = part;
      continue;
    }
    r.add_program(part);
  }
  r.verdict = verdict_of(r.bound, r.stats, target.config);
  return r;
}

}  // namespace

LayerRun run_conv2d_in_group_sets(const Target& target, const GroupedConvSplit& g,
                                  const Epilogue& e, const ConvSchedule& s, const ConvData& data,
                                  const std::vector<int8_t>* reference) {
  const Conv2dParams& w = g.whole;
  std::vector<int8_t> out(size_t(w.n) * size_t(w.k) * size_t(w.out_h()) * size_t(w.out_w()));
  const int cores = target.config.num_cores();
  LayerRun r;
  if (target.layer_split != LayerSplit::kNone && cores > 1 && g.sets > 1) {
    r = run_group_sets_on_cores(target, g, e, s, data, cores, out);
    r.split = fmt::format("{}: {}", layer_split_name(target.layer_split), r.split);
  } else {
    r = run_sets_one_by_one(target, g, e, s, data, out);
  }
  r.name = w.name.empty() ? "conv2d" : w.name;
  r.shape = fmt::format("{} groups {} ({} sets of {})", w.describe(), g.groups, g.sets, g.per_set);
  r.macs = g.true_macs();
  r.epilogue = e;
  r.out = std::move(out);
  if (reference) {
    r.checked = true;
    for (size_t i = 0; i < reference->size(); ++i) {
      if ((*reference)[i] != r.out[i] && r.mismatches++ == 0) {
        r.first_mismatch =
            fmt::format("element {}: got {}, expected {}", i, int(r.out[i]), int((*reference)[i]));
      }
    }
  }
  return r;
}

}  // namespace vta::compiler
