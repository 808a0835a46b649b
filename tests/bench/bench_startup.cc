// Process start-up: wall time of whole processes that each run one small thing through libvta,
// the way scripts and tools that start a process per run use it. Kinds, interleaved round by
// round so a drift of the machine's speed hits all of them alike:
//   empty        a C program without libvta (what any process costs here)
//   call         a C program linked against libvta that makes one call (VTAMemAlloc)
//   tiny fsim    a C program that runs one GEMM tile through VTADeviceRun (VTA_BACKEND=fsim)
//   tiny cycle   the same program on the cycle backend (loads the SystemC plugin)
// Usage: bench_startup [ROUNDS] [CALL_PROGRAM]  (default 40 rounds; CALL_PROGRAM, e.g. the one
// call program built against an installed libvta, replaces the build tree's). Prints the
// median and the quartiles of each kind's wall time and the median of its CPU time. Asserts
// nothing about time.
#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

extern char** environ;

namespace {

struct ProcessKind {
  std::string label;
  std::string program;
  std::string backend;             // VTA_BACKEND, or empty
  std::vector<double> ms, cpu_ms;  // wall; user + system of the process
};

struct ProcessTime {
  double wall_ms = -1.0, cpu_ms = -1.0;
};

// Wall and CPU milliseconds of one run of `kind` (stdout and stderr to /dev/null); negative on
// failure.
ProcessTime time_process(const ProcessKind& kind) {
  std::vector<std::string> env_strings;
  for (char** e = environ; *e != nullptr; ++e) {
    if (std::string(*e).rfind("VTA_BACKEND=", 0) != 0) {
      env_strings.emplace_back(*e);
    }
  }
  if (!kind.backend.empty()) {
    env_strings.push_back("VTA_BACKEND=" + kind.backend);
  }
  std::vector<char*> envp;
  for (std::string& s : env_strings) {
    envp.push_back(s.data());
  }
  envp.push_back(nullptr);
  std::string program = kind.program;
  char* argv[] = {program.data(), nullptr};
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  const auto start = std::chrono::steady_clock::now();
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, program.c_str(), &actions, nullptr, argv, envp.data());
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    return {};
  }
  int status = 0;
  rusage usage{};
  wait4(pid, &status, 0, &usage);
  const auto stop = std::chrono::steady_clock::now();
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    return {};
  }
  const auto ms = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_usec) / 1e3;
  };
  return {std::chrono::duration<double, std::milli>(stop - start).count(),
          ms(usage.ru_utime) + ms(usage.ru_stime)};
}

double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v[static_cast<size_t>(q * static_cast<double>(v.size() - 1) + 0.5)];
}

}  // namespace

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::max(1, std::atoi(argv[1])) : 40;
  std::vector<ProcessKind> kinds{
      {"empty C program (no libvta)", VTA_STARTUP_EMPTY, "", {}, {}},
      {"C program, one libvta call", argc > 2 ? argv[2] : VTA_STARTUP_ONE_CALL, "", {}, {}},
      {"tiny program on fsim", VTA_STARTUP_TINY, "fsim", {}, {}},
      {"tiny program on cycle", VTA_STARTUP_TINY, "cycle", {}, {}},
  };
  for (ProcessKind& k : kinds) {  // warm-up: page cache, first loads
    if (time_process(k).wall_ms < 0) {
      std::fprintf(stderr, "bench_startup: %s (%s) failed\n", k.label.c_str(), k.program.c_str());
      return 1;
    }
  }
  for (int r = 0; r < rounds; ++r) {
    for (ProcessKind& k : kinds) {
      const ProcessTime t = time_process(k);
      k.ms.push_back(t.wall_ms);
      k.cpu_ms.push_back(t.cpu_ms);
    }
  }
  std::printf(
      "process start-up, ms per process over %d interleaved rounds (wall; CPU = user +\n"
      "system of the process, the fairer figure on a loaded machine):\n",
      rounds);
  for (const ProcessKind& k : kinds) {
    std::printf("  %-30s wall median %6.2f (quartiles %.2f .. %.2f)  CPU median %6.2f\n",
                k.label.c_str(), quantile(k.ms, 0.5), quantile(k.ms, 0.25), quantile(k.ms, 0.75),
                quantile(k.cpu_ms, 0.5));
  }
  return 0;
}
