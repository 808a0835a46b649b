#include "vta/explore/progress.h"

#include <unistd.h>

#include <cmath>

#include <fmt/format.h>

namespace vta::explore {

namespace {

constexpr double kPlainIntervalSeconds = 5;       // plain lines: at most one per interval
constexpr double kTerminalIntervalSeconds = 0.2;  // bar redraws
constexpr int kBarWidth = 30;

}  // namespace

std::string format_duration(double s) {
  const long t = std::lround(s);
  if (t >= 3600) {
    return fmt::format("{}h{:02}m", t / 3600, (t % 3600) / 60);
  }
  if (t >= 60) {
    return fmt::format("{}m{:02}s", t / 60, t % 60);
  }
  return fmt::format("{}s", t);
}

ProgressDisplay::ProgressDisplay(std::string what, std::string unit, size_t total, bool enabled,
                                 std::FILE* out)
    : m_what(std::move(what)),
      m_unit(std::move(unit)),
      m_total(total),
      m_enabled(enabled),
      m_tty(isatty(fileno(out)) != 0),
      m_out(out),
      m_start(std::chrono::steady_clock::now()),
      m_last_draw(m_start) {}

ProgressDisplay::~ProgressDisplay() {
  finish();
}

std::string ProgressDisplay::status_line() const {
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - m_start).count();
  std::string eta = "-";
  if (m_done > 0 && m_done < m_total) {
    eta = format_duration(elapsed / double(m_done) * double(m_total - m_done));
  } else if (m_done >= m_total) {
    eta = "done";
  }
  return fmt::format("{}/{} {}, {} failed, elapsed {}, ETA {}", m_done, m_total, m_unit, m_failures,
                     format_duration(elapsed), eta);
}

void ProgressDisplay::draw(bool force) {
  if (!m_enabled) {
    return;
  }
  const auto now = std::chrono::steady_clock::now();
  const double since = std::chrono::duration<double>(now - m_last_draw).count();
  if (!force && since < (m_tty ? kTerminalIntervalSeconds : kPlainIntervalSeconds)) {
    return;
  }
  m_last_draw = now;
  if (m_tty) {
    const int filled = m_total ? static_cast<int>(kBarWidth * m_done / m_total) : kBarWidth;
    fmt::print(m_out, "\r\033[K{} [{}{}] {}", m_what, std::string(size_t(filled), '#'),
               std::string(size_t(kBarWidth - filled), '.'), status_line());
  } else {
    fmt::print(m_out, "{}: {}\n", m_what, status_line());
  }
  m_drawn = true;
  std::fflush(m_out);
}

void ProgressDisplay::update(size_t done, size_t failures) {
  m_done = done;
  m_failures = failures;
  draw(m_tty && done == m_total);
}

void ProgressDisplay::note(const std::string& line) {
  if (m_tty && m_enabled && m_drawn) {
    fmt::print(m_out, "\r\033[K{}\n", line);
    m_drawn = false;
    draw(true);
  } else {
    fmt::print(m_out, "{}\n", line);
  }
  std::fflush(m_out);
}

void ProgressDisplay::finish() {
  if (m_finished) {
    return;
  }
  m_finished = true;
  draw(true);
  if (m_tty && m_enabled && m_drawn) {
    fmt::print(m_out, "\n");
  }
}

}  // namespace vta::explore
