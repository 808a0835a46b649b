#include "vta/compiler/scheduling/auto_schedule.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <set>

#include <fmt/format.h>

#include "vta/compiler/codegen/kernel_fold.h"
#include "vta/compiler/codegen/layout.h"
#include "vta/compiler/scheduling/bound.h"
#include "vta/sim/error.h"

namespace vta::compiler {

namespace {

// Tile-size candidates for a dimension of `n`: everything up to 32, otherwise divisors,
// powers of two and n/k splits. The loop variables are 64-bit so that no n up to INT_MAX
// overflows them (an int `i *= 2` or `d * d` would wrap and never end).
std::vector<int> size_candidates(int n) {
  std::set<int> s;
  if (n <= 32) {
    for (int i = 1; i <= n; ++i) {
      s.insert(i);
    }
  } else {
    for (int64_t i = 1; i <= n; i *= 2) {
      s.insert(int(i));
    }
    for (int k = 1; k <= 32; ++k) {
      s.insert(ceil_div(n, k));
    }
    for (int64_t d = 1; d * d <= n; ++d) {
      if (n % d == 0) {
        s.insert(int(d));
        s.insert(int(n / d));
      }
    }
  }
  return {s.begin(), s.end()};
}

}  // namespace

DramTraffic estimate_traffic(const TilePlan& P, const HwConfig& cfg) {
  const BlockedConv& g = P.g;
  const TileShape t = P.full_shape();
  const double steps = double(P.steps());
  const double out_total = double(g.nb) * g.ocb * g.oh * g.ow;
  DramTraffic d;
  d.wgt_loads = double(P.weight_loads());
  d.read = steps * t.ti * t.ih * t.iw * cfg.inp_elem_bytes +
           d.wgt_loads * t.to * t.ti * g.p.kh * g.p.kw * cfg.wgt_elem_bytes +
           (P.e.residual ? out_total * cfg.out_elem_bytes : 0);
  d.write = out_total * cfg.out_elem_bytes;
  return d;
}

namespace {

// What one step and one tile of a plan cost each stage (cycles), for the full-size tile.
struct StageCosts {
  double inp_load = 0;    // load: the step's input windows
  double wgt_load = 0;    // load: the step's weights, when the slot does not hold them
  double gemm = 0;        // compute: the step's GEMMs (and kernel reloads)
  double tile_start = 0;  // compute: reset, bias and residual loads of a tile's first step
  double epilogue = 0;    // compute: the ALU epilogue after a tile's last step
  double store = 0;       // store: the tile's output
};

// The memory's side of the cost model under one config, worked out once per search.
struct MemoryCosts {
  explicit MemoryCosts(const HwConfig& cfg)
      : rates(dram_transfer_rates(cfg)),
        read_latency(dram_read_latency(cfg)),
        write_latency(double(cfg.dram_write_latency_cycles)) {}
  double transfer(double read_bytes, double write_bytes) const {
    return rates.cycles(read_bytes, write_bytes);
  }
  MemoryTransferRates rates;
  double read_latency;
  double write_latency;
};

StageCosts stage_costs(const TilePlan& P, const HwConfig& cfg, const MemoryCosts& m) {
  const BlockedConv& g = P.g;
  const Epilogue& e = P.e;
  const double insn = 8;  // fixed cost of issuing one instruction
  const double rd_lat = m.read_latency;
  const double wr_lat = m.write_latency;
  const TileShape t = P.full_shape();
  const double kk = double(g.p.kh) * g.p.kw;
  const double out_tile = double(t.to) * t.th * t.tw;  // accumulator elements of a tile
  const int imm_ops = (e.shift ? 1 : 0) + (e.lower_bound() ? 1 : 0) + (e.clip_hi ? 1 : 0) +
                      e.round_imm_ops() + e.residual_shift_imm_ops();
  const int vec_ops =
      int(acc_channel_rows(e)) + (e.residual && !P.residual_init ? 1 : 0) + e.round_vec_ops();
  StageCosts c;
  c.inp_load = t.ti * (m.transfer(double(t.ih) * t.iw * cfg.inp_elem_bytes, 0) + rd_lat + insn);
  c.wgt_load = m.transfer(double(t.to) * t.ti * kk * cfg.wgt_elem_bytes, 0) + rd_lat + insn;
  c.gemm = double(g.gemm_uop_count()) / double(P.steps()) + insn;
  // Micro-op kernels that do not stay resident are reloaded every step.
  const double kernel_uops = double(t.ti) * kk * t.to;
  // Distinct (input, weight, accumulator) slot combinations (TilePlan::weight_slot).
  const double combos =
      P.ic_chunks == 1 && P.oc_tiles == 1 ? P.s.threads : double(P.s.threads) * P.s.threads;
  if (kernel_uops * combos + 16 > cfg.uop_buff_depth) {
    c.gemm += m.transfer(kernel_uops * 4, 0) + rd_lat;
  }
  // Accumulator reset, or the residual as initial value shifted left by the epilogue's shift.
  c.tile_start = !P.residual_init || e.shift ? out_tile + insn : 0;
  c.tile_start += double(acc_channel_rows(e)) * (rd_lat + insn);  // LOAD ACC bias, shifts
  if (e.residual) {  // LOAD ACC_8BIT runs on the compute unit
    c.tile_start += m.transfer(out_tile * cfg.out_elem_bytes, 0) + t.to * (rd_lat + insn);
  }
  c.epilogue = out_tile * (imm_ops + 2 * vec_ops) + insn * (imm_ops + vec_ops);
  // Output tiles at about 1.5 beats each plus the write response per row burst.
  c.store = m.transfer(0, out_tile * cfg.out_elem_bytes) * 1.5 + t.to * (wr_lat + insn + t.th * 2);
  return c;
}

// Steps simulated one by one; longer plans are extrapolated at the rate of the last half.
constexpr uint64_t kSimulatedSteps = 256;

// estimate_cycles before its lower bound: the step-by-step run of the three stages. The step
// times live on the stack (at most kSimulatedSteps): this runs for every candidate plan.
double simulate_steps(const TilePlan& P, const StageCosts& c) {
  const uint64_t T = uint64_t(P.s.threads), C = uint64_t(P.ic_chunks);
  const uint64_t steps = P.steps(), ot_steps = steps / (uint64_t(P.g.nb) * P.oc_tiles);
  const bool wgt_kept = C <= T;  // TilePlan::weight_slot: each chunk's weights keep a slot
  const uint64_t n = std::min(steps, kSimulatedSteps);
  // The three stages as the dependency tokens order them: the load of step s waits for its
  // slot (compute of step s - T), a tile's first step for its accumulator slot (store of tile
  // j - T); each stage runs its own work in order. Only elements written before are read.
  std::array<double, kSimulatedSteps> load_end, comp_end;
  std::array<double, kSimulatedSteps + 1> store_end;
  double half = 0;
  for (uint64_t s = 0; s < n; ++s) {
    const uint64_t j = s / C, ch = s % C;
    const bool wgt = !wgt_kept || (P.oc_tiles == 1 ? s : s % ot_steps) < C;
    load_end[s] = std::max(s ? load_end[s - 1] : 0.0, s >= T ? comp_end[s - T] : 0.0) + c.inp_load +
                  (wgt ? c.wgt_load : 0);
    // Not modelled: the weight parts (TilePlan::weight_parts) that let the GEMMs start
    // before all weights are in; crediting them picked worse schedules on pynq's layer4.
    double start = std::max(load_end[s], s ? comp_end[s - 1] : 0.0);
    if (ch == 0 && j >= T) {
      start = std::max(start, store_end[j - T]);
    }
    comp_end[s] = start + c.gemm + (ch == 0 ? c.tile_start : 0) + (ch + 1 == C ? c.epilogue : 0);
    if (ch + 1 == C) {
      store_end[j] = std::max(comp_end[s], j ? store_end[j - 1] : 0.0) + c.store;
    }
    if (s + 1 == n / 2) {
      half = comp_end[s];
    }
  }
  const double end = std::max(comp_end[n - 1], n >= C ? store_end[n / C - 1] : 0.0);
  const uint64_t second_half = n - n / 2;
  const double rate = n >= 2 ? (comp_end[n - 1] - half) / double(second_half) : 0.0;
  return end + double(steps - n) * rate;
}

// stage_lower_bound from the plan's stage costs and DRAM traffic, when the caller has them.
double lower_bound_of(const TilePlan& P, const MemoryCosts& m, const StageCosts& c,
                      const DramTraffic& d) {
  // Each stage does its own work one item after the other: estimate_cycles is at least the
  // busiest stage's total, and the DRAM time of all bytes.
  const double steps = double(P.steps()), tiles = double(P.tiles());
  const double load = steps * c.inp_load + d.wgt_loads * c.wgt_load;
  const double compute = steps * c.gemm + tiles * (c.tile_start + c.epilogue);
  return std::max({load, compute, tiles * c.store, m.transfer(d.read, d.write)});
}

}  // namespace

double estimate_cycles(const TilePlan& P, const HwConfig& cfg) {
  const MemoryCosts m(cfg);
  const StageCosts c = stage_costs(P, cfg, m);
  // Never below the busiest stage's work or the DRAM time of all reads (one read channel,
  // whichever unit issues them), whatever the extrapolation gives.
  return std::max(simulate_steps(P, c), lower_bound_of(P, m, c, estimate_traffic(P, cfg)));
}

double stage_lower_bound(const TilePlan& P, const HwConfig& cfg) {
  const MemoryCosts m(cfg);
  return lower_bound_of(P, m, stage_costs(P, cfg, m), estimate_traffic(P, cfg));
}

namespace {

// The best `keep` scores seen so far; ties are broken by the order of adding, so the choice
// is stable. The ranking moves small keys, not the candidates (whose schedule may carry an
// epilogue with per-channel shifts).
class BestEstimates {
 public:
  explicit BestEstimates(size_t keep) : m_keep(keep) {}
  void add(const ScheduleCandidate& c) {
    m_keys.push_back({c.score, m_added++, m_all.size()});
    m_all.push_back(c);
    if (m_keys.size() >= 2 * m_keep) {
      std::nth_element(m_keys.begin(), m_keys.begin() + std::ptrdiff_t(m_keep), m_keys.end(),
                       by_estimate);
      m_keys.resize(m_keep);
      std::vector<ScheduleCandidate> kept;
      kept.reserve(2 * m_keep);
      m_cutoff = 0;
      for (Key& k : m_keys) {
        m_cutoff = std::max(m_cutoff, k.score);
        kept.push_back(m_all[k.index]);
        k.index = kept.size() - 1;
      }
      m_all.swap(kept);
    }
  }
  // A score above this can no longer be among the best `keep`.
  double cutoff() const { return m_cutoff; }
  // Best score first.
  std::vector<ScheduleCandidate> sorted() {
    std::sort(m_keys.begin(), m_keys.end(), by_estimate);
    std::vector<ScheduleCandidate> out;
    for (const Key& k : m_keys) {
      out.push_back(m_all[k.index]);
    }
    return out;
  }

 private:
  struct Key {
    double score = 0;
    size_t order = 0;  // of adding
    size_t index = 0;  // into m_all
  };
  static bool by_estimate(const Key& a, const Key& b) {
    return std::make_pair(a.score, a.order) < std::make_pair(b.score, b.order);
  }
  size_t m_keep;
  size_t m_added = 0;
  double m_cutoff = std::numeric_limits<double>::infinity();
  std::vector<Key> m_keys;
  std::vector<ScheduleCandidate> m_all;
};

// A light-weight plan of `s`, enough for the estimate (no SRAM checks, no kernel construction).
TilePlan estimate_plan(const BlockedConv& g, const Epilogue& e, const ConvSchedule& s) {
  TilePlan plan;
  plan.g = g;
  plan.s = s;
  plan.e = e;
  plan.h_tiles = ceil_div(g.oh, s.tile_h);
  plan.w_tiles = ceil_div(g.ow, s.tile_w);
  plan.oc_tiles = ceil_div(g.ocb, s.tile_oc_blocks);
  plan.ic_chunks = ceil_div(g.icb, s.tile_ic_blocks);
  plan.residual_init = residual_initialises_acc(g, e);
  return plan;
}

// Adds every tile_h x tile_w (from hs x ws) whose input window and accumulators fit the slots
// of `s.threads` threads, with the channel blocks and threads of `s`.
void add_spatial_tiles(const BlockedConv& g, const Epilogue& e, const HwConfig& cfg,
                       const MemoryCosts& m, ConvSchedule s, const std::vector<int>& hs,
                       const std::vector<int>& ws, BestEstimates& best) {
  const Conv2dParams& p = g.p;
  const int vt = s.threads, to = s.tile_oc_blocks, ti = s.tile_ic_blocks;
  const uint64_t inp_slot = cfg.inp_buff_depth / vt, acc_slot = cfg.acc_buff_depth / vt;
  const bool res_init = residual_initialises_acc(g, e);
  for (int th : hs) {
    const uint64_t ih = uint64_t(window_rows(p, th));
    for (int tw : ws) {
      const uint64_t iw = uint64_t(tw - 1) * p.stride_w + p.kw;
      if (ti * ih * iw > inp_slot) {
        break;  // wider tiles only need more
      }
      const uint64_t out = uint64_t(to) * th * tw;
      if (out * (e.second_region(res_init) ? 2 : 1) + acc_channel_rows(e) * to > acc_slot) {
        break;
      }
      if (uint64_t(th) * tw > 16383) {
        break;
      }
      s.tile_h = th;
      s.tile_w = tw;
      const TilePlan plan = estimate_plan(g, e, s);
      const DramTraffic d = estimate_traffic(plan, cfg);
      const double traffic = kTrafficWeight * m.transfer(d.read, d.write);
      // estimate_cycles and stage_lower_bound, their shared parts computed once.
      const StageCosts c = stage_costs(plan, cfg, m);
      const double bound = lower_bound_of(plan, m, c, d);
      if (bound + traffic > best.cutoff()) {
        continue;  // the step-by-step estimate can only be larger
      }
      const double est = std::max(simulate_steps(plan, c), bound);
      best.add({s, est, d.read + d.write, est + traffic});
    }
  }
}

// Adds the channel blockings and thread counts of a (possibly folded) layer.
void add_blockings(const BlockedConv& g, const Epilogue& e, const HwConfig& cfg, int fold,
                   BestEstimates& best) {
  const auto hs = size_candidates(g.oh), ws = size_candidates(g.ow);
  const auto os = size_candidates(g.ocb), is = size_candidates(g.icb);
  const uint64_t kk = uint64_t(g.p.kh) * g.p.kw;
  const MemoryCosts m(cfg);
  for (int vt : {2, 1}) {
    const uint64_t wgt_slot = cfg.wgt_buff_depth / vt;
    for (int to : os) {
      for (int ti : is) {
        if (uint64_t(to) * ti * kk > wgt_slot) {
          continue;
        }
        // Rough micro-op count of the step kernel (exact when to >= 3).
        if (uint64_t(ti) * kk * to > cfg.uop_buff_depth / 2) {
          continue;
        }
        ConvSchedule s;
        s.tile_oc_blocks = to;
        s.tile_ic_blocks = ti;
        s.threads = vt;
        s.fold_rows = fold;
        add_spatial_tiles(g, e, cfg, m, s, hs, ws, best);
      }
    }
  }
}

// The first `max_count` candidates that pass the full plan check (incl. the micro-op kernel).
std::vector<ScheduleCandidate> fitting_schedules(const Conv2dParams& p, const Epilogue& e,
                                                 const HwConfig& cfg,
                                                 const std::vector<ScheduleCandidate>& ranked,
                                                 size_t max_count) {
  std::vector<ScheduleCandidate> out;
  for (const ScheduleCandidate& c : ranked) {
    if (out.size() >= max_count) {
      break;
    }
    try {
      (void)TilePlan::make(p, e, c.schedule, cfg);
      out.push_back(c);
    } catch (const Error&) {
    }
  }
  if (out.empty()) {
    throw ScheduleFitError(
        fmt::format("no schedule of {} fits config {} (smallest tiles do not fit the "
                    "SRAMs or the uop buffer)",
                    p.describe(), cfg.model_name));
  }
  return out;
}

}  // namespace

std::vector<ScheduleCandidate> rank_schedules(const Conv2dParams& p, const Epilogue& e,
                                              const HwConfig& cfg, size_t max_count) {
  (void)BlockedConv::make(p, cfg);  // validates the layer as written
  e.validate();
  std::vector<int> folds = {0};
  for (int f : fold_candidates(p, cfg.block_in)) {
    folds.push_back(f);
  }
  // Only the best estimates are kept (some may still fail the full plan check). A short list
  // prunes the search harder; its first `keep` entries are exactly the head of the long one
  // (same order, ties by order of adding), so when enough of them fit the answer is the long
  // list's, and otherwise the search runs again with the long list.
  const size_t long_list = std::max<size_t>(256, 8 * max_count);
  for (size_t keep : {std::min(long_list, std::max<size_t>(16, 4 * max_count)), long_list}) {
    BestEstimates best(keep);
    for (int fold : folds) {
      add_blockings(BlockedConv::make(fold ? folded_params(p, fold) : p, cfg), e, cfg, fold, best);
    }
    std::vector<ScheduleCandidate> ranked = best.sorted();
    if (keep == long_list) {
      return fitting_schedules(p, e, cfg, ranked, max_count);
    }
    ranked.resize(std::min(ranked.size(), keep));  // past `keep` the list is not exact
    try {
      std::vector<ScheduleCandidate> fit = fitting_schedules(p, e, cfg, ranked, max_count);
      if (fit.size() == max_count) {
        return fit;
      }
    } catch (const ScheduleFitError&) {
    }
  }
  return {};  // not reached: the long list returns or throws
}

ConvSchedule auto_schedule(const Conv2dParams& p, const Epilogue& e, const HwConfig& cfg) {
  return rank_schedules(p, e, cfg, 1).front().schedule;
}

double run_cost(const LayerRun& r, const HwConfig& cfg) {
  if (r.stats.timed) {
    return double(r.stats.cycles);
  }
  return double(r.stats.gemm_counter + r.stats.alu_counter) +
         double(r.moved_bytes()) / double(cfg.bus_bytes);
}

TuneResult tune_conv2d(const Target& target, const Conv2dParams& p, const Epilogue& e,
                       const ConvData& data, size_t candidates, bool check) {
  const HwConfig& cfg = target.config;
  TuneResult res;
  for (const ScheduleCandidate& c : rank_schedules(p, e, cfg, candidates)) {
    TuneTrial t;
    t.schedule = c.schedule;
    t.est_cycles = c.est_cycles;
    TargetStep step(target, "candidates", c.schedule.describe());
    t.run = run_conv2d(target, p, e, c.schedule, data, check);
    step.done(t.run.stats);
    t.cost = run_cost(t.run, cfg);
    res.trials.push_back(std::move(t));
    if (res.trials.back().cost < res.trials[res.best].cost) {
      res.best = res.trials.size() - 1;
    }
  }
  return res;
}

}  // namespace vta::compiler
