#include "vta/compiler/run/progress_display.h"

#include <unistd.h>

#include <cmath>

#include <fmt/format.h>

#include "vta/sim/run_progress.h"

namespace vta::compiler {

namespace {

constexpr int kBarWidth = 30;

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

// 1234567 -> "1.23 M"
std::string count_text(uint64_t n) {
  if (n >= 10'000'000'000ull) {
    return fmt::format("{:.3g} G", static_cast<double>(n) / 1e9);
  }
  if (n >= 10'000'000ull) {
    return fmt::format("{:.3g} M", static_cast<double>(n) / 1e6);
  }
  return std::to_string(n);
}

// Per second: 0.583, 12.3, 4567, 2.1 M
std::string rate_text(double per_second) {
  if (per_second >= 1e7) {
    return count_text(static_cast<uint64_t>(per_second));
  }
  return per_second >= 100 ? fmt::format("{:.0f}", per_second) : fmt::format("{:.3g}", per_second);
}

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

ProgressDisplay::ProgressDisplay(std::string title, std::string unit, size_t total, std::FILE* out)
    : m_title(std::move(title)),
      m_unit(std::move(unit)),
      m_total(total),
      m_tty(::isatty(::fileno(out)) == 1),
      m_out(out),
      m_start(std::chrono::steady_clock::now()),
      m_last_draw(m_start) {}

ProgressDisplay::ProgressDisplay(std::string title, std::string unit, size_t total,
                                 ProgressFlags flags, std::FILE* out)
    : ProgressDisplay(std::move(title), std::move(unit), total, out) {
  m_on = !flags.quiet;
}

std::unique_ptr<ProgressDisplay> ProgressDisplay::simulations(const std::string& backend,
                                                              ProgressFlags flags, std::FILE* out) {
  // fsim counts work units, not cycles (run_progress.h)
  std::unique_ptr<ProgressDisplay> d(
      new ProgressDisplay(fmt::format("vtasim: progress: {} backend", backend),
                          backend == "fsim" ? "work units" : "cycles", 0, out));
  d->m_simulations = true;
  d->m_on = !flags.quiet && (d->m_tty || flags.forced);
  d->m_final_line = flags.forced;  // a run too short to show a line adds nothing to its report
  if (d->m_on) {
    d->m_cycles_start = run_progress().cycles.load(std::memory_order_relaxed);
    d->m_insns_start = run_progress().insns.load(std::memory_order_relaxed);
    d->m_sampler = std::thread([p = d.get()] {
      std::unique_lock<std::mutex> lock(p->m_mutex);
      const auto interval =
          std::chrono::duration<double>(p->m_tty ? kTerminalIntervalSeconds : kLogIntervalSeconds);
      while (!p->m_wake.wait_for(lock, interval, [p] { return p->m_stop; })) {
        p->sample_simulations();
        p->draw(false);
      }
    });
  }
  return d;
}

std::unique_ptr<ProgressDisplay> ProgressDisplay::steps(std::string title, std::string unit,
                                                        size_t total, ProgressFlags flags,
                                                        std::FILE* out) {
  std::unique_ptr<ProgressDisplay> d(
      new ProgressDisplay(std::move(title), std::move(unit), total, out));
  d->m_on = !flags.quiet && (d->m_tty || flags.forced);
  d->m_final_line = flags.forced;
  return d;
}

ProgressDisplay::~ProgressDisplay() {
  finish();
}

void ProgressDisplay::sample_simulations() {
  m_done = run_progress().cycles.load(std::memory_order_relaxed) - m_cycles_start;
  m_insns = run_progress().insns.load(std::memory_order_relaxed) - m_insns_start;
}

std::string ProgressDisplay::line(bool last) const {
  const double elapsed = seconds_since(m_start);
  const std::string rate =
      fmt::format("{} {}/s", rate_text(elapsed > 0 ? double(m_done) / elapsed : 0), m_unit);
  if (m_simulations) {
    return fmt::format("{}, {} {}, {} instructions retired, {}, {:.1f} s{}", m_title,
                       count_text(m_done), m_unit, count_text(m_insns), rate, elapsed,
                       last ? " (ended)" : "");
  }
  std::string eta = "-";
  if (m_done >= m_total) {
    eta = "done";
  } else if (m_done > 0) {
    eta = format_duration(elapsed / double(m_done) * double(m_total - m_done));
  }
  const std::string counts =
      fmt::format("{}/{} {}, {} failed, elapsed {}, ETA {}, {}", m_done, m_total, m_unit,
                  m_failures, format_duration(elapsed), eta, rate);
  if (!m_tty) {
    return fmt::format("{}: {}", m_title, counts);
  }
  const size_t filled =
      m_total ? kBarWidth * std::min<size_t>(m_done, m_total) / m_total : size_t(kBarWidth);
  return fmt::format("{} [{}{}] {}", m_title, std::string(filled, '#'),
                     std::string(kBarWidth - filled, '.'), counts);
}

// A terminal's line is rewritten in place (the last one ends it); otherwise a line each time.
void ProgressDisplay::draw(bool last) {
  if (m_tty) {
    fmt::print(m_out, "\r\033[K{}{}", line(last), last ? "\n" : "");
  } else {
    fmt::print(m_out, "{}\n", line(last));
  }
  std::fflush(m_out);
  m_on_screen = m_tty && !last;
  m_shown = m_shown || !last;
  m_last_draw = std::chrono::steady_clock::now();
}

void ProgressDisplay::update(size_t done, size_t failures) {
  const std::lock_guard<std::mutex> lock(m_mutex);
  m_done = done;
  m_failures = failures;
  const double interval = m_tty ? kTerminalIntervalSeconds : kLogIntervalSeconds;
  if (m_on && !m_finished && seconds_since(m_last_draw) >= interval) {
    draw(false);
  }
}

void ProgressDisplay::note(const std::string& text) {
  const std::lock_guard<std::mutex> lock(m_mutex);
  if (!m_on_screen) {
    fmt::print(m_out, "{}\n", text);
    std::fflush(m_out);
    return;
  }
  fmt::print(m_out, "\r\033[K{}\n", text);  // over the in-place line, which comes back below
  draw(false);
}

void ProgressDisplay::finish() {
  {
    const std::lock_guard<std::mutex> lock(m_mutex);
    if (m_finished) {
      return;
    }
    m_finished = true;
    m_stop = true;
  }
  m_wake.notify_all();
  if (m_sampler.joinable()) {
    m_sampler.join();
  }
  const std::lock_guard<std::mutex> lock(m_mutex);
  if (m_simulations) {
    sample_simulations();
  }
  if (m_on && (m_final_line || m_shown)) {
    draw(true);
  }
}

}  // namespace vta::compiler
