#include "vta/compiler/run/process_pool.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <map>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "vta/compiler/run/pipe_frames.h"
#include "vta/sim/error.h"

namespace vta::compiler {

namespace {

using Clock = std::chrono::steady_clock;
using Status = JobOutcome::Status;

enum FrameKind : uint8_t { kJobFrame, kResultFrame, kErrorFrame };

constexpr int kPollMilliseconds = 100;  // how often timeouts and the stop check are looked at

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// The worker's process, before its first job (see the header).
void prepare_worker_process(pid_t parent, bool discard_stdout) {
  ::signal(SIGPIPE, SIG_DFL);  // the parent gone: the next result written ends the worker
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) {
    ::_exit(1);  // the parent died before the line above
  }
  // The kernel's OOM killer takes a worker before the parent. (No address-space limit: the
  // simulated DRAM reserves 4 GiB of it up front.)
  if (FILE* f = std::fopen("/proc/self/oom_score_adj", "w")) {
    std::fputs("1000", f);
    std::fclose(f);
  }
  if (discard_stdout) {
    const int devnull = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (devnull >= 0) {
      ::dup2(devnull, STDOUT_FILENO);
      ::close(devnull);
    }
  }
}

PipeFrame run_task(const ProcessPool::Task& task, const PipeFrame& job) {
  uint64_t id = 0;
  std::memcpy(&id, job.bytes.data(), std::min(job.bytes.size(), sizeof id));
  try {
    return PipeFrame{kResultFrame, task(size_t(id))};
  } catch (const std::exception& ex) {
    return PipeFrame{kErrorFrame, ex.what()};
  } catch (...) {
    return PipeFrame{kErrorFrame, "an exception that is not a std::exception"};
  }
}

// The worker's loop: a job in, its result out, until `recycle_after` jobs or the job pipe closes.
[[noreturn]] void worker_main(int jobs_fd, int results_fd, size_t recycle_after,
                              const ProcessPool::Task& task) {
  try {
    PipeFrame job;
    for (size_t done = 0; (recycle_after == 0 || done < recycle_after) &&
                          read_frame(jobs_fd, job) && write_frame(results_fd, run_task(task, job));
         ++done) {
    }
  } catch (...) {  // nothing may unwind into the parent's code this process was forked from
  }
  std::fflush(nullptr);
  ::_exit(0);  // no exit handlers or static destructors: they belong to the parent
}

std::string describe_exit(int status) {
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    return fmt::format("worker process killed by signal {} ({}){}", sig, strsignal(sig),
                       sig == SIGKILL ? ", perhaps by the out-of-memory killer," : "");
  }
  return fmt::format("worker process exited with status {} before reporting",
                     WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

struct Worker {
  pid_t pid = -1;
  int jobs_fd = -1, results_fd = -1;
  FrameReader frames;
  std::optional<size_t> job;  // the job it runs
  Clock::time_point started;  // when that job was sent
  size_t jobs_done = 0;       // it exits at recycle_after
};

// A worker that died leaves a closed pipe: writing to it is an outcome, not a signal.
class SigpipeIgnored {
 public:
  SigpipeIgnored() : m_previous(std::signal(SIGPIPE, SIG_IGN)) {}
  ~SigpipeIgnored() { std::signal(SIGPIPE, m_previous); }
  SigpipeIgnored(const SigpipeIgnored&) = delete;
  SigpipeIgnored& operator=(const SigpipeIgnored&) = delete;

 private:
  void (*m_previous)(int);
};

// One ProcessPool::run: its workers, the jobs sent and the outcomes reported.
class PoolRun {
 public:
  PoolRun(const ProcessPoolOptions& opt, const ProcessPool::Task& task,
          const ProcessPool::JobName& name, size_t count, const ProcessPool::OnOutcome& on_outcome)
      : m_opt(opt),
        m_task(task),
        m_name(name),
        m_count(count),
        m_on_outcome(on_outcome),
        m_workers(std::max<size_t>(1, std::min(opt.workers, count))) {}
  ~PoolRun() {
    for (Worker& w : m_workers) {
      reap(w, w.job ? SIGKILL : 0);  // an idle worker ends at the end of its job pipe
    }
  }
  PoolRun(const PoolRun&) = delete;
  PoolRun& operator=(const PoolRun&) = delete;

  bool run(const ProcessPool::StopCheck& stop) {
    while (more_to_send() || busy()) {
      send_jobs();
      wait_for_frames(kPollMilliseconds);
      if (m_interrupted || (stop && stop())) {
        wait_for_frames(0);  // what has arrived is reported
        report_arrived_with_gaps();
        return false;
      }
    }
    return true;
  }

 private:
  bool more_to_send() const { return m_sending && m_next_job < m_count; }
  bool busy() const {
    for (const Worker& w : m_workers) {
      if (w.job) {
        return true;
      }
    }
    return false;
  }
  std::string name(size_t job) const { return m_name ? m_name(job) : fmt::format("job {}", job); }

  void send_jobs() {
    for (Worker& w : m_workers) {
      if (w.job || !more_to_send()) {
        continue;
      }
      if (w.pid < 0) {
        spawn(w);
      }
      const uint64_t id = m_next_job++;
      w.job = size_t(id);
      w.started = Clock::now();
      if (!write_frame(
              w.jobs_fd,
              PipeFrame{kJobFrame, std::string(reinterpret_cast<const char*>(&id), sizeof id)})) {
        worker_ended(w);  // it died while idle: the job it could not take is named
      }
    }
  }

  void spawn(Worker& w) {
    int down[2], up[2];
    if (::pipe2(down, O_CLOEXEC) != 0 || ::pipe2(up, O_CLOEXEC) != 0) {
      throw Error(fmt::format("cannot create a pipe for a worker process: {}", strerror(errno)));
    }
    std::cout.flush();  // what is buffered is printed once, by the parent
    std::cerr.flush();
    std::fflush(nullptr);
    const pid_t parent = ::getpid();
    const pid_t pid = ::fork();
    if (pid < 0) {
      const std::string why = strerror(errno);
      ::close(down[0]), ::close(down[1]), ::close(up[0]), ::close(up[1]);
      throw Error("cannot start a worker process: " + why);
    }
    if (pid == 0) {
      for (const Worker& other : m_workers) {  // so each worker's end of file is its own
        if (other.pid > 0) {
          ::close(other.jobs_fd), ::close(other.results_fd);
        }
      }
      ::close(down[1]), ::close(up[0]);
      prepare_worker_process(parent, m_opt.discard_stdout);
      worker_main(down[0], up[1], m_opt.recycle_after, m_task);
    }
    ::close(down[0]), ::close(up[1]);
    w = Worker{};
    w.pid = pid;
    w.jobs_fd = down[1];
    w.results_fd = up[0];
  }

  // Waits up to `timeout_ms` for results, reads them and stops the workers over the timeout.
  void wait_for_frames(int timeout_ms) {
    std::vector<pollfd> fds;
    std::vector<Worker*> owners;
    for (Worker& w : m_workers) {
      if (w.pid > 0) {
        fds.push_back(pollfd{w.results_fd, POLLIN, 0});
        owners.push_back(&w);
      }
    }
    if (::poll(fds.data(), fds.size(), timeout_ms) < 0 && errno != EINTR) {
      throw Error(fmt::format("waiting for the worker processes: {}", strerror(errno)));
    }
    for (size_t i = 0; i < fds.size(); ++i) {
      if (fds[i].revents != 0) {
        read_from(*owners[i]);
      }
      check_timeout(*owners[i]);
    }
  }

  void read_from(Worker& w) {
    char buf[65536];
    const ssize_t n = ::read(w.results_fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) {
      return;
    }
    if (n <= 0) {
      worker_ended(w);
      return;
    }
    w.frames.append(buf, size_t(n));
    try {
      while (w.job) {
        std::optional<PipeFrame> frame = w.frames.next();
        if (!frame) {
          break;
        }
        take_result(w, std::move(*frame));
      }
    } catch (const Error& ex) {
      lose(w, Status::kCrashed,
           fmt::format("unreadable result from the worker process of {}: {}", name(*w.job),
                       ex.what()));
    }
  }

  void take_result(Worker& w, PipeFrame&& frame) {
    const size_t job = *w.job;
    w.job.reset();
    JobOutcome outcome{frame.kind == kResultFrame ? Status::kDone : Status::kFailed,
                       std::move(frame.bytes), seconds_since(w.started)};
    if (m_opt.recycle_after > 0 && ++w.jobs_done >= m_opt.recycle_after) {
      reap(w, 0);  // it exits after this job; a fresh one takes the next
    }
    report(job, std::move(outcome));
  }

  // End of file from a worker: it exited (idle: recycled or done) or died running a job.
  void worker_ended(Worker& w) {
    const std::optional<size_t> job = w.job;
    const double seconds = seconds_since(w.started);
    const int status = reap(w, 0);
    if (!job) {
      return;
    }
    if (WIFSIGNALED(status) && WTERMSIG(status) == SIGINT) {
      m_interrupted = true;  // Ctrl-C reached the whole process group: not the job's fault
      return;
    }
    report(*job, JobOutcome{Status::kCrashed,
                            fmt::format("{} while running {}", describe_exit(status), name(*job)),
                            seconds});
  }

  void check_timeout(Worker& w) {
    if (w.job && m_opt.timeout_seconds > 0 && seconds_since(w.started) > m_opt.timeout_seconds) {
      lose(w, Status::kTimedOut,
           fmt::format("exceeded the timeout of {} s per job: {} was stopped, its worker process "
                       "killed",
                       m_opt.timeout_seconds, name(*w.job)));
    }
  }

  // Stops a worker in the middle of its job and reports the job with `why`.
  void lose(Worker& w, Status status, const std::string& why) {
    const size_t job = *w.job;
    const double seconds = seconds_since(w.started);
    reap(w, SIGKILL);
    report(job, JobOutcome{status, why, seconds});
  }

  // Ends a worker (sending `sig`, if any), closes its pipes and returns its wait status.
  static int reap(Worker& w, int sig) {
    if (w.pid <= 0) {
      return 0;
    }
    if (sig != 0) {
      ::kill(w.pid, sig);
    }
    ::close(w.jobs_fd), ::close(w.results_fd);
    int status = 0;
    while (::waitpid(w.pid, &status, 0) < 0 && errno == EINTR) {
    }
    w = Worker{};
    return status;
  }

  void report(size_t job, JobOutcome&& outcome) {
    if (!m_opt.in_order) {
      deliver(job, outcome);
      return;
    }
    m_arrived.emplace(job, std::move(outcome));
    for (auto it = m_arrived.begin(); it != m_arrived.end() && it->first == m_next_report;
         it = m_arrived.erase(it), ++m_next_report) {
      deliver(it->first, it->second);
    }
  }

  // Interrupted in order: the outcomes that arrived, in job order, past the abandoned jobs.
  void report_arrived_with_gaps() {
    for (auto it = m_arrived.begin(); it != m_arrived.end(); it = m_arrived.erase(it)) {
      deliver(it->first, it->second);
    }
  }

  void deliver(size_t job, JobOutcome& outcome) {
    if (!m_on_outcome(job, outcome)) {
      m_sending = false;
    }
  }

  const ProcessPoolOptions& m_opt;
  const ProcessPool::Task& m_task;
  const ProcessPool::JobName& m_name;
  const size_t m_count;
  const ProcessPool::OnOutcome& m_on_outcome;
  std::vector<Worker> m_workers;
  size_t m_next_job = 0, m_next_report = 0;
  std::map<size_t, JobOutcome> m_arrived;  // in order: outcomes waiting for an earlier job's
  bool m_sending = true, m_interrupted = false;
};

}  // namespace

ProcessPool::ProcessPool(ProcessPoolOptions opt, Task task, JobName name)
    : m_opt(opt), m_task(std::move(task)), m_name(std::move(name)) {}

bool ProcessPool::run(size_t count, const OnOutcome& on_outcome, const StopCheck& stop) {
  if (count == 0) {
    return true;
  }
  const SigpipeIgnored sigpipe;
  PoolRun pool(m_opt, m_task, m_name, count, on_outcome);
  return pool.run(stop);
}

}  // namespace vta::compiler
