// Runs jobs in forked worker processes: the SystemC kernel of the cycle and rtl backends is one
// per process and not thread-safe, so parallel simulations need processes. Sweeps and
// `vtasim network -j N` (network_workers.h) both run on it.
//
// Workers are forked when first needed from a parent that never simulates, so they inherit what
// it computed before (the reference cache), and live for many jobs; after `recycle_after` jobs a
// worker exits and a fresh one takes the next job (bounding SystemC's memory growth). A job id
// goes to a worker and its result bytes come back, both as frames (pipe_frames.h). A job whose
// worker crashes, is killed (the OOM killer) or exceeds the per-job timeout is reported as such,
// naming the job; its worker is replaced and the other jobs go on. Results that arrived are
// reported even when the run is interrupted.
//
// Each worker: the parent's pipes to the other workers closed (each worker's end of file is its
// own), SIGPIPE back to its default, first in line for the OOM killer (the parent holds the
// database or the report), killed when the parent dies, and optionally its stdout discarded.
#pragma once

#include <cstddef>
#include <functional>
#include <string>

namespace vta::compiler {

struct ProcessPoolOptions {
  size_t workers = 1;           // processes at most (never more than there are jobs)
  size_t recycle_after = 0;     // jobs per worker process; 0 = no limit
  double timeout_seconds = 0;   // per job, from its dispatch; 0 = none
  bool in_order = false;        // outcomes reported in job order (otherwise as they arrive)
  bool discard_stdout = false;  // the workers' stdout to /dev/null (so it cannot mix with ours)
};

// What became of one job.
struct JobOutcome {
  enum class Status {
    kDone,      // the task returned: `bytes` is its result
    kFailed,    // the task threw: `bytes` is the exception's message, as is
    kCrashed,   // its worker died (a signal, an exit, an unreadable result): why, naming the job
    kTimedOut,  // over the timeout, its worker killed: the timeout, naming the job
  };
  Status status = Status::kDone;
  std::string bytes;
  double seconds = 0;  // from the job's dispatch to its outcome, in the parent's clock
};

class ProcessPool {
 public:
  // Runs in a worker: the result bytes of job `job`. An exception is the job's kFailed outcome.
  using Task = std::function<std::string(size_t job)>;
  // The job's name in messages ("layer 'conv1'"); "job N" when not given.
  using JobName = std::function<std::string(size_t job)>;
  // In the parent: a job's outcome. Returning false starts no further job (those running finish
  // and are reported).
  using OnOutcome = std::function<bool(size_t job, JobOutcome& outcome)>;
  // Polled in the parent about every 100 ms: true interrupts the run.
  using StopCheck = std::function<bool()>;

  ProcessPool(ProcessPoolOptions opt, Task task, JobName name = {});

  // Runs jobs 0 .. count-1 (each at most once, dispatched in that order) and returns true once
  // every job started is reported. Returns false when interrupted (`stop` returned true, or a
  // worker died of SIGINT: Ctrl-C on the terminal reaches the whole process group, not the job's
  // fault): the outcomes that had arrived are reported, the running jobs abandoned. Throws
  // vta::Error when no pipe or process can be made; what `on_outcome` throws passes through
  // (the workers are stopped either way).
  bool run(size_t count, const OnOutcome& on_outcome, const StopCheck& stop = {});

 private:
  ProcessPoolOptions m_opt;
  Task m_task;
  JobName m_name;
};

}  // namespace vta::compiler
