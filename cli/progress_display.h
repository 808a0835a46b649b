// ProgressDisplay: shows how far the simulations of a vtasim command have got, on stderr, once a
// second: on a terminal one line rewritten in place, otherwise (with --progress) a line each
// time, and a last line when the command's runs are over (on a terminal without --progress
// only if the runs took long enough to show one). Stdout and the --json report never
// see it. It reads the process's run progress (vta/sim/run_progress.h), so it needs no handle
// on the backend, wherever the command created it.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace vta::cli {

class ProgressDisplay {
 public:
  // `forced`: --progress was given; otherwise it shows only when stderr is a terminal.
  // `backend` names the backend (fsim counts work units, not cycles).
  ProgressDisplay(bool forced, const std::string& backend);
  ~ProgressDisplay();
  ProgressDisplay(const ProgressDisplay&) = delete;
  ProgressDisplay& operator=(const ProgressDisplay&) = delete;

 private:
  void loop();
  std::string line() const;

  std::string m_backend, m_unit;
  bool m_tty = false;
  bool m_forced = false;  // --progress: also the last line of a short run
  bool m_on = false;
  bool m_shown = false;  // a line was printed while the runs went on (display thread only)
  std::chrono::steady_clock::time_point m_start;
  uint64_t m_cycles0 = 0, m_insns0 = 0;  // the process's progress when the display started
  std::mutex m_mutex;
  std::condition_variable m_wake;
  bool m_stop = false;
  std::thread m_thread;
};

// --quiet: no display at all in this process, even with a terminal.
void set_progress_quiet(bool quiet);

// Runs f() with a progress display for `backend` (on with --progress or a terminal) and
// returns what it returns; the display's last line is printed before the caller goes on.
template <class F>
auto with_progress(bool forced, const std::string& backend, F&& f) {
  ProgressDisplay display(forced, backend);
  return f();
}

}  // namespace vta::cli
