// The process pool of sweeps and `vtasim network -j N` with real fork()ed workers: results,
// a worker that crashes, one that hangs past the timeout, recycling, results that arrive out
// of order (and in order when asked), many small jobs, a task that throws, Ctrl-C in a worker,
// a stop check and a caller that stops the dispatch.
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <catch2/catch.hpp>

#include "vta/compiler/run/process_pool.h"
#include "vta/sim/error.h"

using namespace vta::compiler;
using Status = JobOutcome::Status;

namespace {

// The old names of what became of a lost job (the sweep's statuses).
std::string status_word(Status s) {
  return s == Status::kTimedOut ? "timeout" : "failed";
}

void sleep_ms(int ms) {
  std::this_thread::sleep_for(std::chrono::milliseconds(ms));
}

[[noreturn]] void crash() {
  std::signal(SIGABRT, SIG_DFL);  // not Catch's handler
  std::abort();
}

// Runs `count` jobs and returns (job, outcome) in the order they were reported.
std::vector<std::pair<size_t, JobOutcome>> run_all(ProcessPool& pool, size_t count) {
  std::vector<std::pair<size_t, JobOutcome>> got;
  const bool finished = pool.run(count, [&](size_t job, JobOutcome& o) {
    got.emplace_back(job, o);
    return true;
  });
  REQUIRE(finished);
  return got;
}

}  // namespace

TEST_CASE("worker pool: results, crashes, timeouts, recycling", "[explore][workers]") {
  ProcessPoolOptions opt;
  opt.workers = 2;
  opt.recycle_after = 2;
  opt.timeout_seconds = 1.0;
  // Job 3 crashes its worker (abort), job 5 hangs; every other job reports its worker's pid.
  ProcessPool pool(opt, [](size_t id) {
    if (id == 3) {
      crash();
    }
    if (id == 5) {
      sleep_ms(30'000);
    }
    return fmt::format("{} {}", id, ::getpid());
  });
  std::map<size_t, std::string> done, lost;
  std::set<std::string> pids;
  for (auto& [id, o] : run_all(pool, 9)) {
    if (o.status != Status::kDone) {
      lost[id] = status_word(o.status) + ": " + o.bytes;
      continue;
    }
    std::istringstream in(o.bytes);
    size_t echoed = 0;
    std::string pid;
    in >> echoed >> pid;
    CHECK(echoed == id);
    CHECK(pid != std::to_string(::getpid()));  // ran in a worker process
    pids.insert(pid);
    done[id] = o.bytes;
  }
  CHECK(done.size() == 7);
  REQUIRE(lost.size() == 2);
  CHECK_THAT(lost[3], Catch::StartsWith("failed: worker process killed by signal 6"));
  CHECK_THAT(lost[5], Catch::StartsWith("timeout: exceeded the timeout of 1 s"));
  CHECK(pids.size() >= 4);  // 7 jobs, at most 2 per worker process
}

TEST_CASE("a crashed or timed-out job is named, its seconds counted, the others go on",
          "[workers]") {
  ProcessPoolOptions opt;
  opt.workers = 2;
  opt.timeout_seconds = 0.5;
  ProcessPool pool(
      opt,
      [](size_t id) -> std::string {
        if (id == 1) {
          crash();
        }
        if (id == 2) {
          sleep_ms(30'000);
        }
        if (id == 3) {
          std::_Exit(7);
        }
        return std::to_string(id * id);
      },
      [](size_t id) { return fmt::format("layer 'L{}'", id); });
  const auto start = std::chrono::steady_clock::now();
  std::map<size_t, JobOutcome> by_job;
  for (auto& [id, o] : run_all(pool, 6)) {
    CHECK(by_job.count(id) == 0);  // each job reported once
    by_job[id] = o;
  }
  REQUIRE(by_job.size() == 6);
  for (size_t id : {0, 4, 5}) {
    CHECK(by_job[id].status == Status::kDone);
    CHECK(by_job[id].bytes == std::to_string(id * id));
  }
  CHECK(by_job[1].status == Status::kCrashed);
  CHECK(by_job[1].bytes == "worker process killed by signal 6 (Aborted) while running layer 'L1'");
  CHECK(by_job[2].status == Status::kTimedOut);
  CHECK_THAT(by_job[2].bytes, Catch::Contains("exceeded the timeout of 0.5 s per job: layer 'L2'"));
  CHECK(by_job[2].seconds >= 0.5);
  CHECK(by_job[2].seconds < 5);  // stopped, not waited for
  CHECK(by_job[3].status == Status::kCrashed);
  CHECK(by_job[3].bytes ==
        "worker process exited with status 7 before reporting while running layer 'L3'");
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(10));
}

TEST_CASE("a task that throws is its job's failure, with the exception's message as is",
          "[workers]") {
  ProcessPool pool(ProcessPoolOptions{}, [](size_t id) -> std::string {
    if (id == 1) {
      throw vta::Error("layer 'b2.down': tile_h 20 does not fit");
    }
    return "ok";
  });
  const auto got = run_all(pool, 3);
  REQUIRE(got.size() == 3);  // one worker: the order of the jobs
  CHECK(got[0].second.status == Status::kDone);
  CHECK(got[1].second.status == Status::kFailed);
  CHECK(got[1].second.bytes == "layer 'b2.down': tile_h 20 does not fit");
  CHECK(got[2].second.status == Status::kDone);  // the same worker goes on
}

TEST_CASE("results arrive out of order, or in job order when asked", "[workers]") {
  // Job 0 is slow, the others fast: with 2 workers, 1..5 finish before 0.
  const auto task = [](size_t id) {
    sleep_ms(id == 0 ? 800 : 10);
    return std::to_string(id);
  };
  for (bool in_order : {false, true}) {
    INFO("in_order " << in_order);
    ProcessPoolOptions opt;
    opt.workers = 2;
    opt.in_order = in_order;
    ProcessPool pool(opt, task);
    std::vector<size_t> order;
    for (auto& [id, o] : run_all(pool, 6)) {
      REQUIRE(o.status == Status::kDone);
      CHECK(o.bytes == std::to_string(id));
      order.push_back(id);
    }
    REQUIRE(order.size() == 6);
    if (in_order) {
      CHECK(order == std::vector<size_t>{0, 1, 2, 3, 4, 5});
    } else {
      CHECK(order.back() == 0);
      CHECK(std::set<size_t>(order.begin(), order.end()).size() == 6);
    }
  }
}

TEST_CASE("many small jobs: each once, every result intact, workers recycled", "[workers]") {
  constexpr size_t kJobs = 3000;
  ProcessPoolOptions opt;
  opt.workers = 3;
  opt.recycle_after = 100;
  ProcessPool pool(opt, [](size_t id) {
    // A result of id-dependent length (0 .. 299 bytes, zero bytes included) and the pid.
    return fmt::format("{}|{}|", id, ::getpid()) + std::string(id % 300, char(id % 7));
  });
  std::vector<int> seen(kJobs, 0);
  std::set<std::string> pids;
  const auto start = std::chrono::steady_clock::now();
  for (auto& [id, o] : run_all(pool, kJobs)) {
    REQUIRE(o.status == Status::kDone);
    ++seen.at(id);
    const size_t bar = o.bytes.find('|', o.bytes.find('|') + 1);
    CHECK(o.bytes.substr(0, o.bytes.find('|')) == std::to_string(id));
    pids.insert(o.bytes.substr(0, bar));
    CHECK(o.bytes.substr(bar + 1) == std::string(id % 300, char(id % 7)));
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  INFO(kJobs << " jobs in " << seconds << " s");
  CHECK(std::count(seen.begin(), seen.end(), 1) == long(kJobs));
  CHECK(pids.size() >= kJobs / 100);  // at most 100 jobs per worker process
  CHECK(seconds < 60);
}

TEST_CASE("a result larger than a pipe's buffer arrives whole", "[workers]") {
  ProcessPool pool(ProcessPoolOptions{}, [](size_t id) {
    std::string big(5u << 20, '\0');
    for (size_t i = 0; i < big.size(); ++i) {
      big[i] = char((i * 31 + id) & 0xff);
    }
    return big;
  });
  const auto got = run_all(pool, 2);
  REQUIRE(got.size() == 2);
  for (const auto& [id, o] : got) {
    REQUIRE(o.bytes.size() == 5u << 20);
    bool same = true;
    for (size_t i = 0; i < o.bytes.size(); ++i) {
      same = same && o.bytes[i] == char((i * 31 + id) & 0xff);
    }
    CHECK(same);
  }
}

TEST_CASE("Ctrl-C in a worker interrupts the run, results that arrived are kept", "[workers]") {
  ProcessPoolOptions opt;
  opt.workers = 2;
  ProcessPool pool(opt, [](size_t id) {
    if (id == 2) {
      std::signal(SIGINT, SIG_DFL);
      std::raise(SIGINT);  // as Ctrl-C on the terminal would
    }
    sleep_ms(id == 3 ? 30'000 : 0);
    return std::to_string(id);
  });
  std::map<size_t, JobOutcome> got;
  const bool finished = pool.run(10, [&](size_t id, JobOutcome& o) {
    got[id] = o;
    return true;
  });
  CHECK_FALSE(finished);
  CHECK(got.count(2) == 0);  // not the job's fault: neither done nor lost
  CHECK(got.count(3) == 0);  // abandoned
  // Job 2 starts on a worker whose earlier job (0 or 1) was reported first; the other one may
  // still be running when the pool stops, on a loaded machine.
  CHECK(got.count(0) + got.count(1) >= 1);
  for (const auto& [id, o] : got) {
    CHECK(o.status == Status::kDone);
    CHECK(o.bytes == std::to_string(id));
  }
}

TEST_CASE("the stop check interrupts, a caller's false starts no further job", "[workers]") {
  ProcessPoolOptions opt;
  opt.workers = 2;
  ProcessPool pool(opt, [](size_t id) {
    sleep_ms(id < 2 ? 0 : 30'000);
    return std::to_string(id);
  });
  size_t reported = 0;
  const auto t0 = std::chrono::steady_clock::now();
  const bool finished = pool.run(
      5,
      [&](size_t, JobOutcome&) {
        ++reported;
        return true;
      },
      [&] { return std::chrono::steady_clock::now() - t0 > std::chrono::milliseconds(500); });
  CHECK_FALSE(finished);
  CHECK(reported == 2);  // jobs 0 and 1; 2 and 3 abandoned when the check said stop
  CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(10));

  ProcessPool one(ProcessPoolOptions{}, [](size_t id) { return std::to_string(id); });
  std::vector<size_t> jobs;
  CHECK(one.run(10, [&](size_t id, JobOutcome&) {
    jobs.push_back(id);
    return id < 3;
  }));
  CHECK(jobs == std::vector<size_t>{0, 1, 2, 3});  // one worker: job 3's false ends it
}
