#include "vta/explore/sweep_runner.h"

#include <malloc.h>
#include <sched.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <thread>

#include <fmt/format.h>

#include "vta/compiler/frontend/quantize.h"
#include "vta/compiler/run/layer_widths.h"
#include "vta/compiler/run/process_pool.h"
#include "vta/compiler/run/progress_display.h"
#include "vta/explore/results_db.h"
#include "vta/explore/sweep_job.h"
#include "vta/sim/config_source.h"

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

// The jobs of `todo` (indices into it) that run in one process pool, and the MODEL.onnx
// workloads they need loaded (the workers, forked after the load, share them).
struct JobBatch {
  std::vector<size_t> jobs;
  std::vector<size_t> models;  // workload indices; one per model file
};

// What a job needs imported: its MODEL.onnx file (however the spec spells its path) and bytes
// ("" for the other workloads).
std::string model_of(const SweepWorkload& w) {
  std::error_code ec;
  const std::filesystem::path file = std::filesystem::weakly_canonical(w.model_path, ec);
  return w.onnx ? (ec ? w.model_path : file.string()) + "|" + w.content_id : std::string();
}

// The jobs grouped by model (a model's jobs together, in the order of its first job), packed
// into batches: a batch takes whole groups until it has `workers` jobs, so at most `workers`
// models are alive at once (one when every model has as many jobs as there are workers) and
// each is imported once. The jobs that need no model are one group.
std::vector<JobBatch> batch_jobs(const SweepSpec& spec,
                                 const std::vector<std::pair<size_t, size_t>>& todo,
                                 size_t workers) {
  std::vector<std::string> model(spec.workloads.size()), order;
  for (size_t w = 0; w < model.size(); ++w) {
    model[w] = model_of(spec.workloads[w]);
  }
  std::map<std::string, JobBatch> groups;
  for (size_t i = 0; i < todo.size(); ++i) {
    const std::string& m = model[todo[i].second];
    auto [it, fresh] = groups.try_emplace(m);
    if (fresh) {
      order.push_back(m);
      if (!m.empty()) {
        it->second.models.push_back(todo[i].second);
      }
    }
    it->second.jobs.push_back(i);
  }
  std::vector<JobBatch> batches;
  for (const std::string& m : order) {
    if (batches.empty() || batches.back().jobs.size() >= workers) {
      batches.emplace_back();
    }
    JobBatch& g = groups[m];
    JobBatch& b = batches.back();
    b.jobs.insert(b.jobs.end(), g.jobs.begin(), g.jobs.end());
    b.models.insert(b.models.end(), g.models.begin(), g.models.end());
  }
  return batches;
}

// The element widths of design point `p` when a network can run at them (lanes of 1 to 8 bits
// in a config that resolves); nullopt otherwise (its jobs need no model: they are invalid).
std::optional<compiler::LayerWidths> network_widths(const SweepSpec& spec, const DesignPoint& p) {
  try {
    const ResolvedConfig rc =
        resolve_config_keys(config_label(spec.base, spec.base_keys, p.keys), p.keys, {});
    const compiler::LayerWidths w = compiler::LayerWidths::of(rc.config);
    return compiler::quantizable_widths(w) ? std::optional(w) : std::nullopt;
  } catch (const Error&) {
    return std::nullopt;
  }
}

// Imports the batch's models into `live`, each once (workloads of the same file share it) and
// quantized once per distinct element widths of the batch's designs that run it.
void load_models(SweepSpec& live, const DesignSpace& space,
                 const std::vector<std::pair<size_t, size_t>>& todo, const JobBatch& b) {
  std::map<size_t, std::optional<compiler::LayerWidths>> point_widths;
  std::map<std::string, std::vector<compiler::LayerWidths>> widths;  // by model_of
  for (size_t k : b.jobs) {
    const auto [point, workload] = todo[k];
    if (!live.workloads[workload].onnx) {
      continue;
    }
    auto it = point_widths.find(point);
    if (it == point_widths.end()) {
      it = point_widths.emplace(point, network_widths(live, space.point(point))).first;
    }
    std::vector<compiler::LayerWidths>& list = widths[model_of(live.workloads[workload])];
    if (it->second && std::find(list.begin(), list.end(), *it->second) == list.end()) {
      list.push_back(*it->second);
    }
  }
  for (size_t w : b.models) {
    live.workloads[w].load_model(live.quant, live.input, widths[model_of(live.workloads[w])]);
  }
  for (SweepWorkload& w : live.workloads) {
    for (size_t m : b.models) {
      if (w.onnx && &w != &live.workloads[m] && model_of(w) == model_of(live.workloads[m])) {
        w.quantized = live.workloads[m].quantized;
        w.import_error = live.workloads[m].import_error;
      }
    }
  }
}

// Frees every loaded model and gives the memory back to the system (glibc keeps freed heap
// otherwise, and the next batch's workers would inherit it).
void unload_models(SweepSpec& live) {
  for (SweepWorkload& w : live.workloads) {
    if (w.onnx) {
      w.unload_model();
    }
  }
  ::malloc_trim(0);
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

namespace {

using Record = std::function<void(const std::vector<nlohmann::ordered_json>&)>;

// Runs one batch's jobs in a process pool whose workers see `live` with the batch's models
// loaded; false when interrupted.
bool run_batch(const SweepSpec& live, const DesignSpace& space,
               const std::vector<std::pair<size_t, size_t>>& todo, const JobBatch& b,
               const SweepOptions& opt, const Record& record) {
  const auto job_rows = [&](size_t k, const auto& make) {
    const std::pair<size_t, size_t>& t = todo[b.jobs[k]];
    const DesignPoint p = space.point(t.first);
    return make(SweepJob{&p, t.second});
  };
  compiler::ProcessPool pool(
      pool_options(opt),
      [&](size_t k) {
        return job_rows(k, [&](const SweepJob& job) {
          return nlohmann::ordered_json(run_job(live, job)).dump();
        });
      },
      [&](size_t k) {
        return job_rows(k, [&](const SweepJob& job) {
          return fmt::format("design point {} x workload '{}'", job.point->id,
                             live.workloads[job.workload].text);
        });
      });
  return pool.run(
      b.jobs.size(),
      [&](size_t k, compiler::JobOutcome& outcome) {
        record(
            job_rows(k, [&](const SweepJob& job) { return job_result_rows(live, job, outcome); }));
        return true;
      },
      opt.interrupted);
}

}  // namespace

SweepSummary run_sweep(const SweepSpec& spec, const SweepOptions& opt) {
  check_sweep_options(opt);
  const auto start = std::chrono::steady_clock::now();
  const DesignSpace space(spec);  // before the database: a spec error creates no file
  SweepSummary sum;
  ResultsDb db(opt.db_path);
  const std::vector<std::pair<size_t, size_t>> todo = jobs_to_run(spec, opt, space, db, sum);
  ::setenv("SC_COPYRIGHT_MESSAGE", "DISABLE", 1);  // no SystemC banner from every worker
  compiler::ProgressDisplay progress("sweep " + spec.name, "jobs", todo.size(),
                                     {!opt.progress, false});
  size_t failures = 0;
  const Record record = [&](const std::vector<nlohmann::ordered_json>& rows) {
    db.write_job(rows);
    const std::string st = rows.front().at("status").get<std::string>();
    count_status(sum, st);
    failures += st == "failed" || st == "timeout" ? 1 : 0;
    progress.update(++sum.ran, failures);
  };
  // Models are imported per batch, just before its jobs, and freed after them: a sweep over
  // many large models holds a few at a time, not all of them.
  SweepSpec live = spec;
  for (const JobBatch& b : batch_jobs(spec, todo, pool_options(opt).workers)) {
    bool done = !(opt.interrupted && opt.interrupted());  // a Ctrl-C during the last import
    if (done) {
      load_models(live, space, todo, b);
      done = run_batch(live, space, todo, b, opt, record);
      unload_models(live);
    }
    if (!done) {
      sum.interrupted = true;
      break;
    }
  }
  progress.finish();
  sum.wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return sum;
}

}  // namespace vta::explore
