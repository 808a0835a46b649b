// Runs jobs in worker processes: a SystemC kernel is process-wide and not thread-safe, so
// parallel simulations need processes. Workers are forked from a parent that never simulates,
// live for many jobs (so per-process caches such as the reference results pay off) and are
// replaced after `recycle_after` jobs (bounding SystemC's per-backend memory growth). A worker
// that crashes, is killed (e.g. by the OOM killer) or exceeds the per-job timeout is replaced;
// its job is reported lost with status "failed" or "timeout" and the others go on. Workers ask
// the kernel's OOM killer to pick them before the parent.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace vta::explore {

struct WorkerPoolOptions {
  size_t workers = 1;
  size_t recycle_after = 64;   // jobs per worker process
  double timeout_seconds = 0;  // per job; 0 = none
};

class WorkerPool {
 public:
  // Runs in the worker: the result of job `id` as one line of text (no '\n').
  using Task = std::function<std::string(size_t id)>;
  // In the parent: a job's result line.
  using OnDone = std::function<void(size_t id, const std::string& result)>;
  // In the parent: a job whose worker died ("failed") or timed out ("timeout"), with why and
  // how long it ran.
  using OnLost = std::function<void(size_t id, const std::string& status,
                                    const std::string& message, double seconds)>;

  WorkerPool(WorkerPoolOptions opt, Task task) : m_opt(opt), m_task(std::move(task)) {}
  // Polled about every 100 ms in the parent: true stops the run.
  using StopCheck = std::function<bool()>;

  // Runs every job of `ids` (each once) and returns when all are reported: true. Returns false
  // when interrupted (`stop` returned true, or a worker died of SIGINT, i.e. Ctrl-C on the
  // terminal): the running jobs are then abandoned, neither done nor lost.
  bool run(const std::vector<size_t>& ids, const OnDone& done, const OnLost& lost,
           const StopCheck& stop = {});

 private:
  WorkerPoolOptions m_opt;
  Task m_task;
};

}  // namespace vta::explore
