#include "progress_display.h"

#include <unistd.h>

#include <cstdio>

#include <fmt/format.h>

#include "vta/sim/run_progress.h"

namespace vta::cli {

namespace {

constexpr std::chrono::seconds kInterval{1};

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

bool g_quiet = false;  // --quiet of this process's command

}  // namespace

void set_progress_quiet(bool quiet) {
  g_quiet = quiet;
}

ProgressDisplay::ProgressDisplay(bool forced, const std::string& backend)
    : m_backend(backend),
      m_unit(backend == "fsim" ? "work units" : "cycles"),
      m_start(std::chrono::steady_clock::now()) {
  m_tty = ::isatty(STDERR_FILENO) == 1;
  m_forced = forced;
  m_on = !g_quiet && (forced || m_tty);
  if (!m_on) {
    return;
  }
  m_cycles0 = run_progress().cycles.load(std::memory_order_relaxed);
  m_insns0 = run_progress().insns.load(std::memory_order_relaxed);
  m_thread = std::thread([this] { loop(); });
}

ProgressDisplay::~ProgressDisplay() {
  if (!m_on) {
    return;
  }
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_stop = true;
  }
  m_wake.notify_all();
  m_thread.join();
  if (!m_forced && !m_shown) {
    return;  // a run shorter than a second, on a terminal: nothing to add to its report
  }
  // The last line stays (a terminal's in-place line is completed by it).
  std::fprintf(stderr, "%s%s (ended)\n", m_tty ? "\r\033[K" : "", line().c_str());
  std::fflush(stderr);
}

std::string ProgressDisplay::line() const {
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - m_start).count();
  const uint64_t cycles = run_progress().cycles.load(std::memory_order_relaxed) - m_cycles0;
  const uint64_t insns = run_progress().insns.load(std::memory_order_relaxed) - m_insns0;
  return fmt::format("vtasim: progress: {} backend, {} {}, {} instructions retired, {:.1f} s",
                     m_backend, count_text(cycles), m_unit, count_text(insns), seconds);
}

void ProgressDisplay::loop() {
  std::unique_lock<std::mutex> lock(m_mutex);
  while (!m_wake.wait_for(lock, kInterval, [this] { return m_stop; })) {
    std::fprintf(stderr, m_tty ? "\r\033[K%s" : "%s\n", line().c_str());
    std::fflush(stderr);
    m_shown = true;
  }
}

}  // namespace vta::cli
