// The one progress display, into a file (not a terminal): which displays show with --quiet,
// --progress or neither, the wording of the last line (count, failures, elapsed, ETA, rate; the
// simulations' counts since the display started) and the durations.
#include <cstdio>
#include <regex>
#include <string>

#include <catch2/catch.hpp>

#include "vta/compiler/run/progress_display.h"
#include "vta/sim/run_progress.h"

using namespace vta::compiler;

namespace {

// What a display wrote into a temporary file.
class Captured {
 public:
  Captured() : m_file(std::tmpfile()) { REQUIRE(m_file != nullptr); }
  ~Captured() { std::fclose(m_file); }
  std::FILE* file() const { return m_file; }
  std::string text() const {
    std::fflush(m_file);
    std::rewind(m_file);
    std::string s;
    for (int c = std::fgetc(m_file); c != EOF; c = std::fgetc(m_file)) {
      s += char(c);
    }
    return s;
  }

 private:
  std::FILE* m_file;
};

}  // namespace

TEST_CASE("items: the last line with count, failures, elapsed, ETA and rate, nothing when quiet",
          "[progress]") {
  Captured out;
  {
    ProgressDisplay d("sweep demo", "jobs", 3, ProgressFlags{}, out.file());
    d.update(1, 0);
    d.note("  a line of the command's own");
    d.update(3, 1);
  }
  // Updates within the first 5 s print nothing without a terminal: the note and the last line.
  const std::string text = out.text();
  INFO(text);
  CHECK(std::regex_match(text, std::regex("  a line of the command's own\n"
                                          "sweep demo: 3/3 jobs, 1 failed, elapsed 0s, ETA done, "
                                          "[0-9.]+( M| G)? jobs/s\n")));
  Captured quiet;
  {
    ProgressDisplay d("sweep demo", "jobs", 3, ProgressFlags{true, false}, quiet.file());
    d.update(3, 0);
  }
  CHECK(quiet.text().empty());
}

TEST_CASE("simulations: nothing without a terminal unless --progress, counts since the start",
          "[progress]") {
  vta::run_progress().add(5, 5);  // before the display: not counted
  Captured plain, forced;
  {
    const auto a = ProgressDisplay::simulations("cycle", ProgressFlags{}, plain.file());
    const auto b = ProgressDisplay::simulations("fsim", ProgressFlags{false, true}, forced.file());
    vta::run_progress().add(1234, 56);
  }
  CHECK(plain.text().empty());
  const std::string text = forced.text();
  INFO(text);
  CHECK(std::regex_match(text, std::regex("vtasim: progress: fsim backend, 1234 work units, 56 "
                                          "instructions retired, [0-9.]+( M| G)? work units/s, "
                                          "[0-9]+\\.[0-9] s \\(ended\\)\n")));
  Captured quiet;
  {
    const auto c = ProgressDisplay::simulations("cycle", ProgressFlags{true, false}, quiet.file());
  }
  CHECK(quiet.text().empty());
}

TEST_CASE("durations: seconds, minutes and seconds, hours and minutes", "[progress]") {
  CHECK(format_duration(0.4) == "0s");
  CHECK(format_duration(42) == "42s");
  CHECK(format_duration(185) == "3m05s");
  CHECK(format_duration(3720) == "1h02m");
}
