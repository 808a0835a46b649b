#include "compiler_command.h"

#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <iostream>

#include <fmt/format.h>

#include "plot_script.h"
#include "vta/backend_factory.h"
#include "vta/compiler/reports/report.h"
#include "vta/explore/area_model.h"
#include "vta/explore/design_verdict.h"
#include "vta/explore/energy_model.h"
#include "vta/explore/system_area.h"
#include "vta/explore/system_energy.h"
#include "vta/runtime_object.h"
#include "vta/sim/error.h"

namespace vta::cli {

using namespace vta::compiler;

void add_epilogue_options(po::options_description& desc, EpilogueFlags& f) {
  auto add = desc.add_options();
  add("bias", po::bool_switch(&f.bias), "add a random per-channel int32 bias");
  add("shift", po::value(&f.shift), "arithmetic right shift of the accumulator");
  add("relu", po::bool_switch(&f.relu), "ReLU (max 0)");
  add("clip-lo", po::value(&f.clip_lo), "lower clip bound (ALU MAX)");
  add("clip-hi", po::value(&f.clip_hi), "upper clip bound (ALU MIN)");
  add("no-epilogue", po::bool_switch(&f.no_epilogue),
      "start from an empty epilogue instead of the layer's / schedule's");
}

Epilogue apply_epilogue_flags(Epilogue e, const EpilogueFlags& f, const po::variables_map& vm) {
  if (f.no_epilogue) {
    e = Epilogue{};
  }
  if (f.bias) {
    e.bias = true;
  }
  if (vm.count("shift")) {
    e.shift = f.shift;
  }
  if (f.relu) {
    e.relu = true;
  }
  if (vm.count("clip-lo")) {
    e.clip_lo = f.clip_lo;
  }
  if (vm.count("clip-hi")) {
    e.clip_hi = f.clip_hi;
  }
  e.validate();
  return e;
}

void check_option_range(const po::variables_map& vm, const std::string& option, int min, int max) {
  if (!vm.count(option)) {
    return;
  }
  const int x = vm[option].as<int>();
  if (x < min || x > max) {
    throw UsageError(fmt::format("--{} {} is out of range {}..{}", option, x, min, max));
  }
}

std::optional<ConvSchedule> read_schedule_option(const std::string& path, Epilogue& e) {
  if (path.empty()) {
    return std::nullopt;
  }
  ConvSchedule s = ConvSchedule::from_file(path);
  if (s.epilogue) {
    e = *s.epilogue;
  }
  return s;
}

void add_plot_option(po::options_description& desc, std::string& plot_path) {
  desc.add_options()("plot", po::value(&plot_path),
                     "draw the cycle breakdown and roofline of the run into FILE.png");
}

namespace {

// The design's FPGA resources and its verdict on the board of its TARGET: resources, memory
// port and clock estimate, as a sweep row has them (explore/include/vta/explore/design_verdict.h).
nlohmann::ordered_json area_json(const HwConfig& cfg) {
  // A system's area is every core's plus the interconnect's (docs/multicore.md); one core's
  // otherwise.
  const explore::SystemArea system = explore::estimate_system_area(cfg);
  const explore::AreaEstimate& area = system.total;
  nlohmann::ordered_json j = area.to_json();
  if (cfg.cores != 0) {
    j["cores"] = cfg.num_cores();
    j["interconnect"] = {{"lut", system.interconnect.lut}, {"ff", system.interconnect.ff}};
  }
  const explore::FpgaDevice* dev = explore::find_device(cfg.target);
  if (dev != nullptr) {
    const explore::DesignVerdict v =
        explore::judge_design(explore::design_traits(cfg, area.total), *dev);
    const explore::FitVerdict& r = v.resources;
    j["device"] = dev->part;
    j["fits"] = v.fits;
    j["binding"] = r.binding;
    j["utilization"] = {{"lut", r.lut}, {"ff", r.ff}, {"dsp", r.dsp}, {"bram36", r.bram36}};
    j["verdict"] = v.to_json();
  }
  return j;
}

// One line each for the design's area (model) and the run's energy (model), after the table.
void print_design_lines(std::ostream& os, const nlohmann::ordered_json& area,
                        const nlohmann::ordered_json& energy) {
  os << fmt::format("area (model): {:.0f} LUT, {:.0f} FF, {:.0f} DSP48, {:.1f} BRAM36",
                    area["lut"].get<double>(), area["ff"].get<double>(), area["dsp"].get<double>(),
                    area["bram36"].get<double>());
  if (area.contains("device")) {
    os << fmt::format("; {} the {} ({} {:.0f}%)",
                      area["fits"].get<bool>() ? "fits" : "does not fit",
                      area["device"].get<std::string>(), area["binding"].get<std::string>(),
                      100 * area["utilization"][area["binding"].get<std::string>()].get<double>());
    const auto& why = area["verdict"]["why_not"];
    os << (why.is_string() ? ": " + why.get<std::string>() : std::string());
  }
  if (!area["extrapolated"].empty()) {
    os << " [area extrapolated: " << area["extrapolated"].size() << " feature(s) outside the "
       << "calibrated designs]";
  }
  const double total = energy["total_j"].get<double>();
  std::string biggest;
  double most = -1;
  for (auto it = energy["parts"].begin(); it != energy["parts"].end(); ++it) {
    if (it.value().get<double>() > most) {
      most = it.value().get<double>();
      biggest = it.key();
    }
  }
  os << fmt::format("\nenergy (model): {:.3f} mJ, most of it {} ({:.0f}%)\n", total * 1e3, biggest,
                    total > 0 ? 100 * most / total : 0.0);
}

// Draws the plot of the report (written to a temporary file when --json was not given).
void draw_plot(const CommonOptions& o, const RunReport& rr, const std::string& plot_path) {
  CommonOptions tmp = o;
  if (tmp.json_path.empty()) {
    tmp.json_path = (std::filesystem::temp_directory_path() /
                     fmt::format("vtasim-plot-{}.json", static_cast<long>(getpid())))
                        .string();
  }
  write_json_report(tmp, rr);
  try {
    run_plot_script("run_plot.py", {tmp.json_path, plot_path});
  } catch (...) {
    if (o.json_path.empty()) {
      std::filesystem::remove(tmp.json_path);
    }
    throw;
  }
  if (o.json_path.empty()) {
    std::filesystem::remove(tmp.json_path);
  }
}

// The command's own summary (an imported model's front end and host time): its lines printed
// under the table's summary, its keys (extra's "summary") returned to join the report's.
nlohmann::ordered_json take_command_summary(nlohmann::ordered_json& extra) {
  for (const auto& line : extra.value("summary_lines", nlohmann::ordered_json::array())) {
    std::cout << line.get<std::string>() << "\n";
  }
  extra.erase("summary_lines");
  nlohmann::ordered_json own = extra.value("summary", nlohmann::ordered_json::object());
  extra.erase("summary");
  return own;
}

}  // namespace

void add_split_option(po::options_description& desc, std::string& split) {
  desc.add_options()("split", po::value(&split),
                     "with CORES > 1: split layers over the cores by output channels, by batch, "
                     "stream a network's samples through a pipeline of its layers, one stage per "
                     "core, or as the cost model chooses (auto|channels|batch|pipeline|none; "
                     "default auto)");
}

NetworkSplit split_option(const po::variables_map& vm, const std::string& text,
                          const HwConfig& cfg) {
  if (!vm.count("split")) {
    return cfg.num_cores() > 1 ? NetworkSplit::kAuto : NetworkSplit::kNone;
  }
  NetworkSplit s = NetworkSplit::kNone;
  try {
    s = parse_network_split(text);
  } catch (const Error& e) {
    throw UsageError(std::string("--split: ") + e.what());
  }
  if (cfg.num_cores() < 2 && s != NetworkSplit::kNone) {
    throw UsageError(fmt::format(
        "--split {}: config {} has one core; a split needs CORES > 1 (e.g. --set CORES=2)", text,
        cfg.model_name));
  }
  return s;
}

NetworkSplit layer_split_option(const po::variables_map& vm, const std::string& text,
                                const HwConfig& cfg) {
  const NetworkSplit s = split_option(vm, text, cfg);
  if (s == NetworkSplit::kPipeline) {
    throw UsageError(
        "--split pipeline: a pipeline cuts a network's layers into stages; one layer has none "
        "(use vtasim network)");
  }
  return s;
}

namespace {

// Core k's cycles and DRAM contention summed over the runs.
nlohmann::ordered_json core_totals(int cores, const std::vector<LayerRun>& runs,
                                   std::string& line) {
  nlohmann::ordered_json j = nlohmann::ordered_json::array();
  for (int k = 0; k < cores; ++k) {
    double cycles = 0, contention = 0;
    for (const LayerRun& r : runs) {
      const NamedCounter* c = r.stats.find(fmt::format("core{}.cycles", k));
      const NamedCounter* w = r.stats.find(fmt::format("core{}.dram_contention_cycles", k));
      cycles += c ? c->value : 0.0;
      contention += w ? w->value : 0.0;
    }
    j.push_back({{"core", k}, {"cycles", cycles}, {"dram_contention_cycles", contention}});
    line += fmt::format("{}core {} {:.0f} cycles (DRAM contention {:.0f})", k ? ", " : "", k,
                        cycles, contention);
  }
  return j;
}

// The pipeline's stages: per core its VTA layers, its segments (the layers between host layers,
// each one program part, a step apart) and estimate.
nlohmann::ordered_json pipeline_stages_json(const PipelinePlan& plan) {
  nlohmann::ordered_json j = nlohmann::ordered_json::array();
  for (size_t k = 0; k < plan.stages.size(); ++k) {
    const auto [first, last] = plan.stages[k];
    nlohmann::ordered_json names = nlohmann::ordered_json::array();
    double est = 0;
    for (int i = first; i < last; ++i) {
      names.push_back(plan.layer_names[size_t(i)]);
      est += plan.layer_cycles[size_t(i)];
    }
    nlohmann::ordered_json segments = nlohmann::ordered_json::array();
    for (const PipelineSegment& seg : plan.segments) {
      if (seg.core == int(k)) {
        segments.push_back(std::vector<std::string>(plan.layer_names.begin() + seg.first,
                                                    plan.layer_names.begin() + seg.last));
      }
    }
    j.push_back({{"core", k},
                 {"layers", names},
                 {"segments", segments},
                 {"estimated_cycles_per_input", est}});
  }
  return j;
}

}  // namespace

void report_split(const SplitChoice& choice, const std::vector<LayerRun>& runs,
                  nlohmann::ordered_json& extra) {
  if (choice.cores < 2) {
    return;
  }
  nlohmann::ordered_json m;
  m["cores"] = choice.cores;
  m["split"] = network_split_name(choice.split);
  m["reason"] = choice.reason;
  m["candidates"] = nlohmann::ordered_json::array();
  for (const SplitCandidate& c : choice.candidates) {
    m["candidates"].push_back({{"split", network_split_name(c.split)},
                               {"possible", c.why_not.empty()},
                               {"estimated_cycles", c.why_not.empty() ? c.est_cycles : 0.0},
                               {"why_not", c.why_not}});
  }
  if (choice.split == NetworkSplit::kPipeline) {
    m["stages"] = pipeline_stages_json(choice.pipeline);
  }
  std::string line;
  m["per_core"] = core_totals(choice.cores, runs, line);
  m["layers"] = nlohmann::ordered_json::object();
  for (const LayerRun& r : runs) {
    m["layers"][r.name] = r.split;
  }
  extra["multicore"] = m;
  if (!runs.empty() && runs.front().stats.timed) {
    extra["summary_lines"].push_back("cores: " + line);
  }
}

Target setup_target(const CommonOptions& o, bool verify) {
  Target target(resolve_config(o.config, o.sets).config,
                o.backend.empty() ? backend_name_from_env() : o.backend);
  target.verify_programs = verify;
  if (o.max_cycles > UINT32_MAX) {  // VTASynchronize's wait_cycles is 32-bit
    throw UsageError(fmt::format("--max-cycles {} is out of range 1..{} for a compiled workload",
                                 o.max_cycles, UINT32_MAX));
  }
  target.max_cycles = o.max_cycles != 0 ? static_cast<uint32_t>(o.max_cycles) : 1u << 31;
  Backend& backend = target.runtime->backend();
  apply_trace_options(o, backend);
  apply_budget(o, backend);
  if (!o.trace_path.empty()) {
    // Layers and tuning candidates become named slices on top-level tracks of the trace.
    target.on_step_begin = [&backend](const std::string& track, const std::string& name) {
      backend.begin_trace_slice(track, name);
    };
    target.on_step_end = [&backend](const std::string& track, const Stats& counters) {
      backend.end_trace_slice(track, counters);
    };
  }
  return target;
}

int finish_compiler_command(const CommonOptions& o, const Target& target,
                            const std::string& command, const std::string& program,
                            const std::vector<LayerRun>& runs, nlohmann::ordered_json extra,
                            const std::string& plot_path) {
  std::cout << format_report(runs);
  const nlohmann::ordered_json own_summary = take_command_summary(extra);
  RunReport rr;
  rr.command = command;
  rr.program = program;
  rr.backend = target.backend;
  rr.config = target.config.model_name;
  rr.resolved = resolve_config(o.config, o.sets);  // the same keys, with their label and hash
  for (const LayerRun& r : runs) {
    rr.wall_seconds += r.wall_seconds;
    rr.stats.add_counts(r.stats);
    rr.stats.timed = r.stats.timed;
  }
  if (runs.size() == 1) {
    rr.stats = runs.front().stats;  // complete, with the backend's own counters
    std::cout << "\n";
    print_report(std::cout, rr);
  }
  nlohmann::ordered_json rep = report_to_json(runs);
  // A layer split over the cores reports every core's counts added (explore::CoreCounts).
  constexpr auto kSummed = explore::CoreCounts::kSummed;
  for (size_t i = 0; i < runs.size(); ++i) {
    rep["layers"][i]["energy_j"] =
        explore::estimate_system_energy(target.config, runs[i].stats, kSummed).total.total_joules();
  }
  for (auto it = rep.begin(); it != rep.end(); ++it) {
    extra[it.key()] = *it;
  }
  for (auto it = own_summary.begin(); it != own_summary.end(); ++it) {
    extra["summary"][it.key()] = *it;
  }
  extra["area"] = area_json(target.config);
  extra["energy"] =
      explore::estimate_system_energy(target.config, rr.stats, kSummed).total.to_json();
  print_design_lines(std::cout, extra["area"], extra["energy"]);
  rr.extra = std::move(extra);
  write_json_report(o, rr);
  if (!plot_path.empty()) {
    draw_plot(o, rr, plot_path);
  }
  size_t bad = 0;
  std::string first;
  for (const LayerRun& r : runs) {
    if (r.mismatches) {
      if (!bad) {
        first = r.name + ": " + r.first_mismatch;
      }
      bad += r.mismatches;
    }
  }
  if (bad) {
    throw Error(fmt::format("{} result differs from the C++ reference in {} element(s) (first: {})",
                            command, bad, first));
  }
  return 0;
}

}  // namespace vta::cli
