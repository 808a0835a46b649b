// How far a command has got, on stderr: one display for every command (`vtasim sweep`,
// `vtasim network`, the runs of run / matmul / conv2d, Python sweeps). A line with the count, the
// rate, the elapsed time and, for items of a known total, the ETA. On a terminal the line is
// rewritten in place (items: with a bar); otherwise plain lines, at most one every
// kLogIntervalSeconds, so the logs of batch jobs stay short. Stdout and --json reports never
// see it.
//
// Two things are counted: items of a known total that the caller reports (a sweep's jobs, a
// network's VTA layers), and the simulations of this process (vta/sim/run_progress.h: cycles,
// fsim's work units, instructions retired), which a thread of the display samples, so it needs
// no handle on the backend, wherever the command created it.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

namespace vta::compiler {

constexpr double kTerminalIntervalSeconds = 1;  // redraws of the line on a terminal
constexpr double kLogIntervalSeconds = 5;       // plain lines, otherwise

// --quiet / --progress, with the one meaning every command gives them.
struct ProgressFlags {
  bool quiet = false;   // no display at all
  bool forced = false;  // --progress: also when stderr is not a terminal
};

class ProgressDisplay {
 public:
  // Items of a known total, counted by update(). It shows unless quiet, also without a terminal
  // (a sweep's log tells how far it got), and always ends with its last line.
  ProgressDisplay(std::string title, std::string unit, size_t total, ProgressFlags flags,
                  std::FILE* out = stderr);
  // The simulations this process runs from now on, on `backend`. It shows on a terminal or with
  // --progress; its last line, marked "(ended)", only with --progress or after a line was shown.
  static std::unique_ptr<ProgressDisplay> simulations(const std::string& backend,
                                                      ProgressFlags flags, std::FILE* out = stderr);
  // Steps of a known total inside one command (a model's calibration runs): shown, like the
  // simulations, on a terminal or with --progress, its last line only with --progress or after
  // a line was shown (a step that ends within a second prints nothing).
  static std::unique_ptr<ProgressDisplay> steps(std::string title, std::string unit, size_t total,
                                                ProgressFlags flags, std::FILE* out = stderr);
  ~ProgressDisplay();  // finish()
  ProgressDisplay(const ProgressDisplay&) = delete;
  ProgressDisplay& operator=(const ProgressDisplay&) = delete;

  void update(size_t done, size_t failures);
  // Prints a line of the command's own (above the in-place line on a terminal).
  void note(const std::string& line);
  void finish();  // the last line, once

 private:
  ProgressDisplay(std::string title, std::string unit, size_t total, std::FILE* out);
  void sample_simulations();
  std::string line(bool last) const;
  void draw(bool last);

  std::string m_title, m_unit;
  size_t m_total;
  bool m_simulations = false;  // open-ended: no total, no ETA
  uint64_t m_done = 0, m_failures = 0;
  uint64_t m_insns = 0;                            // simulations: instructions retired
  uint64_t m_cycles_start = 0, m_insns_start = 0;  // the process's counts when it started
  bool m_tty, m_on = false, m_final_line = true;
  bool m_shown = false;      // a line was drawn before the last one
  bool m_on_screen = false;  // a terminal shows the in-place line, not yet ended
  bool m_finished = false;
  std::FILE* m_out;
  std::chrono::steady_clock::time_point m_start, m_last_draw;
  std::mutex m_mutex;  // the sampling thread and the caller draw in turn
  std::condition_variable m_wake;
  bool m_stop = false;
  std::thread m_sampler;
};

// Runs f() with a display of the simulations on `backend` and returns what it returns; the
// display's last line is printed before the caller goes on.
template <class F>
auto with_simulation_progress(ProgressFlags flags, const std::string& backend, F&& f) {
  const std::unique_ptr<ProgressDisplay> display = ProgressDisplay::simulations(backend, flags);
  return f();
}

// "1h02m", "3m05s", "42s".
std::string format_duration(double seconds);

}  // namespace vta::compiler
