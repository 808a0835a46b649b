// `vtasim sweep`: expands a spec into jobs (design point x workload), keeps this shard's jobs,
// skips the ones the database already holds (resume), runs the rest in worker processes and
// commits each job's rows as it finishes, with a progress display.
#pragma once

#include <cstddef>
#include <functional>
#include <string>

#include "vta/explore/sweep_spec.h"

namespace vta::explore {

struct SweepOptions {
  std::string db_path;
  size_t workers = 0;  // 0 = one per CPU this process may use (its affinity mask)
  size_t shard_index = 1, shard_count = 1;  // this run's share: points with index % N == I - 1
  bool retry_failed = false;                // redo jobs recorded as failed or timeout
  double timeout_seconds = 0;               // per job; 0 = none
  size_t recycle_after = 32;                // jobs per worker process
  bool progress = true;
  // Polled in the parent while jobs run; true stops the sweep (finished jobs stay committed).
  std::function<bool()> interrupted;
};

struct SweepSummary {
  size_t points = 0, jobs = 0;                          // of this shard
  size_t ran = 0, skipped = 0;                          // run now / already in the database
  size_t ok = 0, invalid = 0, failed = 0, timeout = 0;  // every job of the shard, by status
  double wall_seconds = 0;
  bool interrupted = false;  // stopped early (SweepOptions::interrupted or Ctrl-C)
  std::string line(const SweepSpec& spec, const SweepOptions& opt) const;
  // 0 when every job is ok or invalid, 3 otherwise.
  int exit_status() const { return failed + timeout ? 3 : 0; }
};

// "I/N" with 1 <= I <= N; throws vta::Error naming the text otherwise.
void parse_shard(const std::string& text, size_t& index, size_t& count);

// Throws vta::Error naming the option when `opt` is out of range (workers above 1024, a shard
// outside 1..N, a timeout that is negative, NaN or infinite, recycling after 0 jobs). Every way
// in (CLI, Python) gets the same rule; run_sweep calls it first.
void check_sweep_options(const SweepOptions& opt);

SweepSummary run_sweep(const SweepSpec& spec, const SweepOptions& opt);

}  // namespace vta::explore
