#include "vta/explore/worker_pool.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <deque>
#include <memory>

#include <fmt/format.h>

#include "vta/sim/error.h"

namespace vta::explore {

namespace {

using Clock = std::chrono::steady_clock;

struct Worker {
  pid_t pid = -1;
  int to_child = -1, from_child = -1;
  std::string buffer;  // partial result line
  long job = -1;       // job running, -1 when idle
  Clock::time_point started;
  size_t jobs_done = 0;  // recycled at recycle_after
};

bool write_all(int fd, const std::string& s) {
  size_t off = 0;
  while (off < s.size()) {
    const ssize_t n = ::write(fd, s.data() + off, s.size() - off);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      return false;
    }
    off += static_cast<size_t>(n);
  }
  return true;
}

// The kernel's OOM killer takes a worker before the parent, which holds the database. (No
// address-space limit: the simulated DRAM reserves 4 GiB of it up front.)
void prefer_worker_for_oom_kill() {
  if (FILE* f = std::fopen("/proc/self/oom_score_adj", "w")) {
    std::fputs("1000", f);
    std::fclose(f);
  }
}

// The worker's loop: job ids in, one result line out per job, until `limit` jobs or EOF.
[[noreturn]] void worker_main(int in, int out, size_t limit, const WorkerPool::Task& task) {
  // Simulator output on stdout would mix with the parent's; results use their own pipe.
  const int devnull = ::open("/dev/null", O_WRONLY);
  if (devnull >= 0) {
    ::dup2(devnull, STDOUT_FILENO);
  }
  std::string line;
  char c = 0;
  for (size_t done = 0; done < limit;) {
    const ssize_t n = ::read(in, &c, 1);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      break;
    }
    if (c != '\n') {
      line += c;
      continue;
    }
    const std::string result = task(std::stoul(line)) + "\n";
    line.clear();
    if (!write_all(out, result)) {
      break;
    }
    ++done;
  }
  std::fflush(nullptr);
  ::_exit(0);
}

std::string describe_exit(int status) {
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    return fmt::format("worker process killed by signal {} ({}){}", sig, strsignal(sig),
                       sig == SIGKILL ? ", perhaps by the out-of-memory killer" : "");
  }
  return fmt::format("worker process exited with status {} before reporting",
                     WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

class Pool {
 public:
  Pool(const WorkerPoolOptions& opt, const WorkerPool::Task& task) : m_opt(opt), m_task(task) {}
  ~Pool() {
    for (Worker& w : m_workers) {
      stop(w, SIGKILL);
    }
  }

  bool run(const std::vector<size_t>& ids, const WorkerPool::OnDone& done,
           const WorkerPool::OnLost& lost, const WorkerPool::StopCheck& stop) {
    std::deque<size_t> pending(ids.begin(), ids.end());
    size_t outstanding = ids.size();
    m_workers.resize(std::max<size_t>(1, std::min(m_opt.workers, ids.size())));
    while (outstanding > 0) {
      for (Worker& w : m_workers) {
        if (w.job < 0 && !pending.empty()) {
          if (w.pid < 0) {
            spawn(w);
          }
          w.job = static_cast<long>(pending.front());
          w.started = Clock::now();
          pending.pop_front();
          if (!write_all(w.to_child, fmt::format("{}\n", w.job))) {
            finish_lost(w, lost, "failed", "cannot send the job to its worker process");
            --outstanding;
          }
        }
      }
      outstanding -= wait_for_results(done, lost);
      if (m_interrupted || (stop && stop())) {
        return false;  // the destructor stops the workers
      }
    }
    return true;
  }

 private:
  void spawn(Worker& w) {
    int down[2], up[2];
    if (::pipe(down) != 0 || ::pipe(up) != 0) {
      throw Error(fmt::format("cannot create a pipe for a worker process: {}", strerror(errno)));
    }
    std::fflush(nullptr);
    const pid_t pid = ::fork();
    if (pid < 0) {
      throw Error(fmt::format("cannot start a worker process: {}", strerror(errno)));
    }
    if (pid == 0) {
      for (const Worker& other : m_workers) {  // so each worker's EOF is its own
        if (other.pid > 0) {
          ::close(other.to_child);
          ::close(other.from_child);
        }
      }
      ::close(down[1]);
      ::close(up[0]);
      ::signal(SIGPIPE, SIG_DFL);
      prefer_worker_for_oom_kill();
      worker_main(down[0], up[1], m_opt.recycle_after, m_task);
    }
    ::close(down[0]);
    ::close(up[1]);
    w = Worker{};
    w.pid = pid;
    w.to_child = down[1];
    w.from_child = up[0];
  }

  void stop(Worker& w, int sig) {
    if (w.pid <= 0) {
      return;
    }
    if (sig) {
      ::kill(w.pid, sig);
    }
    ::close(w.to_child);
    ::close(w.from_child);
    int status = 0;
    ::waitpid(w.pid, &status, 0);
    m_last_status = status;
    w = Worker{};
  }

  void finish_lost(Worker& w, const WorkerPool::OnLost& lost, const std::string& status,
                   const std::string& message) {
    const double s = std::chrono::duration<double>(Clock::now() - w.started).count();
    const size_t job = static_cast<size_t>(w.job);
    stop(w, SIGKILL);
    lost(job, status, message, s);
  }

  // Polls the workers for up to 100 ms; returns how many jobs were reported (done or lost).
  size_t wait_for_results(const WorkerPool::OnDone& done, const WorkerPool::OnLost& lost) {
    std::vector<pollfd> fds;
    std::vector<Worker*> owners;
    for (Worker& w : m_workers) {
      if (w.pid > 0) {
        fds.push_back(pollfd{w.from_child, POLLIN, 0});
        owners.push_back(&w);
      }
    }
    ::poll(fds.data(), fds.size(), 100);
    size_t reported = 0;
    for (size_t i = 0; i < fds.size(); ++i) {
      Worker& w = *owners[i];
      if (fds[i].revents & (POLLIN | POLLHUP | POLLERR)) {
        reported += read_worker(w, done, lost);
      }
      if (w.pid > 0 && w.job >= 0 && m_opt.timeout_seconds > 0 &&
          std::chrono::duration<double>(Clock::now() - w.started).count() > m_opt.timeout_seconds) {
        finish_lost(w, lost, "timeout",
                    fmt::format("exceeded the timeout of {} s per job", m_opt.timeout_seconds));
        ++reported;
      }
    }
    return reported;
  }

  size_t read_worker(Worker& w, const WorkerPool::OnDone& done, const WorkerPool::OnLost& lost) {
    char buf[65536];
    const ssize_t n = ::read(w.from_child, buf, sizeof buf);
    if (n > 0) {
      w.buffer.append(buf, static_cast<size_t>(n));
      const size_t nl = w.buffer.find('\n');
      if (nl == std::string::npos || w.job < 0) {
        return 0;
      }
      const std::string line = w.buffer.substr(0, nl);
      w.buffer.erase(0, nl + 1);
      const size_t job = static_cast<size_t>(w.job);
      w.job = -1;
      if (++w.jobs_done >= m_opt.recycle_after) {
        stop(w, 0);  // it exits after this job: reap it, a fresh one takes the next job
      }
      done(job, line);
      return 1;
    }
    if (n < 0 && errno == EINTR) {
      return 0;
    }
    // EOF: the worker exited (recycled when idle) or died while running a job.
    if (w.job < 0) {
      stop(w, 0);
      return 0;
    }
    const double s = std::chrono::duration<double>(Clock::now() - w.started).count();
    const size_t job = static_cast<size_t>(w.job);
    stop(w, 0);
    if (WIFSIGNALED(m_last_status) && WTERMSIG(m_last_status) == SIGINT) {
      m_interrupted = true;  // Ctrl-C reached the whole process group: not the job's fault
      return 0;
    }
    lost(job, "failed", describe_exit(m_last_status), s);
    return 1;
  }

  const WorkerPoolOptions& m_opt;
  const WorkerPool::Task& m_task;
  std::vector<Worker> m_workers;
  int m_last_status = 0;
  bool m_interrupted = false;
};

}  // namespace

bool WorkerPool::run(const std::vector<size_t>& ids, const OnDone& done, const OnLost& lost,
                     const StopCheck& stop) {
  if (ids.empty()) {
    return true;
  }
  ::signal(SIGPIPE, SIG_IGN);  // a dead worker's pipe is an error to report, not a signal
  Pool pool(m_opt, m_task);
  return pool.run(ids, done, lost, stop);
}

}  // namespace vta::explore
