// Progress of a long command (a sweep's jobs, a network's layers) on stderr: on a terminal a
// bar redrawn in place with done/total, failures and the ETA; otherwise a plain line at most
// every few seconds (and one at the end), so logs of batch jobs stay short.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdio>
#include <string>

namespace vta::explore {

class ProgressDisplay {
 public:
  // `what` names the work ("sweep demo", "network resnet18"), `unit` the items ("jobs").
  // Draws nothing when `enabled` is false.
  ProgressDisplay(std::string what, std::string unit, size_t total, bool enabled = true,
                  std::FILE* out = stderr);
  ~ProgressDisplay();
  ProgressDisplay(const ProgressDisplay&) = delete;
  ProgressDisplay& operator=(const ProgressDisplay&) = delete;

  void update(size_t done, size_t failures);
  // Prints a line above the bar (a terminal) or as is (otherwise).
  void note(const std::string& line);
  void finish();  // the last state, ending the bar's line

  bool on_terminal() const { return m_tty; }

 private:
  std::string status_line() const;
  void draw(bool force);

  std::string m_what, m_unit;
  size_t m_total, m_done = 0, m_failures = 0;
  bool m_enabled, m_tty, m_finished = false;
  std::FILE* m_out;
  std::chrono::steady_clock::time_point m_start, m_last_draw;
  bool m_drawn = false;
};

// "1h02m", "3m05s", "42s".
std::string format_duration(double seconds);

}  // namespace vta::explore
