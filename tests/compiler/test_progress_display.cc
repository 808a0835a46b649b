// The one progress display, into a file (not a terminal): which displays show with --quiet,
// --progress or neither, the wording of the last line (count, failures, elapsed, ETA, rate; the
// simulations' counts since the display started) and the durations.
#include <cstdio>
#include <string>

#include <catch2/catch.hpp>

#include "vta/compiler/run/progress_display.h"
#include "vta/sim/run_progress.h"

using namespace vta::compiler;

namespace {

// What `show` wrote through a display into a file (not a terminal).
template <class F>
std::string written(F&& show) {
  std::FILE* f = std::tmpfile();
  REQUIRE(f != nullptr);
  show(f);
  std::rewind(f);
  std::string s;
  for (int c = std::fgetc(f); c != EOF; c = std::fgetc(f)) {
    s += char(c);
  }
  std::fclose(f);
  return s;
}

const ProgressFlags kQuiet{true, false}, kForced{false, true}, kNeither{};

}  // namespace

TEST_CASE("items: the last line with count, failures, elapsed, ETA and rate, nothing when quiet",
          "[progress]") {
  const auto sweep = [](ProgressFlags flags) {
    return [flags](std::FILE* f) {
      ProgressDisplay d("sweep demo", "jobs", 3, flags, f);
      d.update(1, 0);
      d.note("  a line of the command's own");
      d.update(3, 1);
    };
  };
  // Updates within the first 5 s print nothing without a terminal: the note and the last line,
  // with --progress or without.
  const std::string lines =
      "  a line of the command's own\n"
      "sweep demo: 3/3 jobs, 1 failed, elapsed 0s, ETA done, [0-9.]+( M| G)? jobs/s\n";
  CHECK_THAT(written(sweep(kNeither)), Catch::Matches(lines));
  CHECK_THAT(written(sweep(kForced)), Catch::Matches(lines));
  CHECK(written(sweep(kQuiet)) == "  a line of the command's own\n");  // the caller's to drop
}

TEST_CASE("simulations: nothing without a terminal unless --progress, counts since the start",
          "[progress]") {
  const auto run = [](ProgressFlags flags) {
    return [flags](std::FILE* f) {
      vta::run_progress().add(5, 5);  // before the display: not counted
      const auto d = ProgressDisplay::simulations("fsim", flags, f);
      vta::run_progress().add(1234, 56);
    };
  };
  CHECK(written(run(kNeither)).empty());
  CHECK(written(run(kQuiet)).empty());
  CHECK_THAT(
      written(run(kForced)),
      Catch::Matches("vtasim: progress: fsim backend, 1234 work units, 56 instructions "
                     "retired, [0-9.]+( M| G)? work units/s, [0-9]+\\.[0-9] s \\(ended\\)\n"));
}

TEST_CASE("durations: seconds, minutes and seconds, hours and minutes", "[progress]") {
  CHECK(format_duration(0.4) == "0s");
  CHECK(format_duration(42) == "42s");
  CHECK(format_duration(185) == "3m05s");
  CHECK(format_duration(3720) == "1h02m");
}
