#include "vta/explore/sweep_runner.h"

#include <sched.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <thread>

#include <fmt/format.h>

#include "vta/compiler/run/process_pool.h"
#include "vta/compiler/run/progress_display.h"
#include "vta/explore/results_db.h"
#include "vta/explore/sweep_job.h"

namespace vta::explore {

void parse_shard(const std::string& text, size_t& index, size_t& count) {
  const size_t slash = text.find('/');
  size_t used_i = 0, used_n = 0;
  long i = 0, n = 0;
  try {
    if (slash != std::string::npos) {
      i = std::stol(text.substr(0, slash), &used_i);
      n = std::stol(text.substr(slash + 1), &used_n);
    }
  } catch (const std::exception&) {
    used_i = 0;
  }
  if (slash == std::string::npos || used_i != slash || used_n != text.size() - slash - 1 || n < 1 ||
      i < 1 || i > n) {
    throw Error(
        fmt::format("--shard '{}' must be I/N with 1 <= I <= N (shards count from 1)", text));
  }
  index = static_cast<size_t>(i);
  count = static_cast<size_t>(n);
}

std::string SweepSummary::line(const SweepSpec& spec, const SweepOptions& opt) const {
  const std::string shard =
      opt.shard_count > 1 ? fmt::format(" (shard {}/{})", opt.shard_index, opt.shard_count) : "";
  return fmt::format(
      "sweep {}{}{}: {} points x {} workloads = {} jobs; ran {}, {} already done; ok {}, invalid "
      "{}, failed {}, timeout {}; {} in {}",
      spec.name, shard, interrupted ? " (interrupted)" : "", points, spec.workloads.size(), jobs,
      ran, skipped, ok, invalid, failed, timeout, compiler::format_duration(wall_seconds),
      opt.db_path);
}

namespace {

// The CPUs this process may run on (a Slurm job's or a taskset's share), else all of them.
size_t usable_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) {
    return static_cast<size_t>(CPU_COUNT(&set));
  }
  return std::max(1u, std::thread::hardware_concurrency());
}

void count_status(SweepSummary& s, const std::string& status) {
  if (status == "ok") {
    ++s.ok;
  } else if (status == "invalid") {
    ++s.invalid;
  } else if (status == "timeout") {
    ++s.timeout;
  } else {
    ++s.failed;
  }
}

// This shard's jobs as (point index, workload), counting its points and jobs into `sum` and the
// ones the database holds as skipped. A point's keys are built again where its job runs, so a
// large sweep never holds every point's keys at once.
std::vector<std::pair<size_t, size_t>> jobs_to_run(const SweepSpec& spec, const SweepOptions& opt,
                                                   const DesignSpace& space, const ResultsDb& db,
                                                   SweepSummary& sum) {
  const std::map<std::string, ResultsDb::JobRecord> done = db.job_status();
  std::vector<std::pair<size_t, size_t>> todo;
  for (size_t i = opt.shard_index - 1; i < space.size(); i += opt.shard_count) {
    ++sum.points;
    const DesignPoint p = space.point(i);
    for (size_t w = 0; w < spec.workloads.size(); ++w) {
      ++sum.jobs;
      const SweepJob job{&p, w};
      const auto it = done.find(job_key(spec, job));
      // A job run with other settings (seed, check, tuning, file contents) is run again; its
      // rows are replaced when the new ones are written.
      const bool redo =
          it == done.end() || it->second.settings_id != settings_id(spec, job) ||
          (opt.retry_failed && it->second.status != "ok" && it->second.status != "invalid");
      if (redo) {
        todo.emplace_back(i, w);
      } else {
        ++sum.skipped;
        count_status(sum, it->second.status);
      }
    }
  }
  return todo;
}

compiler::ProcessPoolOptions pool_options(const SweepOptions& opt) {
  compiler::ProcessPoolOptions po;
  po.workers = opt.workers ? opt.workers : usable_cpus();
  po.recycle_after = opt.recycle_after;
  po.timeout_seconds = opt.timeout_seconds;
  po.discard_stdout = true;  // the simulators' output would mix with the summary on stdout
  return po;
}

// The rows of a job from its worker's outcome: the rows it sent, or one row saying what became
// of it (status "failed" or "timeout").
std::vector<nlohmann::ordered_json> job_result_rows(const SweepSpec& spec, const SweepJob& job,
                                                    const compiler::JobOutcome& outcome) {
  using Status = compiler::JobOutcome::Status;
  if (outcome.status == Status::kDone) {
    try {
      std::vector<nlohmann::ordered_json> rows;
      for (const auto& r : nlohmann::ordered_json::parse(outcome.bytes)) {
        rows.push_back(r);
      }
      return rows;
    } catch (const nlohmann::json::exception& e) {
      return lost_job_rows(spec, job, "failed",
                           std::string("unreadable result from the worker: ") + e.what(),
                           outcome.seconds);
    }
  }
  return lost_job_rows(spec, job, outcome.status == Status::kTimedOut ? "timeout" : "failed",
                       outcome.bytes, outcome.seconds);
}

}  // namespace

void check_sweep_options(const SweepOptions& opt) {
  if (opt.workers > 1024) {
    throw Error(
        fmt::format("sweep: jobs = {} is out of range 0..1024 (0: one per CPU)", opt.workers));
  }
  if (opt.shard_count < 1 || opt.shard_index < 1 || opt.shard_index > opt.shard_count) {
    throw Error(fmt::format("sweep: shard {}/{} must be I/N with 1 <= I <= N", opt.shard_index,
                            opt.shard_count));
  }
  if (!(opt.timeout_seconds >= 0) || !std::isfinite(opt.timeout_seconds)) {
    throw Error(
        fmt::format("sweep: timeout = {} must be a finite number of seconds >= 0 "
                    "(0: none)",
                    opt.timeout_seconds));
  }
  if (opt.recycle_after < 1) {
    throw Error("sweep: recycle_after must be at least 1 job per worker");
  }
}

SweepSummary run_sweep(const SweepSpec& spec, const SweepOptions& opt) {
  check_sweep_options(opt);
  const auto start = std::chrono::steady_clock::now();
  const DesignSpace space(spec);  // before the database: a spec error creates no file
  SweepSummary sum;
  ResultsDb db(opt.db_path);
  const std::vector<std::pair<size_t, size_t>> todo = jobs_to_run(spec, opt, space, db, sum);
  const auto job_rows = [&](size_t i, const auto& make) {
    const DesignPoint p = space.point(todo[i].first);
    return make(SweepJob{&p, todo[i].second});
  };
  ::setenv("SC_COPYRIGHT_MESSAGE", "DISABLE", 1);  // no SystemC banner from every worker
  compiler::ProgressDisplay progress("sweep " + spec.name, "jobs", todo.size(),
                                     {!opt.progress, false});
  size_t failures = 0;
  const auto record = [&](const std::vector<nlohmann::ordered_json>& rows) {
    db.write_job(rows);
    const std::string st = rows.front().at("status").get<std::string>();
    count_status(sum, st);
    failures += st == "failed" || st == "timeout" ? 1 : 0;
    progress.update(++sum.ran, failures);
  };
  compiler::ProcessPool pool(
      pool_options(opt),
      [&](size_t i) {
        return job_rows(i, [&](const SweepJob& job) {
          return nlohmann::ordered_json(run_job(spec, job)).dump();
        });
      },
      [&](size_t i) {
        return job_rows(i, [&](const SweepJob& job) {
          return fmt::format("design point {} x workload '{}'", job.point->id,
                             spec.workloads[job.workload].text);
        });
      });
  sum.interrupted = !pool.run(
      todo.size(),
      [&](size_t i, compiler::JobOutcome& outcome) {
        record(
            job_rows(i, [&](const SweepJob& job) { return job_result_rows(spec, job, outcome); }));
        return true;
      },
      opt.interrupted);
  progress.finish();
  sum.wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return sum;
}

}  // namespace vta::explore
