#include "vta/compiler/run/network_workers.h"

#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <optional>

#include <fmt/format.h>

#include "vta/compiler/reports/layer_run_codec.h"

namespace vta::compiler {

namespace {

// Whole-buffer pipe I/O with `op` (::read or ::write), retried on EINTR and short transfers;
// false at end of file or on an error.
template <typename Byte, typename Op>
bool transfer_all(int fd, Byte* p, size_t n, Op op) {
  while (n > 0) {
    const ssize_t k = op(fd, p, n);
    if (k < 0 && errno == EINTR) {
      continue;
    }
    if (k <= 0) {
      return false;
    }
    p += k, n -= size_t(k);
  }
  return true;
}

bool write_all(int fd, const void* data, size_t n) {
  return transfer_all(fd, static_cast<const char*>(data), n, ::write);
}

bool read_all(int fd, void* data, size_t n) {
  return transfer_all(fd, static_cast<char*>(data), n, ::read);
}

// A message between parent and worker: a status byte (0 result, 1 error) and a payload.
bool send_message(int fd, uint8_t status, const std::vector<uint8_t>& payload) {
  const uint64_t size = payload.size();
  return write_all(fd, &status, 1) && write_all(fd, &size, sizeof size) &&
         write_all(fd, payload.data(), payload.size());
}

bool receive_message(int fd, uint8_t& status, std::vector<uint8_t>& payload) {
  uint64_t size = 0;
  if (!read_all(fd, &status, 1) || !read_all(fd, &size, sizeof size)) {
    return false;
  }
  payload.resize(size);
  return read_all(fd, payload.data(), payload.size());
}

// The worker's loop: a job index in, its LayerRun (or error text) out, until the job pipe closes.
[[noreturn]] void worker_main(int jobs_fd, int results_fd, const Target& target, const Network& net,
                              const NetworkJobs& jobs, const NetworkOptions& opt) {
  NetworkOptions quiet = opt;
  quiet.on_layer = nullptr;
  uint64_t index = 0;
  while (read_all(jobs_fd, &index, sizeof index)) {
    bool sent = false;
    try {
      sent = send_message(results_fd, 0,
                          encode_layer_run(run_layer_job(target, net, jobs.jobs.at(index), quiet)));
    } catch (const std::exception& ex) {
      const std::string what = ex.what();
      sent = send_message(results_fd, 1, std::vector<uint8_t>(what.begin(), what.end()));
    }
    if (!sent) {
      break;
    }
  }
  ::_exit(0);  // no exit handlers or static destructors: they belong to the parent
}

struct Worker {
  pid_t pid = -1;
  int jobs_fd = -1, results_fd = -1;
  std::optional<size_t> job;  // the job it runs
};

Worker fork_worker(const Target& target, const Network& net, const NetworkJobs& jobs,
                   const NetworkOptions& opt, const std::vector<Worker>& siblings) {
  int to_worker[2], from_worker[2];
  if (::pipe(to_worker) != 0 || ::pipe(from_worker) != 0) {
    throw Error(
        fmt::format("network {}: cannot create worker pipes: {}", net.name, std::strerror(errno)));
  }
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) {
    throw Error(fmt::format("network {}: cannot start a worker process: {}", net.name,
                            std::strerror(errno)));
  }
  if (pid == 0) {
    for (const Worker& w : siblings) {  // only the parent may hold the others' pipes
      ::close(w.jobs_fd), ::close(w.results_fd);
    }
    ::close(to_worker[1]), ::close(from_worker[0]);
    worker_main(to_worker[0], from_worker[1], target, net, jobs, opt);
  }
  ::close(to_worker[0]), ::close(from_worker[1]);
  return Worker{pid, to_worker[1], from_worker[0], std::nullopt};
}

// Why a worker's result pipe closed early: its exit status.
std::string worker_death(pid_t pid) {
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (WIFSIGNALED(status)) {
    return fmt::format("worker process {} died of signal {} ({})", pid, WTERMSIG(status),
                       strsignal(WTERMSIG(status)));
  }
  return fmt::format("worker process {} exited with status {} without a result", pid,
                     WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

// Collects the workers' results in layer order; dispatches jobs until the first failure.
class LayerDispatcher {
 public:
  LayerDispatcher(const Network& net, const NetworkJobs& jobs, const NetworkOptions& opt)
      : m_net(net), m_jobs(jobs), m_opt(opt), m_results(jobs.jobs.size()) {}

  void run(std::vector<Worker>& workers) {
    for (Worker& w : workers) {
      dispatch(w);
    }
    while (busy(workers)) {
      std::vector<pollfd> fds;
      fds.reserve(workers.size());
      for (const Worker& w : workers) {
        fds.push_back(pollfd{w.job ? w.results_fd : -1, POLLIN, 0});
      }
      if (::poll(fds.data(), fds.size(), -1) < 0 && errno != EINTR) {
        throw Error(fmt::format("network {}: poll: {}", m_net.name, std::strerror(errno)));
      }
      for (size_t i = 0; i < workers.size(); ++i) {
        if (fds[i].revents && workers[i].job) {
          collect(workers[i]);
          dispatch(workers[i]);
        }
      }
    }
  }

  // The layers done before the first failure, in order; the failure, if any.
  std::vector<LayerRun> take_runs() {
    std::vector<LayerRun> runs;
    for (auto& r : m_results) {
      if (!r) {
        break;
      }
      runs.push_back(std::move(*r));
    }
    return runs;
  }
  const std::optional<std::pair<size_t, std::string>>& failure() const { return m_failure; }

 private:
  static bool busy(const std::vector<Worker>& workers) {
    for (const Worker& w : workers) {
      if (w.job) {
        return true;
      }
    }
    return false;
  }

  void dispatch(Worker& w) {
    if (m_next >= m_results.size() || m_failure) {
      return;
    }
    const uint64_t index = m_next++;
    if (!write_all(w.jobs_fd, &index, sizeof index)) {
      fail(index, worker_death(w.pid));
      return;
    }
    w.job = index;
  }

  void collect(Worker& w) {
    const size_t index = *w.job;
    w.job.reset();
    uint8_t status = 0;
    std::vector<uint8_t> payload;
    if (!receive_message(w.results_fd, status, payload)) {
      fail(index, worker_death(w.pid));
    } else if (status != 0) {
      fail(index, std::string(payload.begin(), payload.end()));
    } else {
      m_results[index] = decode_layer_run(payload);
      report_in_order();
    }
  }

  void fail(size_t index, const std::string& error) {
    if (!m_failure || index < m_failure->first) {
      m_failure = std::make_pair(index, error);
    }
  }

  void report_in_order() {
    while (m_reported < m_results.size() && m_results[m_reported]) {
      if (m_opt.on_layer) {
        m_opt.on_layer(*m_results[m_reported]);
      }
      ++m_reported;
    }
  }

  const Network& m_net;
  const NetworkJobs& m_jobs;
  const NetworkOptions& m_opt;
  std::vector<std::optional<LayerRun>> m_results;
  size_t m_next = 0, m_reported = 0;
  std::optional<std::pair<size_t, std::string>> m_failure;
};

}  // namespace

NetworkRun run_network_parallel(const Target& target, const Network& net, const NetworkOptions& opt,
                                int workers) {
  const NetworkJobs jobs = reference_layer_jobs(net);
  std::vector<Worker> pool;
  const size_t n = std::min(size_t(std::max(workers, 1)), std::max<size_t>(jobs.jobs.size(), 1));
  for (size_t i = 0; i < n; ++i) {
    pool.push_back(fork_worker(target, net, jobs, opt, pool));
  }
  LayerDispatcher dispatcher(net, jobs, opt);
  std::optional<Error> pool_error;
  // A worker that died closes its pipes: writing to them must be an error, not SIGPIPE.
  void (*previous_sigpipe)(int) = std::signal(SIGPIPE, SIG_IGN);
  try {
    dispatcher.run(pool);
  } catch (const Error& ex) {
    pool_error = ex;
  }
  std::signal(SIGPIPE, previous_sigpipe);
  for (Worker& w : pool) {  // closing the job pipe ends the worker
    ::close(w.jobs_fd);
    ::close(w.results_fd);
    ::waitpid(w.pid, nullptr, 0);
  }
  if (pool_error) {
    throw *pool_error;
  }
  NetworkRun result;
  result.runs = dispatcher.take_runs();
  result.host_ops = jobs.host_ops;
  std::optional<std::pair<size_t, std::string>> failure = dispatcher.failure();
  if (!failure && jobs.failure) {
    failure = std::make_pair(jobs.jobs.size(), jobs.failure->error);
  }
  if (failure) {
    const size_t layer =
        failure->first < jobs.jobs.size() ? jobs.jobs[failure->first].layer : jobs.failure->layer;
    throw NetworkLayerError(net.layers[layer].name, failure->second, std::move(result.runs));
  }
  if (!result.runs.empty()) {
    result.output = result.runs.back().out;
  }
  return result;
}

}  // namespace vta::compiler
