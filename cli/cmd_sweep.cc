// vtasim sweep: design-space exploration over a JSON spec (configs/sweeps/README.md), results in
// a SQLite database; `sweep export` writes a database as CSV or JSON lines, `sweep merge` joins
// shard databases. Exit status: 0 every job ok or invalid, 3 some failed or timed out, 2 bad
// spec or usage, 1 other errors.
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>

#include <fmt/format.h>

#include "cli_common.h"
#include "plot_script.h"
#include "vta/explore/report_verdicts.h"
#include "vta/explore/results_db.h"
#include "vta/explore/sweep_runner.h"
#include "vta/explore/sweep_spec.h"

namespace vta::cli {

using namespace vta::explore;

namespace {

int sweep_export(int argc, char** argv) {
  std::string db, csv, jsonl, json_path;
  bool quiet = false, progress = false;
  po::options_description desc("sweep export options");
  add_progress_option(desc, progress);
  add_quiet_option(desc, quiet);
  add_json_summary_option(desc, json_path, "write what was exported (JSON) to this file");
  auto add = desc.add_options();
  add("help,h", "show this help");
  add("db", po::value(&db), "results database");
  add("csv", po::value(&csv), "write every row as CSV (a header line, then one line per row)");
  add("jsonl", po::value(&jsonl), "write every row as one JSON object per line");
  po::positional_options_description pos;
  pos.add("db", 1);
  po::variables_map vm;
  const std::string usage = "vtasim sweep export DB.sqlite (--csv OUT.csv | --jsonl OUT.jsonl)";
  if (!parse_args(argc, argv, usage, desc, pos, vm)) {
    return 0;
  }
  if (db.empty() || csv.empty() == jsonl.empty()) {
    throw UsageError("needs a database and exactly one of --csv and --jsonl (usage: " + usage +
                     ")");
  }
  const ResultsDb results(db, ResultsDb::Mode::kReadOnly);
  if (!csv.empty()) {
    results.export_csv(csv);
  } else {
    results.export_jsonl(jsonl);
  }
  const size_t rows = results.rows().size();
  if (!quiet) {
    std::cout << fmt::format("exported {} rows of {} to {}\n", rows, db, csv.empty() ? jsonl : csv);
  }
  write_json_summary(json_path, {{"command", "sweep export"},
                                 {"db", db},
                                 {"output", csv.empty() ? jsonl : csv},
                                 {"format", csv.empty() ? "jsonl" : "csv"},
                                 {"rows", rows}});
  return 0;
}

// The verdicts of the database's designs on the report's devices, in a temporary file the
// report script reads (one fit rule, the C++ one, for the rows, the report and its JSON).
std::string write_verdicts_file(const std::string& db, const std::string& devices,
                                bool count_clock) {
  const ResultsDb results(db, ResultsDb::Mode::kReadOnly);
  const auto rows = results.rows();
  const auto verdicts = report_verdicts(rows, report_devices(devices, rows), count_clock);
  std::string path = (std::filesystem::temp_directory_path() / "vtasim-verdicts-XXXXXX").string();
  const int fd = mkstemp(path.data());
  if (fd < 0) {
    throw Error("cannot create a temporary file for the report's device verdicts");
  }
  close(fd);
  std::ofstream(path) << verdicts.dump() << "\n";
  return path;
}

// The accuracy floor of the report's precision answer, checked: a cosine lies in -1..1.
std::string min_cosine_arg(double min_cosine) {
  if (!(min_cosine >= -1 && min_cosine <= 1)) {
    throw UsageError(fmt::format("--min-cosine {} is not a cosine (-1..1)", min_cosine));
  }
  return fmt::format("{}", min_cosine);
}

// `vtasim sweep report DB --out DIR`: the HTML report with its plots (explore/plots).
int sweep_report(int argc, char** argv) {
  std::string db, out, workload, device, json_path;
  bool ignore_clock = false, quiet = false, progress = false;
  double min_cosine = 0.99;
  po::options_description desc("sweep report options");
  auto add = desc.add_options();
  add("help,h", "show this help");
  add("db", po::value(&db), "results database (SQLite)");
  add("out", po::value(&out), "directory for index.html and the PNG/SVG plots");
  add("workload", po::value(&workload), "workload of the report (default: the first)");
  add("device", po::value(&device),
      "board(s) to judge the designs against, comma-separated: pynq, ultra96, zcu104, "
      "de10nano (default: the device the sweep judged them against)");
  add("ignore-clock-estimate", po::bool_switch(&ignore_clock),
      "count designs above the device's estimated clock as fitting (still marked)");
  add("json", po::value(&json_path),
      "write the report's answer and every design's verdicts (JSON, as DIR/summary.json) here");
  add("min-cosine", po::value(&min_cosine),
      "accuracy floor of the \"which precision?\" answer: output cosine of the quantized network "
      "(rows of network:MODEL.onnx workloads), -1..1 (default 0.99)");
  add_progress_option(desc, progress);
  add_quiet_option(desc, quiet);
  po::positional_options_description pos;
  pos.add("db", 1);
  po::variables_map vm;
  const std::string usage =
      "vtasim sweep report DB.sqlite --out DIR [--workload W] [--device B[,B...]] "
      "[--min-cosine C]";
  if (!parse_args(argc, argv, usage, desc, pos, vm)) {
    return 0;
  }
  if (db.empty() || out.empty()) {
    throw UsageError("needs a database and --out DIR (usage: " + usage + ")");
  }
  if (!std::filesystem::is_regular_file(db)) {
    throw UsageError("no database '" + db + "'");
  }
  const std::string cosine = min_cosine_arg(min_cosine);
  const std::string verdicts = write_verdicts_file(db, device, !ignore_clock);
  std::vector<std::string> args = {db, out, "--verdicts", verdicts, "--min-cosine", cosine};
  if (!workload.empty()) {
    args.insert(args.end(), {"--workload", workload});
  }
  if (!json_path.empty()) {
    args.insert(args.end(), {"--json", json_path});
  }
  if (quiet) {
    args.emplace_back("--quiet");
  }
  try {
    run_plot_script("sweep_report.py", args);
  } catch (...) {
    std::filesystem::remove(verdicts);
    throw;
  }
  std::filesystem::remove(verdicts);
  return 0;
}

int sweep_merge(int argc, char** argv) {
  std::vector<std::string> files;
  std::string json_path;
  bool quiet = false, progress = false;
  po::options_description desc("sweep merge options");
  add_progress_option(desc, progress);
  add_quiet_option(desc, quiet);
  add_json_summary_option(desc, json_path, "write what was merged (JSON) to this file");
  auto add = desc.add_options();
  add("help,h", "show this help");
  add("files", po::value(&files), "OUT.sqlite IN.sqlite...");
  po::positional_options_description pos;
  pos.add("files", -1);
  po::variables_map vm;
  const std::string usage = "vtasim sweep merge OUT.sqlite IN.sqlite...";
  if (!parse_args(argc, argv, usage, desc, pos, vm)) {
    return 0;
  }
  if (files.size() < 2) {
    throw UsageError("needs an output and at least one input database (usage: " + usage + ")");
  }
  for (size_t i = 1; i < files.size(); ++i) {  // every input checked before the output exists
    refuse_overwrite(files[i], files.front(), "sweep merge");
    const ResultsDb check(files[i], ResultsDb::Mode::kReadOnly);
  }
  ResultsDb out(files.front());
  size_t added = 0;
  for (size_t i = 1; i < files.size(); ++i) {
    added += out.merge_from(files[i]);
  }
  const size_t rows = out.rows().size();
  if (!quiet) {
    std::cout << fmt::format("merged {} rows from {} database(s) into {} ({} rows)\n", added,
                             files.size() - 1, files.front(), rows);
  }
  write_json_summary(json_path,
                     {{"command", "sweep merge"},
                      {"output", files.front()},
                      {"inputs", std::vector<std::string>(files.begin() + 1, files.end())},
                      {"added", added},
                      {"rows", rows}});
  return 0;
}

// The settings of `vtasim sweep SPEC`.
struct SweepRunFlags {
  std::string spec_path, shard = "1/1", json_path;
  SweepOptions opt;
  int workers = 0, recycle = 32;
  double timeout = 0;
  bool quiet = false, progress = false;
};

void add_sweep_run_options(po::options_description& desc, SweepRunFlags& f) {
  auto add = desc.add_options();
  add("help,h", "show this help");
  add("spec", po::value(&f.spec_path), "sweep spec (JSON, configs/sweeps/README.md)");
  add("db", po::value(&f.opt.db_path), "results database (SQLite); re-running resumes");
  add("jobs,j", po::value(&f.workers),
      "worker processes (default: one per CPU this process may use, e.g. a Slurm job's)");
  add("shard", po::value(&f.shard),
      "run shard I of N (I/N, 1 <= I <= N): points with index % N == I-1");
  add("retry-failed", po::bool_switch(&f.opt.retry_failed),
      "redo jobs recorded as failed or timeout (finished ones are skipped anyway)");
  add("timeout-per-point", po::value(&f.timeout),
      "seconds a design point x workload may take before it is stopped (status timeout)");
  add("recycle-after", po::value(&f.recycle)->default_value(32),
      "jobs per worker process before it is replaced by a fresh one");
  add("json", po::value(&f.json_path), "write the sweep's summary (JSON) to this file");
  add_progress_option(desc, f.progress);
  add_quiet_option(desc, f.quiet);
}

void check_sweep_run_flags(const po::variables_map& vm, const SweepRunFlags& f,
                           const std::string& usage) {
  if (f.spec_path.empty() || f.opt.db_path.empty()) {
    throw UsageError("needs a spec and --db FILE.sqlite (usage: " + usage + ")");
  }
  if (vm.count("jobs") && (f.workers < 1 || f.workers > 1024)) {
    throw UsageError(fmt::format("--jobs {} is out of range 1..1024", f.workers));
  }
  if (f.recycle < 1) {
    throw UsageError(fmt::format("--recycle-after {} must be at least 1", f.recycle));
  }
  if (vm.count("timeout-per-point") && !(f.timeout > 0)) {
    throw UsageError(
        fmt::format("--timeout-per-point {} must be a positive number of seconds", f.timeout));
  }
}

void write_sweep_json(const std::string& path, const SweepSpec& spec, const SweepSummary& s,
                      const SweepOptions& opt) {
  write_json_summary(path, {{"sweep", spec.name},
                            {"db", opt.db_path},
                            {"shard_index", opt.shard_index},
                            {"shard_count", opt.shard_count},
                            {"points", s.points},
                            {"jobs", s.jobs},
                            {"ran", s.ran},
                            {"skipped", s.skipped},
                            {"ok", s.ok},
                            {"invalid", s.invalid},
                            {"failed", s.failed},
                            {"timeout", s.timeout},
                            {"interrupted", s.interrupted},
                            {"wall_seconds", s.wall_seconds}});
}

int sweep_run(int argc, char** argv) {
  // The summary's time covers the whole command: spec parsing and model import included.
  const auto start = std::chrono::steady_clock::now();
  SweepRunFlags f;
  po::options_description desc("sweep options");
  add_sweep_run_options(desc, f);
  po::positional_options_description pos;
  pos.add("spec", 1);
  po::variables_map vm;
  const std::string usage =
      "vtasim sweep SPEC.json --db FILE.sqlite [-j N] [--shard I/N] [--retry-failed] "
      "[--timeout-per-point S] [--json FILE] [--progress | --quiet]\n"
      "       vtasim sweep export DB (--csv OUT | --jsonl OUT) [--json FILE]\n"
      "       vtasim sweep merge OUT.sqlite IN.sqlite...\n"
      "       vtasim sweep report DB.sqlite --out DIR [--device B[,B...]]";
  if (!parse_args(argc, argv, usage, desc, pos, vm)) {
    return 0;
  }
  check_sweep_run_flags(vm, f, usage);
  try {
    parse_shard(f.shard, f.opt.shard_index, f.opt.shard_count);
  } catch (const Error& e) {
    throw UsageError(e.what());
  }
  SweepSpec spec;
  try {
    spec = SweepSpec::from_file(f.spec_path);
  } catch (const SpecError& e) {
    throw UsageError(e.what());
  }
  f.opt.workers = static_cast<size_t>(f.workers);
  f.opt.recycle_after = static_cast<size_t>(f.recycle);
  f.opt.timeout_seconds = f.timeout;
  f.opt.progress = !f.quiet;
  SweepSummary sum;
  try {
    sum = run_sweep(spec, f.opt);
  } catch (const SpecError& e) {  // a constraint that cannot be evaluated: expanding the space,
    throw UsageError(e.what());   // which run_sweep does before it opens the database
  }
  sum.wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cout << sum.line(spec, f.opt) << "\n";
  if (!f.json_path.empty()) {
    write_sweep_json(f.json_path, spec, sum, f.opt);
  }
  return sum.exit_status();
}

}  // namespace

int cmd_sweep(int argc, char** argv) {
  return guarded([&] {
    if (argc >= 2 && std::string(argv[1]) == "export") {
      return sweep_export(argc - 1, argv + 1);
    }
    if (argc >= 2 && std::string(argv[1]) == "merge") {
      return sweep_merge(argc - 1, argv + 1);
    }
    if (argc >= 2 && std::string(argv[1]) == "report") {
      return sweep_report(argc - 1, argv + 1);
    }
    return sweep_run(argc, argv);
  });
}

}  // namespace vta::cli
