#include "vta/explore/sweep_job.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <new>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "vta/compiler/reports/layer_fields.h"
#include "vta/compiler/reports/report.h"
#include "vta/compiler/run/layer_widths.h"
#include "vta/compiler/run/wide_layer_runner.h"
#include "vta/compiler/scheduling/schedule.h"
#include "vta/explore/area_model.h"
#include "vta/explore/design_verdict.h"
#include "vta/explore/energy_model.h"
#include "vta/explore/system_area.h"
#include "vta/explore/system_energy.h"
#include "vta/sim/config_source.h"
#include "vta/sim/isa.h"
#include "vta/sim/text_hash.h"
#include "vta/sim/version.h"

namespace vta::explore {

using namespace vta::compiler;

namespace {

// Columns shared by every row of the job: identity, status, the design.
nlohmann::ordered_json base_row(const SweepSpec& spec, const SweepJob& job) {
  const DesignPoint& p = *job.point;
  nlohmann::ordered_json r;
  r["point"] = p.index;
  r["point_id"] = p.id;
  r["workload"] = spec.workloads[job.workload].text;
  r["workload_index"] = job.workload;
  r["backend"] = spec.backend;
  r["schedule"] = spec.schedule;
  r["settings_id"] = settings_id(spec, job);
  r["layer_index"] = -1;
  r["row_kind"] = "summary";
  r["layer"] = nullptr;
  r["status"] = "ok";
  r["error"] = nullptr;
  r["config_label"] = config_label(spec.base, spec.base_keys, p.keys);
  r["precision"] = precision_label(p.keys);  // the widths by name ("int8", "int4/int4/int16")
  r["config_hash"] = nullptr;
  r["model"] = nullptr;
  // Systems (docs/multicore.md): the CORES key as written (null without it), the number of
  // cores, and how a workload ran on them (multicore_mode). A point of the split mode says so on
  // every row (it is another design than the same config replicated), and has the column of the
  // split the compiler chose.
  r["CORES"] = nullptr;
  r["core_count"] = nullptr;
  r["multicore_mode"] = p.multicore_mode == "split" ? nlohmann::ordered_json("split") : nullptr;
  if (p.multicore_mode == "split") {
    r["split"] = nullptr;
  }
  for (auto it = p.keys.begin(); it != p.keys.end(); ++it) {
    r[it.key()] = it.value();
  }
  r["version"] = simulator_version();
  r["wall_seconds"] = 0.0;
  return r;
}

// A counter name as a column: "gemm.busy_cycles" -> "gemm_busy_cycles".
std::string column_name(std::string name) {
  for (char& c : name) {
    c = (c == '.' || c == '-' || c == ' ') ? '_' : c;
  }
  return name;
}

// The design's FPGA resources (area model), what the verdicts need of it, and its verdict on
// the board's device: resources, memory port and clock (design_verdict.h).
void add_area(nlohmann::ordered_json& r, const HwConfig& cfg) {
  // A system's area is its cores' and its interconnect's (system_area.h); a single core's is
  // the core's own.
  const SystemArea sys = estimate_system_area(cfg);
  const AreaEstimate& a = sys.total;
  r["area_interconnect_lut"] = sys.interconnect.lut;
  r["area_interconnect_ff"] = sys.interconnect.ff;
  r["area_lut"] = a.total.lut;
  r["area_lutram"] = a.total.lutram;
  r["area_ff"] = a.total.ff;
  r["area_dsp"] = a.total.dsp;
  r["area_bram36"] = a.total.bram36;
  r["area_extrapolated"] = !a.extrapolated.empty();
  r["area_extrapolation"] =
      a.extrapolated.empty()
          ? nlohmann::ordered_json()
          : nlohmann::ordered_json(fmt::format("{}", fmt::join(a.extrapolated, "; ")));
  const DesignTraits d = design_traits(cfg, a.total);
  r["bus_bits"] = d.bus_bits;
  r["gemm_macs"] = d.macs;
  const FpgaDevice* dev = find_device(cfg.target);
  r["device"] = dev != nullptr ? nlohmann::ordered_json(dev->part) : nullptr;
  if (dev == nullptr) {
    r["fits"] = nullptr;
    r["fit_binding"] = nullptr;
    return;
  }
  const DesignVerdict v = judge_design(d, *dev);
  const nlohmann::ordered_json columns = v.to_json();
  for (auto it = columns.begin(); it != columns.end(); ++it) {
    r[it.key()] = it.value();
  }
}

// The energy model's estimate of what `s` counted, in total and by component. In the split mode
// the layers' counters hold every core's counts (a layer split over the cores).
void add_energy(nlohmann::ordered_json& r, const HwConfig& cfg, const Stats& s) {
  const bool split = r["multicore_mode"] == "split";
  const SystemEnergy sys =
      estimate_system_energy(cfg, s, split ? CoreCounts::kSummed : CoreCounts::kOwn);
  const EnergyEstimate& e = sys.total;
  if (cfg.cores != 0) {
    for (size_t k = 0; k < sys.core_joules.size(); ++k) {
      r[fmt::format("energy_core{}_j", k)] = sys.core_joules[k];
    }
  }
  r["energy_j"] = e.total_joules();
  r["energy_extrapolated"] = !e.extrapolated.empty();
  for (const EnergyPart& part : e.parts) {
    r["energy_" + column_name(part.name) + "_j"] = part.joules;
  }
}

// Counters of one layer, or summed over layers (ratios and rates are not summed), and the
// energy they imply on design `cfg`.
void add_counters(nlohmann::ordered_json& r, const std::vector<const LayerRun*>& runs,
                  const HwConfig& cfg) {
  Stats t;
  std::vector<NamedCounter> extra;
  for (const LayerRun* run : runs) {
    const Stats& s = run->stats;
    t.add_counts(s);
    t.timed = s.timed;
    for (const NamedCounter& c : s.extra) {
      const bool summable = c.unit != "ratio" && c.unit.find('/') == std::string::npos;
      if (runs.size() > 1 && !summable) {
        continue;
      }
      auto it = std::find_if(extra.begin(), extra.end(),
                             [&](const NamedCounter& e) { return e.name == c.name; });
      if (it == extra.end()) {
        extra.push_back(c);
      } else {
        it->value += c.value;
      }
    }
  }
  r["inp_load_nbytes"] = t.inp_load_nbytes;
  r["wgt_load_nbytes"] = t.wgt_load_nbytes;
  r["acc_load_nbytes"] = t.acc_load_nbytes;
  r["uop_load_nbytes"] = t.uop_load_nbytes;
  r["out_store_nbytes"] = t.out_store_nbytes;
  r["gemm_counter"] = t.gemm_counter;
  r["alu_counter"] = t.alu_counter;
  r["runs"] = t.runs;
  for (uint32_t op = 0; op <= kOpAlu; ++op) {
    r[column_name(std::string("insn_") + opcode_name(op))] = t.insn_count[op];
  }
  for (const NamedCounter& c : extra) {
    r[column_name(c.name)] = c.value;
  }
  t.extra = extra;  // a system's per-core counters (coreK.*) give each core's energy
  add_energy(r, cfg, t);
}

// Cycles, time at the clock and the compiler's figures of a run (or the total of a job).
void add_figures(nlohmann::ordered_json& r, const LayerRun& run, double clock_mhz) {
  const bool timed = run.stats.timed;
  r["time_s"] =
      timed ? nlohmann::ordered_json(double(run.stats.cycles) / (clock_mhz * 1e6)) : nullptr;
  for (const LayerField& f : layer_fields()) {
    if (f.in_sweep_row) {
      r[f.key] = field_value(f, run);
    }
  }
}

// A system's figures in the replicated mode (every core runs the same workload together): the
// run takes the system's cycles, first start to last FINISH ("system.cycles", summed over the
// layers), in which it does `cores` copies of the work; `throughput_per_s` is copies per second
// at the clock (images per second of a network, layers of a layer). A single core does one copy
// in its own cycles, and so does a system in the split mode: its layers' cycles are already the
// system's for a layer split over the cores, core 0's for one it ran alone.
void add_throughput(nlohmann::ordered_json& r, const std::vector<const LayerRun*>& runs,
                    const HwConfig& cfg) {
  const bool split = r["multicore_mode"] == "split";
  r["copies"] = split ? 1 : cfg.num_cores();
  if (r["time_s"].is_null()) {
    r["throughput_per_s"] = nullptr;
    return;
  }
  if (cfg.cores != 0 && !split) {
    double cycles = 0;
    for (const LayerRun* run : runs) {
      const NamedCounter* c = run->stats.find("system.cycles");
      cycles += c != nullptr ? c->value : static_cast<double>(run->stats.cycles);
    }
    r["cycles"] = static_cast<uint64_t>(cycles);
    r["time_s"] = cycles / (cfg.clock_mhz * 1e6);
  }
  const double t = r["time_s"].get<double>();
  r["throughput_per_s"] = t > 0 ? nlohmann::ordered_json(r["copies"].get<int>() / t) : nullptr;
}

// The summed named counters' columns of the runs: a layer row starts them at 0, since a layer
// that ran on core 0 alone (the split mode: a layer the split cannot divide, an ALU layer) has
// no coreK.* counters of the other cores and must not keep the summary's.
std::vector<std::string> summed_counter_columns(const std::vector<LayerRun>& runs) {
  std::vector<std::string> cols;
  for (const LayerRun& run : runs) {
    for (const NamedCounter& c : run.stats.extra) {
      const bool summable = c.unit != "ratio" && c.unit.find('/') == std::string::npos;
      const std::string col = column_name(c.name);
      if (summable && std::find(cols.begin(), cols.end(), col) == cols.end()) {
        cols.push_back(col);
      }
    }
  }
  return cols;
}

std::vector<nlohmann::ordered_json> ok_rows(nlohmann::ordered_json summary,
                                            const std::vector<LayerRun>& runs,
                                            const HwConfig& cfg) {
  const LayerRun total = total_of(runs);
  std::vector<const LayerRun*> all;
  all.reserve(runs.size());
  for (const LayerRun& r : runs) {
    all.push_back(&r);
  }
  summary["layers"] = runs.size();
  summary["layer_schedule"] = nullptr;
  summary["shape"] = nullptr;
  add_figures(summary, total, cfg.clock_mhz);
  add_throughput(summary, all, cfg);
  add_counters(summary, all, cfg);
  std::vector<nlohmann::ordered_json> rows = {summary};
  const std::vector<std::string> counters = summed_counter_columns(runs);
  for (size_t i = 0; i < runs.size(); ++i) {
    nlohmann::ordered_json r = summary;
    for (const std::string& col : counters) {
      r[col] = 0;
    }
    r["layer_index"] = i;
    r["row_kind"] = "layer";
    r["layer"] = runs[i].name;
    r["layers"] = 1;
    r["layer_schedule"] = runs[i].schedule.describe();
    r["shape"] = runs[i].shape;
    if (r.contains("split")) {  // how this layer went to the cores
      r["layer_split"] =
          runs[i].split.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(runs[i].split);
    }
    r["wall_seconds"] = runs[i].wall_seconds;
    add_figures(r, runs[i], cfg.clock_mhz);
    add_throughput(r, {&runs[i]}, cfg);
    add_counters(r, {&runs[i]}, cfg);
    rows.push_back(std::move(r));
  }
  return rows;
}

// An imported model's columns on its summary row: the front end's times, the accuracy of the
// quantization, the MACs by place, the host layers' time on this design's board and the serial
// end-to-end time (time_s + host, timed backends).
void add_model_columns(nlohmann::ordered_json& r, const QuantizedModel* imported,
                       const HwConfig& cfg) {
  if (!imported) {
    return;
  }
  QuantizedModel model = *imported;
  model.time_host(host_cpu_for(cfg.target));
  r["import_seconds"] = model.import_seconds;
  r["quantize_seconds"] = model.quantize_seconds;
  r["cosine"] = model.cosine;
  r["cosine_mean"] = model.cosine_mean;
  r["top1_agreement"] = model.top1_agreement;
  r["vta_macs"] = model.vta_macs;
  r["host_macs"] = model.host_macs;
  r["host_cpu"] = model.host_cpu;
  r["host_time_us"] = model.host_us;
  r["end_to_end_s"] =
      r["time_s"].is_null()
          ? nlohmann::ordered_json(nullptr)
          : nlohmann::ordered_json(r["time_s"].get<double>() + model.host_us * 1e-6);
}

// Why a network workload cannot run on design `cfg` as {status, error}, or {} when it can (then
// `model` is a MODEL.onnx's quantization at the design's widths). Widths the network path or the
// quantizer does not hold (int32 lanes; ONNX models beyond 8-bit lanes) are "invalid": the design
// cannot hold the workload, on every rerun alike (docs/element_widths.md). A model that did not
// import, or did not quantize at these widths, is "failed".
std::pair<std::string, std::string> network_blocker(const SweepWorkload& w, const HwConfig& cfg,
                                                    const QuantizedModel*& model) {
  if (w.kind != SweepWorkload::Kind::kNetwork) {
    return {};
  }
  try {
    check_network_widths(cfg, w.text.substr(w.text.find(':') + 1));
  } catch (const Error& e) {
    return {"invalid", e.what()};
  }
  if (!w.onnx) {
    return {};
  }
  if (!w.import_error.empty()) {
    return {"failed", "import: " + w.import_error};
  }
  const LayerWidths lanes = LayerWidths::of(cfg);
  try {
    check_quantizable_widths(std::filesystem::path(w.model_path).stem().string(), lanes);
  } catch (const Error& e) {
    return {"invalid", e.what()};
  }
  const SweepWorkload::Quantized* q = w.quantized_at(lanes);
  if (q == nullptr) {
    return {"failed", fmt::format("the model was not quantized to {} lanes", lanes.describe())};
  }
  if (!q->error.empty()) {
    return {"failed",
            fmt::format("import: quantization to {} lanes: {}", lanes.describe(), q->error)};
  }
  model = q->model.get();
  return {};
}

// Why the replicated mode cannot run on design `cfg` ("" when it can): it runs one program,
// encoded for core 0, on every core, so the cores must be identical.
std::string replicated_blocker(const HwConfig& cfg) {
  const nlohmann::json first = cfg.core_config(0).to_json();
  for (int k = 1; k < cfg.num_cores(); ++k) {
    if (cfg.core_config(k).to_json() != first) {
      return fmt::format(
          "CORES: core {} differs from core 0; the replicated mode (the same program on every "
          "core) needs identical cores until the compiler splits a workload across cores",
          k);
    }
  }
  return "";
}

// Why the split mode cannot run on design `cfg` ("" when it can): the compiler encodes every
// core's part of a layer for core 0's config, and splits layers of lanes up to 8 bits only.
std::string split_blocker(const HwConfig& cfg) {
  if (cfg.num_cores() < 2) {
    return "";
  }
  const nlohmann::json first = cfg.core_config(0).to_json();
  for (int k = 1; k < cfg.num_cores(); ++k) {
    if (cfg.core_config(k).to_json() != first) {
      return fmt::format(
          "CORES: core {} differs from core 0; the compiler's split (multicore_mode 'split') "
          "encodes every core's part of a layer for core 0's config, so it needs identical cores",
          k);
    }
  }
  if (needs_wide_lanes(cfg)) {
    return fmt::format(
        "multicore_mode 'split': the compiler splits layers of lanes up to 8 bits over the cores; "
        "this design's are {}",
        LayerWidths::of(cfg).describe());
  }
  return "";
}

// How the job runs on the target: the spec's settings and, on a system, its multicore_mode.
// The split mode takes the compiler's choice of split (none on one core), noted in the rows'
// `split` and `split_reason` columns; the replicated mode runs the same program on every core
// together (N copies).
WorkloadOptions prepare_run(const SweepSpec& spec, const SweepWorkload& w, bool split,
                            Target& target, nlohmann::ordered_json& summary) {
  WorkloadOptions opt;
  opt.tune = spec.tune;
  opt.check = spec.check;
  opt.seed = spec.seed;
  if (split) {
    const SplitChoice choice = choose_workload_split(target, w);
    opt.split = choice.split;
    if (choice.cores > 1) {
      summary["split"] = network_split_name(choice.split);
      summary["split_reason"] = choice.reason;
    }
  } else if (target.config.cores != 0) {
    target.runtime->set_replicated_run(true);
    summary["multicore_mode"] = "replicated";
  }
  return opt;
}

// A reference mismatch fails the layer's row and the job's summary row (rows[0]).
void mark_mismatches(std::vector<nlohmann::ordered_json>& rows, const std::vector<LayerRun>& runs) {
  for (size_t i = 0; i < runs.size(); ++i) {
    if (runs[i].ok()) {
      continue;
    }
    const std::string why =
        fmt::format("{}: result differs from the C++ reference in {} element(s) (first: {})",
                    runs[i].name, runs[i].mismatches, runs[i].first_mismatch);
    for (nlohmann::ordered_json* r : {&rows[i + 1], &rows.front()}) {
      (*r)["status"] = "failed";
      if ((*r)["error"].is_null()) {
        (*r)["error"] = why;
      }
    }
  }
}

}  // namespace

std::string job_key(const SweepSpec& spec, const SweepJob& job) {
  return job.point->id + "|" + spec.workloads[job.workload].text + "|" + spec.backend + "|" +
         spec.schedule;
}

std::string settings_id(const SweepSpec& spec, const SweepJob& job) {
  const SweepWorkload& w = spec.workloads[job.workload];
  const bool seeded = w.kind != SweepWorkload::Kind::kNetwork;
  nlohmann::json settings = {{"check", spec.check},
                             {"seed", seeded ? nlohmann::json(spec.seed) : nullptr},
                             {"tune", spec.tune},
                             {"content", w.content_id}};
  if (w.onnx) {  // only then: the ids of other workloads stay those of older databases
    // The quantization text ("max", "max,per-channel"): per-tensor ids stay those of before.
    settings["model"] = {spec.quant.calib, spec.quant.quant(), spec.input_id};
  }
  return short_hash(settings.dump());
}

std::vector<nlohmann::ordered_json> run_job(const SweepSpec& spec, const SweepJob& job) {
  const auto start = std::chrono::steady_clock::now();
  nlohmann::ordered_json summary = base_row(spec, job);
  const auto finish = [&](const std::string& status, const std::string& error) {
    summary["status"] = status;
    summary["error"] = error;
    summary["wall_seconds"] =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return std::vector<nlohmann::ordered_json>{summary};
  };
  ResolvedConfig rc;
  try {
    rc = resolve_config_keys(summary["config_label"].get<std::string>(), job.point->keys, {});
  } catch (const ConfigError& e) {
    return finish("invalid", e.what());
  }
  summary["config_hash"] = rc.hash;
  summary["model"] = rc.config.model_name;
  summary["core_count"] = rc.config.num_cores();
  add_area(summary, rc.config);
  const SweepWorkload& w = spec.workloads[job.workload];
  const QuantizedModel* model = nullptr;
  if (const auto [status, why] = network_blocker(w, rc.config, model); !status.empty()) {
    return finish(status, why);
  }
  const bool split = job.point->multicore_mode == "split";
  if (const std::string why = split ? split_blocker(rc.config) : replicated_blocker(rc.config);
      !why.empty()) {
    return finish("invalid", why);
  }
  try {
    Target target(rc.config, spec.backend);
    target.verify_programs = spec.check;
    const WorkloadOptions opt = prepare_run(spec, w, split, target, summary);
    const std::vector<LayerRun> runs = run_workload(target, w, opt);
    summary["wall_seconds"] =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::vector<nlohmann::ordered_json> rows = ok_rows(summary, runs, rc.config);
    add_model_columns(rows.front(), model, rc.config);
    mark_mismatches(rows, runs);
    return rows;
  } catch (const ScheduleFitError& e) {
    return finish("invalid", e.what());
  } catch (const ConfigError& e) {
    return finish("invalid", e.what());
  } catch (const std::bad_alloc&) {
    return finish("failed", "out of memory (std::bad_alloc)");
  } catch (const std::exception& e) {
    return finish("failed", e.what());
  }
}

std::vector<nlohmann::ordered_json> lost_job_rows(const SweepSpec& spec, const SweepJob& job,
                                                  const std::string& status,
                                                  const std::string& error, double wall_seconds) {
  nlohmann::ordered_json r = base_row(spec, job);
  r["status"] = status;
  r["error"] = error;
  r["wall_seconds"] = wall_seconds;
  return {r};
}

}  // namespace vta::explore
