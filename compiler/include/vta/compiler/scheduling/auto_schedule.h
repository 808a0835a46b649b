// Automatic schedule choice and tuning.
//
// rank_schedules() enumerates tile sizes and thread counts that fit the configuration's SRAMs
// and scores each with an analytic cycle model of the pipeline (GEMM one micro-op per cycle,
// ALU one per cycle with an immediate and two without, DMA at the design's bandwidth plus the
// read latency per instruction; the load, compute and store stages then run step by step as
// the virtual threads' dependency tokens let them overlap). tune_conv2d() runs the best candidates
// on the target and keeps the fastest: measured cycles on a timed backend, and on fsim a byte/op
// cost (GEMM + ALU micro-ops + bytes moved / bus bytes) computed from the counters.
#pragma once

#include <cstddef>
#include <vector>

#include "vta/compiler/run/layer_runner.h"
#include "vta/compiler/scheduling/schedule.h"
#include "vta/compiler/target.h"
#include "vta/sim/hw_config.h"

namespace vta::compiler {

struct ScheduleCandidate {
  ConvSchedule schedule;
  double est_cycles = 0;  // estimate_cycles
  double est_bytes = 0;   // estimate_traffic: read + write
  double score = 0;       // what the ranking sorts by: est_cycles + kTrafficWeight x DRAM cycles
};

// Candidates are ranked by the estimated cycles plus this share of the cycles their DRAM traffic
// needs (dram_cycles), so that among schedules of about the same speed the one moving fewer
// bytes wins: it stays fast on designs with less bandwidth per MAC.
constexpr double kTrafficWeight = 0.3;

// DRAM bytes a plan moves by the code generator's rules: every step loads its input window;
// weights once per (oc tile, slot) when the chunk count divides the threads (a slot keeps its
// oc tile and chunk), every step otherwise.
struct DramTraffic {
  double read = 0, write = 0;
  double wgt_loads = 0;  // LOAD WGT instructions
};
DramTraffic estimate_traffic(const TilePlan& plan, const HwConfig& cfg);
// Analytic estimate (cycles) of a plan; see the file comment.
double estimate_cycles(const TilePlan& plan, const HwConfig& cfg);
// A lower bound of estimate_cycles that needs no step-by-step run (the busiest stage's total
// work, the DRAM time of all bytes): the ranking skips candidates it already rules out.
double stage_lower_bound(const TilePlan& plan, const HwConfig& cfg);
// Up to max_count fitting schedules, best score first. Throws Error if none fits.
std::vector<ScheduleCandidate> rank_schedules(const Conv2dParams& p, const Epilogue& e,
                                              const HwConfig& cfg, size_t max_count);
ConvSchedule auto_schedule(const Conv2dParams& p, const Epilogue& e, const HwConfig& cfg);

// Cost of a finished run as the tuner sees it (cycles, or the fsim byte/op cost).
double run_cost(const LayerRun& r, const HwConfig& cfg);

struct TuneTrial {
  ConvSchedule schedule;
  double est_cycles = 0;
  LayerRun run;
  double cost = 0;
};
struct TuneResult {
  std::vector<TuneTrial> trials;  // in the order tried
  size_t best = 0;
};
// Runs the `candidates` best-estimated schedules on the target.
TuneResult tune_conv2d(const Target& target, const Conv2dParams& p, const Epilogue& e,
                       const ConvData& data, size_t candidates, bool check);

}  // namespace vta::compiler
