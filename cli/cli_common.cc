#include "cli_common.h"

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <tuple>
#include <utility>

#include <fmt/format.h>

#include "vta/backend_factory.h"
#include "vta/sim/error.h"
#include "vta/sim/fsim.h"
#include "vta/sim/isa.h"
#include "vta/sim/version.h"

namespace vta::cli {

void add_common_options(po::options_description& desc, CommonOptions& o) {
  auto add = desc.add_options();
  add("help,h", "show this help");
  add("config,c", po::value(&o.config),
      "hardware config: preset name (pynq, ultra96, zcu104, de10nano, block32, batch4, small) or "
      "JSON file; default $VTA_CONFIG, else pynq");
  add_set_option(desc, o.sets);
  add("backend,b", po::value(&o.backend),
      "backend: fsim, cycle or rtl; default $VTA_BACKEND, else the build's default");
  add("json", po::value(&o.json_path), "write a machine-readable report (JSON) to this file");
  add("trace", po::value(&o.trace_path), "write a Perfetto/Chrome trace (timed backends)");
  add("vcd", po::value(&o.vcd_path), "write a VCD of the main signals (timed backends)");
  add("vcd-window", po::value(&o.vcd_window), "cycles A:B of the VCD (default: all)");
  add("trace-window", po::value(&o.trace_window), "cycles A:B of the trace (default: all)");
  add("vcd-max-mb", po::value(&o.vcd_max_mb)->default_value(1024),
      "refuse a VCD larger than this many MiB (cut there, with an error that gives its full "
      "size); 0 = no limit");
  add_progress_option(desc, o.progress);
  add_quiet_option(desc, o.quiet);
  add("max-cycles", po::value(&o.max_cycles),
      "stop a run (one synchronised program) after N cycles with an error; on fsim N counts work "
      "units: one per instruction plus one per GEMM/ALU micro-op; without it `run` stops at "
      "10^10");
}

void apply_budget(const CommonOptions& opts, Backend& be) {
  if (auto* fsim = dynamic_cast<FsimBackend*>(&be)) {
    fsim->set_work_limit(opts.max_cycles);
  }
}

void throw_over_budget(const std::string& what, const Backend& be, uint64_t budget,
                       uint64_t insn_count, bool by_default) {
  const Stats& s = be.stats();
  uint64_t done = 0;
  for (uint64_t n : s.insn_count) {
    done += n;
  }
  const std::string unit = s.timed ? "cycles" : "fsim work units";
  const std::string limit =
      by_default
          ? fmt::format("the default budget of {} {} (--max-cycles N sets another)", budget, unit)
          : fmt::format("--max-cycles {} {}", budget, unit);
  throw Error(fmt::format(
      "{}: the {} backend did not reach FINISH within {} (progress: {} of {} instructions "
      "executed, {} GEMM and {} ALU micro-ops executed)",
      what, be.name(), limit, done, insn_count, s.gemm_counter, s.alu_counter));
}

void add_set_option(po::options_description& desc, std::vector<std::string>& sets) {
  desc.add_options()("set", po::value(&sets)->composing(),
                     "override a config key: --set KEY=VALUE (repeatable, e.g. --set LOG_BLOCK=5)");
}

void add_quiet_option(po::options_description& desc, bool& quiet) {
  desc.add_options()("quiet,q", po::bool_switch(&quiet),
                     "no progress display and no per-item lines on stderr (results, the --json "
                     "report and errors are unchanged)");
}

void add_progress_option(po::options_description& desc, bool& progress) {
  desc.add_options()("progress", po::bool_switch(&progress),
                     "show progress on stderr also when it is not a terminal (on a terminal it is "
                     "shown anyway)");
}

namespace {

// --progress and --quiet together ask for opposite things: a usage error on every command.
void refuse_progress_and_quiet(const po::variables_map& vm) {
  const auto on = [&](const char* name) { return vm.count(name) && vm[name].as<bool>(); };
  if (on("progress") && on("quiet")) {
    throw UsageError("--progress and --quiet contradict each other; give one");
  }
}

}  // namespace

bool parse_args(int argc, char** argv, const std::string& usage,
                const po::options_description& desc, const po::positional_options_description& pos,
                po::variables_map& vm) {
  try {
    po::store(po::command_line_parser(argc, argv).options(desc).positional(pos).run(), vm);
    if (vm.count("help")) {
      std::cout << "usage: " << usage << "\n\n" << desc << "\n";
      return false;
    }
    po::notify(vm);
    refuse_progress_and_quiet(vm);
  } catch (const po::error& e) {
    throw UsageError(std::string(e.what()) + " (usage: " + usage + ")");
  }
  return true;
}

std::vector<std::string> preset_names() {
  return preset_config_names();
}

namespace {

std::vector<ConfigOverride> parse_overrides(const std::vector<std::string>& sets) {
  std::vector<ConfigOverride> overrides;
  overrides.reserve(sets.size());
  for (const std::string& s : sets) {
    overrides.push_back(parse_config_override(s));
  }
  return overrides;
}

}  // namespace

ResolvedConfig resolve_config(const std::string& name_or_path,
                              const std::vector<std::string>& sets) {
  return vta::resolve_config(name_or_path, parse_overrides(sets));
}

HwConfig embedded_config(const ProgramImage& img, const std::string& file) {
  return HwConfig::from_json_text(img.config_json, file + " (embedded config)");
}

ResolvedConfig image_config(const ProgramImage& img, const std::string& config,
                            const std::vector<std::string>& sets, const std::string& file) {
  if (!config.empty() || img.config_json.empty()) {
    return resolve_config(config, sets);
  }
  return resolve_config_keys(file + " (embedded config)", embedded_config(img, file).to_json(),
                             parse_overrides(sets));
}

namespace {

// "A:B" with cycle numbers A < B, the value of `option` (--vcd-window, --trace-window).
std::pair<uint64_t, uint64_t> parse_cycle_window(const std::string& option,
                                                 const std::string& text) {
  try {
    const size_t colon = text.find(':');
    if (colon == std::string::npos) {
      throw std::invalid_argument("no colon");
    }
    size_t used = 0;
    const uint64_t start = std::stoull(text.substr(0, colon), &used);
    if (used != colon) {
      throw std::invalid_argument("junk");
    }
    const std::string b = text.substr(colon + 1);
    const uint64_t end = std::stoull(b, &used);
    if (used != b.size() || end <= start) {
      throw std::invalid_argument("range");
    }
    return {start, end};
  } catch (const std::exception&) {
    throw UsageError(option + " '" + text + "' must be A:B with cycle numbers A < B");
  }
}

}  // namespace

void apply_trace_options(const CommonOptions& o, Backend& be) {
  if (!o.trace_window.empty() && o.trace_path.empty()) {
    throw UsageError("--trace-window needs --trace FILE");
  }
  if (!o.trace_path.empty()) {
    const auto [start, end] = o.trace_window.empty()
                                  ? std::pair<uint64_t, uint64_t>(0, UINT64_MAX)
                                  : parse_cycle_window("--trace-window", o.trace_window);
    be.enable_trace(o.trace_path);
    be.set_trace_window(start, end);
  }
  if (!o.vcd_window.empty() && o.vcd_path.empty()) {
    throw UsageError("--vcd-window needs --vcd FILE");
  }
  if (!o.vcd_path.empty()) {
    uint64_t start = 0, end = UINT64_MAX;
    if (!o.vcd_window.empty()) {
      std::tie(start, end) = parse_cycle_window("--vcd-window", o.vcd_window);
    }
    if (!(o.vcd_max_mb >= 0 && o.vcd_max_mb < 1e12)) {
      throw UsageError(
          fmt::format("--vcd-max-mb {} must be a size in MiB >= 0 (0 = no limit)", o.vcd_max_mb));
    }
    be.set_vcd_limit(static_cast<uint64_t>(std::ceil(o.vcd_max_mb * 1024 * 1024)));
    be.enable_vcd(o.vcd_path, start, end);
  }
}

std::unique_ptr<Backend> create_backend(const CommonOptions& o, const HwConfig& cfg, Dram& dram) {
  const std::string name = o.backend.empty() ? backend_name_from_env() : o.backend;
  std::unique_ptr<Backend> be = make_backend(name, cfg, dram);
  apply_trace_options(o, *be);
  return be;
}

void print_report(std::ostream& os, const RunReport& r) {
  const Stats& s = r.stats;
  os << fmt::format("vtasim {}: {} on backend {} (config {})\n", r.command, r.program, r.backend,
                    r.config);
  const auto row = [&](const std::string& name, const std::string& value, const std::string& unit) {
    os << fmt::format("  {:<34} {:>16} {}\n", name, value, unit);
  };
  row("inp_load_nbytes", std::to_string(s.inp_load_nbytes), "bytes");
  row("wgt_load_nbytes", std::to_string(s.wgt_load_nbytes), "bytes");
  row("acc_load_nbytes", std::to_string(s.acc_load_nbytes), "bytes");
  row("uop_load_nbytes", std::to_string(s.uop_load_nbytes), "bytes");
  row("out_store_nbytes", std::to_string(s.out_store_nbytes), "bytes");
  row("gemm_counter", std::to_string(s.gemm_counter), "GEMM micro-ops");
  row("alu_counter", std::to_string(s.alu_counter), "ALU micro-ops");
  std::string insns;
  uint64_t total = 0;
  for (uint32_t op = 0; op <= kOpAlu; ++op) {
    insns += fmt::format("{}{} {}", insns.empty() ? "" : ", ", opcode_name(op), s.insn_count[op]);
    total += s.insn_count[op];
  }
  row("instructions", std::to_string(total), "(" + insns + ")");
  row("runs", std::to_string(s.runs), "");
  if (s.timed) {
    row("cycles", std::to_string(s.cycles), "cycles");
  }
  for (const NamedCounter& c : s.extra) {
    // Counts print in full; only true ratios/bandwidths get a fractional part.
    const bool whole = c.value == static_cast<double>(static_cast<uint64_t>(c.value));
    row(c.name,
        whole ? fmt::format("{}", static_cast<uint64_t>(c.value)) : fmt::format("{:.4f}", c.value),
        c.unit);
  }
  for (const auto& [key, value] : r.extra.items()) {
    row(key, value.is_string() ? value.get<std::string>() : value.dump(), "");
  }
  row("wall time", fmt::format("{:.6f}", r.wall_seconds), "s");
}

nlohmann::ordered_json report_json(const RunReport& r) {
  nlohmann::ordered_json j;
  j["command"] = r.command;
  j["program"] = r.program;
  j["backend"] = r.backend;
  const ResolvedConfig& c = r.resolved;
  j["config"] =
      c.keys.is_object() ? nlohmann::ordered_json(c.keys) : nlohmann::ordered_json(r.config);
  j["config_label"] = c.label;
  j["config_hash"] = c.hash;
  j["model"] = r.config;
  j["version"] = simulator_version();
  j["wall_seconds"] = r.wall_seconds;
  if (r.stats.timed && c.config.clock_mhz > 0) {
    j["time_s"] = static_cast<double>(r.stats.cycles) / (c.config.clock_mhz * 1e6);
  }
  const nlohmann::ordered_json stats = r.stats.to_json();  // items() must not outlive it
  for (const auto& [key, value] : stats.items()) {
    j[key] = value;
  }
  for (const auto& [key, value] : r.extra.items()) {
    j[key] = value;
  }
  return j;
}

void add_json_summary_option(po::options_description& desc, std::string& path, const char* what) {
  desc.add_options()("json", po::value(&path), what);
}

void write_json_summary(const std::string& path, nlohmann::ordered_json j) {
  if (path.empty()) {
    return;
  }
  j["version"] = simulator_version();
  std::ofstream out(path);
  out << j.dump(1) << "\n";
  if (!out) {
    throw Error("cannot write the --json summary to '" + path + "'");
  }
}

void write_json_report(const CommonOptions& o, const RunReport& r) {
  if (o.json_path.empty()) {
    return;
  }
  // Text before the file: a file or program name that is not UTF-8 (any byte string is a
  // valid Linux path) gets U+FFFD for its bad bytes instead of an exception after the run.
  const std::string text =
      report_json(r).dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
  std::ofstream f(o.json_path);
  f << text << "\n";
  if (!f) {
    throw Error("cannot write JSON report '" + o.json_path + "'");
  }
}

void require_regular_file(const std::string& path) {
  std::error_code ec;
  const auto st = std::filesystem::status(path, ec);
  if (!std::filesystem::exists(st)) {
    throw Error("cannot open '" + path + "': no such file");
  }
  if (!std::filesystem::is_regular_file(st)) {
    throw Error("'" + path + "' is not a regular file");
  }
}

std::vector<uint8_t> read_regular_file(const std::string& path, uint64_t max_bytes) {
  require_regular_file(path);
  std::error_code ec;
  const uint64_t size = std::filesystem::file_size(path, ec);
  if (ec) {
    throw Error("cannot open '" + path + "': " + ec.message());
  }
  if (size > max_bytes) {
    throw Error(fmt::format("'{}' has {} bytes, more than the {} bytes it may have", path, size,
                            max_bytes));
  }
  std::ifstream f(path, std::ios::binary);
  if (!f) {
    throw Error("cannot open '" + path + "'");
  }
  std::vector<uint8_t> data(size);
  f.read(reinterpret_cast<char*>(data.data()), static_cast<std::streamsize>(size));
  if (static_cast<uint64_t>(f.gcount()) != size) {
    throw Error(fmt::format("'{}': read {} of its {} bytes", path, f.gcount(), size));
  }
  return data;
}

int guarded(const std::function<int()>& body) {
  try {
    return body();
  } catch (const UsageError& e) {
    std::cerr << "vtasim: error: " << e.what() << "\n";
    return 2;
  } catch (const po::error& e) {
    std::cerr << "vtasim: error: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "vtasim: error: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace vta::cli
