// vtasim sweep: design-space exploration over a JSON spec (configs/sweeps/README.md), results in
// a SQLite database; `sweep export` writes a database as CSV or JSON lines, `sweep merge` joins
// shard databases. Exit status: 0 every job ok or invalid, 3 some failed or timed out, 2 bad
// spec or usage, 1 other errors.
#include <filesystem>
#include <iostream>

#include <fmt/format.h>

#include "cli_common.h"
#include "plot_script.h"
#include "vta/explore/results_db.h"
#include "vta/explore/sweep_runner.h"
#include "vta/explore/sweep_spec.h"

namespace vta::cli {

using namespace vta::explore;

namespace {

int sweep_export(int argc, char** argv) {
  std::string db, csv, jsonl;
  po::options_description desc("sweep export options");
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
  std::cout << fmt::format("exported {} rows of {} to {}\n", results.rows().size(), db,
                           csv.empty() ? jsonl : csv);
  return 0;
}

// `vtasim sweep report DB --out DIR`: the HTML report with its plots (explore/plots).
int sweep_report(int argc, char** argv) {
  std::string db, out, workload, device = "pynq";
  po::options_description desc("sweep report options");
  auto add = desc.add_options();
  add("help,h", "show this help");
  add("db", po::value(&db), "results database (SQLite)");
  add("out", po::value(&out), "directory for index.html and the PNG/SVG plots");
  add("workload", po::value(&workload), "workload of the report (default: the first)");
  add("device", po::value(&device)->default_value("pynq"),
      "board whose budget the plots draw: pynq, ultra96, zcu104, de10nano");
  po::positional_options_description pos;
  pos.add("db", 1);
  po::variables_map vm;
  const std::string usage = "vtasim sweep report DB.sqlite --out DIR [--workload W] [--device B]";
  if (!parse_args(argc, argv, usage, desc, pos, vm)) {
    return 0;
  }
  if (db.empty() || out.empty()) {
    throw UsageError("needs a database and --out DIR (usage: " + usage + ")");
  }
  if (!std::filesystem::is_regular_file(db)) {
    throw UsageError("no database '" + db + "'");
  }
  std::vector<std::string> args = {db, out, "--device", device};
  if (!workload.empty()) {
    args.insert(args.end(), {"--workload", workload});
  }
  run_plot_script("sweep_report.py", args);
  return 0;
}

int sweep_merge(int argc, char** argv) {
  std::vector<std::string> files;
  po::options_description desc("sweep merge options");
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
  std::cout << fmt::format("merged {} rows from {} database(s) into {} ({} rows)\n", added,
                           files.size() - 1, files.front(), out.rows().size());
  return 0;
}

int sweep_run(int argc, char** argv) {
  std::string spec_path, shard = "1/1";
  SweepOptions opt;
  int workers = 0, recycle = 32;
  double timeout = 0;
  bool quiet = false;
  po::options_description desc("sweep options");
  auto add = desc.add_options();
  add("help,h", "show this help");
  add("spec", po::value(&spec_path), "sweep spec (JSON, configs/sweeps/README.md)");
  add("db", po::value(&opt.db_path), "results database (SQLite); re-running resumes");
  add("jobs,j", po::value(&workers),
      "worker processes (default: one per CPU this process may use, e.g. a Slurm job's)");
  add("shard", po::value(&shard),
      "run shard I of N (I/N, 1 <= I <= N): points with index % N == I-1");
  add("retry-failed", po::bool_switch(&opt.retry_failed),
      "redo jobs recorded as failed or timeout (finished ones are skipped anyway)");
  add("timeout-per-point", po::value(&timeout),
      "seconds a design point x workload may take before it is stopped (status timeout)");
  add("recycle-after", po::value(&recycle)->default_value(32),
      "jobs per worker process before it is replaced by a fresh one");
  add("quiet", po::bool_switch(&quiet), "no progress display");
  po::positional_options_description pos;
  pos.add("spec", 1);
  po::variables_map vm;
  const std::string usage =
      "vtasim sweep SPEC.json --db FILE.sqlite [-j N] [--shard I/N] [--retry-failed] "
      "[--timeout-per-point S]\n       vtasim sweep export DB (--csv OUT | --jsonl OUT)\n"
      "       vtasim sweep merge OUT.sqlite IN.sqlite...\n"
      "       vtasim sweep report DB.sqlite --out DIR";
  if (!parse_args(argc, argv, usage, desc, pos, vm)) {
    return 0;
  }
  if (spec_path.empty() || opt.db_path.empty()) {
    throw UsageError("needs a spec and --db FILE.sqlite (usage: " + usage + ")");
  }
  if (vm.count("jobs") && (workers < 1 || workers > 1024)) {
    throw UsageError(fmt::format("--jobs {} is out of range 1..1024", workers));
  }
  if (recycle < 1) {
    throw UsageError(fmt::format("--recycle-after {} must be at least 1", recycle));
  }
  if (vm.count("timeout-per-point") && !(timeout > 0)) {
    throw UsageError(
        fmt::format("--timeout-per-point {} must be a positive number of seconds", timeout));
  }
  try {
    parse_shard(shard, opt.shard_index, opt.shard_count);
  } catch (const Error& e) {
    throw UsageError(e.what());
  }
  SweepSpec spec;
  try {
    spec = SweepSpec::from_file(spec_path);
    (void)DesignSpace(spec);  // constraint errors are spec errors too, before any work
  } catch (const SpecError& e) {
    throw UsageError(e.what());
  }
  opt.workers = static_cast<size_t>(workers);
  opt.recycle_after = static_cast<size_t>(recycle);
  opt.timeout_seconds = timeout;
  opt.progress = !quiet;
  const SweepSummary sum = run_sweep(spec, opt);
  std::cout << sum.line(spec, opt) << "\n";
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
