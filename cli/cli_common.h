// Shared pieces of the vtasim subcommands: the common options (--config, --backend, --json,
// --trace, --vcd, --vcd-window) parsed with Boost.program_options, config and backend
// resolution, the run report (text table on stdout, JSON file) and error handling.
// Exit status: 0 success, 1 simulator/program error ("vtasim: error: ..."), 2 bad usage.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

#include <boost/program_options.hpp>
#include <nlohmann/json.hpp>

#include "vta/compiler/run/progress_display.h"
#include "vta/sim/backend.h"
#include "vta/sim/config_source.h"
#include "vta/sim/dram.h"
#include "vta/sim/hw_config.h"
#include "vta/sim/program_image.h"
#include "vta/sim/stats.h"

namespace vta::cli {

namespace po = boost::program_options;

// A bad command line; reported with exit status 2.
class UsageError : public std::runtime_error {
 public:
  explicit UsageError(const std::string& what) : std::runtime_error(what) {}
};

struct CommonOptions {
  std::string config;  // preset name or JSON path; "" = $VTA_CONFIG, else built-in default
  std::vector<std::string> sets;  // --set KEY=VALUE overrides, applied in order
  std::string backend;            // fsim | cycle | rtl; "" = $VTA_BACKEND, else the default
  std::string json_path;          // machine-readable report ("" = none)
  std::string trace_path;         // Perfetto/Chrome trace (timed backends)
  std::string vcd_path;           // VCD of the main signals (timed backends)
  std::string vcd_window;         // "A:B": cycles [A, B) of the VCD
  std::string trace_window;       // "A:B": cycles [A, B) of the Perfetto trace
  double vcd_max_mb = 1024;       // VCD size limit in MiB (0 = none)
  bool progress = false;          // show progress on stderr even when it is not a terminal
  bool quiet = false;             // no progress display and no per-item lines (results stay)
  uint64_t max_cycles = 0;        // budget of one run (fsim: work units); 0 = the command's default

  compiler::ProgressFlags progress_flags() const { return {quiet, progress}; }
};

// Adds the common options (and --help) to `desc`, storing into `opts`.
void add_common_options(po::options_description& desc, CommonOptions& opts);
// --quiet / --progress with the one meaning every command gives them (commands without the
// common options add these); parse_args refuses the two together.
void add_quiet_option(po::options_description& desc, bool& quiet);
// --json FILE on commands without a run report (disasm, sweep export / merge): `what` says what
// the file holds. write_json_summary writes `j` there ("" = not asked for), adding "version";
// throws Error naming the file when it cannot be written.
void add_json_summary_option(po::options_description& desc, std::string& path, const char* what);
void write_json_summary(const std::string& path, nlohmann::ordered_json j);
void add_progress_option(po::options_description& desc, bool& progress);
// Adds --set KEY=VALUE (repeatable), storing into `sets`.
void add_set_option(po::options_description& desc, std::vector<std::string>& sets);

// Parses argv (argv[0] is the subcommand name). Prints "usage: ..." and `desc` and returns false
// on --help. Throws UsageError on unknown options or missing/extra arguments.
bool parse_args(int argc, char** argv, const std::string& usage,
                const po::options_description& desc, const po::positional_options_description& pos,
                po::variables_map& vm);

// A preset name (configs/<name>.json), a path to a JSON file, or "" for $VTA_CONFIG / default,
// with the --set overrides applied (config_source.h).
ResolvedConfig resolve_config(const std::string& name_or_path,
                              const std::vector<std::string>& sets = {});
// The config a program image was built for (its embedded JSON, which must be present).
HwConfig embedded_config(const ProgramImage& img, const std::string& file);
// The config to run or decode image `file` with: --config when given, else the embedded one,
// else $VTA_CONFIG / the default; --set applies over it.
ResolvedConfig image_config(const ProgramImage& img, const std::string& config,
                            const std::vector<std::string>& sets, const std::string& file);
// Preset names available.
std::vector<std::string> preset_names();

// Applies --trace and --vcd / --vcd-window to `be`.
void apply_trace_options(const CommonOptions& opts, Backend& be);
// --max-cycles on an untimed backend (fsim: its work limit); timed ones take it per run.
void apply_budget(const CommonOptions& opts, Backend& be);
// The named error for a run that exceeded --max-cycles (or, with `by_default`, the command's
// own budget, which the message names as such), with the progress it made.
[[noreturn]] void throw_over_budget(const std::string& what, const Backend& be, uint64_t budget,
                                    uint64_t insn_count, bool by_default = false);
// Creates the backend (opts.backend or the default) and applies --trace / --vcd.
std::unique_ptr<Backend> create_backend(const CommonOptions& opts, const HwConfig& cfg, Dram& dram);

// What a subcommand ran, for the report.
struct RunReport {
  std::string command;  // "run", "demo", ...
  std::string program;  // what ran (file name, workload)
  std::string backend;
  std::string config;       // model name of the config
  ResolvedConfig resolved;  // the complete config, its hash and label
  double wall_seconds = 0;
  Stats stats;
  nlohmann::ordered_json extra = nlohmann::ordered_json::object();  // subcommand-specific
};

// Text table: the seven upstream counters, instruction counts, cycles (timed backends), the
// backend's extra counters and the wall time.
void print_report(std::ostream& os, const RunReport& r);
// {"command", "program", "backend", "config" (every key), "config_label", "config_hash",
//  "model", "version", "wall_seconds", "time_s" (timed backends), <Stats::to_json keys>, extra...}
nlohmann::ordered_json report_json(const RunReport& r);
// Writes the report if opts.json_path is set; throws Error if the file cannot be written.
void write_json_report(const CommonOptions& opts, const RunReport& r);

// Throws Error unless `path` names an existing regular file: reading a device such as /dev/zero,
// a FIFO or a directory need not end (or fail) the way a program file does.
void require_regular_file(const std::string& path);
// The whole content of a regular file of at most `max_bytes` bytes (checked before reading).
std::vector<uint8_t> read_regular_file(const std::string& path, uint64_t max_bytes);

// Runs `body`, printing "vtasim: error: <message>" on stderr and returning 1 for vta::Error
// (and other std::exception), 2 for UsageError / option errors.
int guarded(const std::function<int()>& body);

}  // namespace vta::cli
