#include "py_sweep.h"

#include <fmt/format.h>

#include "py_common.h"
#include "vta/explore/results_db.h"
#include "vta/explore/sweep_runner.h"
#include "vta/explore/sweep_spec.h"
#include "vta/sim/error.h"

namespace vta::py {

namespace {

pyb::dict run_sweep_spec(const std::string& spec_path, const std::string& db, size_t jobs,
                         const std::string& shard, bool retry_failed, double timeout,
                         bool progress) {
  const explore::SweepSpec spec = explore::SweepSpec::from_file(spec_path);
  explore::SweepOptions opt;
  opt.db_path = db;
  opt.workers = jobs;
  explore::parse_shard(shard, opt.shard_index, opt.shard_count);
  opt.retry_failed = retry_failed;
  opt.timeout_seconds = timeout;
  opt.progress = progress;
  // Ctrl-C: Python notes the signal; the sweep stops between jobs, keeping what is committed.
  opt.interrupted = [] {
    pyb::gil_scoped_acquire gil;
    if (PyErr_CheckSignals() != 0) {
      PyErr_Clear();
      return true;
    }
    return false;
  };
  explore::SweepSummary sum;
  {
    pyb::gil_scoped_release nogil;  // workers are processes; the parent only waits and writes
    sum = explore::run_sweep(spec, opt);
  }
  if (sum.interrupted) {
    PyErr_SetNone(PyExc_KeyboardInterrupt);
    throw pyb::error_already_set();
  }
  pyb::dict d;
  d["points"] = sum.points;
  d["jobs"] = sum.jobs;
  d["ran"] = sum.ran;
  d["skipped"] = sum.skipped;
  d["ok"] = sum.ok;
  d["invalid"] = sum.invalid;
  d["failed"] = sum.failed;
  d["timeout"] = sum.timeout;
  d["wall_seconds"] = sum.wall_seconds;
  d["summary"] = sum.line(spec, opt);
  return d;
}

pyb::list results_rows(const std::string& db) {
  const explore::ResultsDb results(db, explore::ResultsDb::Mode::kReadOnly);
  pyb::list out;
  for (const auto& row : results.rows()) {
    out.append(to_python(row));
  }
  return out;
}

}  // namespace

void bind_sweep(pyb::module_& m) {
  using pyb::arg;
  m.def("sweep", &run_sweep_spec, R"doc(
Run a sweep spec (configs/sweeps/README.md) into the SQLite database `db`, as `vtasim sweep`
does: worker processes (jobs=0: one per core), resume (finished jobs are skipped),
retry_failed, shard="I/N", timeout (seconds per design point x workload, 0 = none). Returns the
counts {"points", "jobs", "ran", "skipped", "ok", "invalid", "failed", "timeout",
"wall_seconds", "summary"}. A bad spec raises vtasim.Error naming it; Ctrl-C raises
KeyboardInterrupt after stopping the workers, and every finished job stays in the database.)doc",
        arg("spec"), arg("db"), pyb::kw_only(), arg("jobs") = 0, arg("shard") = "1/1",
        arg("retry_failed") = false, arg("timeout") = 0.0, arg("progress") = false);
  m.def("sweep_results", &results_rows, R"doc(
The rows of a sweep's results database as a list of dicts (column -> value), in sweep order:
per design point and workload a summary row (row_kind "summary") and one row per layer.)doc",
        arg("db"));
}

}  // namespace vta::py
