// vtasim network: compile a network (the built-in resnet18, a JSON description or MODEL.onnx)
// through the pass pipeline (passes/pass_manager.h), then run it layer by layer
// through the runtime, every VTA layer checked against the C++ reference, and print one report
// row per layer plus the totals.
#include <algorithm>
#include <climits>
#include <cmath>
#include <fstream>
#include <iostream>
#include <optional>

#include <fmt/format.h>

#include "cli_common.h"
#include "compiler_command.h"
#include "vta/compiler/codegen/lowered_program.h"
#include "vta/compiler/frontend/network.h"
#include "vta/compiler/frontend/onnx_import.h"
#include "vta/compiler/frontend/quantize.h"
#include "vta/compiler/ops/op_def.h"
#include "vta/compiler/passes/pass_manager.h"
#include "vta/compiler/reports/report.h"
#include "vta/compiler/run/host_cpu.h"
#include "vta/compiler/run/layer_widths.h"
#include "vta/compiler/run/network_workers.h"
#include "vta/compiler/run/progress_display.h"

namespace vta::cli {

using namespace vta::compiler;

namespace {

// The layers placed on VTA on the design `cfg` (choose_placement, as the runner places them).
size_t vta_layer_count(const ir::Module& m, const HwConfig& cfg) {
  size_t n = 0;
  for (const NetworkLayer& l : m.net->layers) {
    auto in = m.types.find(l.input);
    const PlacementChoice p = in != m.types.end() ? choose_placement(l, in->second.shape, &cfg)
                                                  : PlacementChoice{op_def(l.op).place(l), {}};
    n += p.place == Placement::kVta ? 1 : 0;
  }
  return n;
}

// The options of `vtasim network MODEL.onnx`.
struct ModelOptions {
  QuantOptions quant;
  std::string quant_text;  // --quant (QuantOptions::set_quant)
  std::string input;       // --input FILE
};

void add_model_options(po::options_description& desc, ModelOptions& m) {
  auto add = desc.add_options();
  add("calib", po::value(&m.quant.calib)->default_value(4),
      "MODEL.onnx: calibration inputs (seeded N(0,1)) of the quantization");
  add("quant", po::value(&m.quant_text)->default_value("max"),
      "MODEL.onnx: calibration mode, max or percentile (99.99th of |x|), and / or weight "
      "scales, per-tensor or per-channel (one shift per output channel): e.g. max,per-channel");
  add("input", po::value(&m.input),
      "MODEL.onnx: raw float32 NCHW file of the model's input shape to run (also the first "
      "calibration input)");
}

void check_model_options(const po::variables_map& vm, const std::string& name, ModelOptions& m) {
  check_option_range(vm, "calib", 1, 1000);
  if (!is_onnx_model(name) && !m.input.empty()) {
    throw UsageError("--input needs a MODEL.onnx network");
  }
  try {
    m.quant.set_quant(m.quant_text);
  } catch (const Error& e) {
    throw UsageError(std::string("--quant: ") + e.what());
  }
  if (name.empty()) {
    throw UsageError("vtasim network needs a network (resnet18, a JSON file or MODEL.onnx)");
  }
}

// The pass pipeline's options: --list-passes, --print-before / --print-after PASS|all,
// --stop-after PASS, --dump-ir FILE.
struct PipelineOptions {
  bool list = false;
  std::vector<std::string> print_before, print_after;
  std::string stop_after, dump_ir;
  std::string print_lowered;  // a VTA op's name, or "all"
};

void add_pipeline_options(po::options_description& desc, PipelineOptions& p) {
  auto add = desc.add_options();
  add("list-passes", po::bool_switch(&p.list), "list the compiler's passes in order and exit");
  add("print-before", po::value(&p.print_before)->composing(),
      "print the IR before pass PASS (or all; repeatable)");
  add("print-after", po::value(&p.print_after)->composing(),
      "print the IR after pass PASS (or all; repeatable)");
  add("stop-after", po::value(&p.stop_after), "compile up to pass PASS and exit without a run");
  add("dump-ir", po::value(&p.dump_ir), "write the IR after the last pass to FILE");
  add("print-lowered", po::value(&p.print_lowered)->implicit_value("all"),
      "print the lowered program of VTA op LAYER (default: of every VTA op) and exit");
}

// The instrument of the pipeline's run; pass names checked (bad usage otherwise).
PassInstrument pipeline_instrument(const PassManager& pm, const PipelineOptions& p,
                                   std::ostream& out) {
  PassInstrument inst;
  try {
    for (const std::string& n : p.print_before) {
      pm.check_pass_name(n, "--print-before");
      inst.print_before.insert(n);
    }
    for (const std::string& n : p.print_after) {
      pm.check_pass_name(n, "--print-after");
      inst.print_after.insert(n);
    }
    if (!p.stop_after.empty()) {
      pm.check_pass_name(p.stop_after, "--stop-after");
    }
  } catch (const Error& ex) {
    throw UsageError(ex.what());
  }
  inst.stop_after = p.stop_after;
  inst.out = &out;
  return inst;
}

// Compiles the network through the pass pipeline (up to quantize for --print-json, which needs
// no target); --dump-ir writes the last IR.
ir::Module compile(const std::string& name, int batch, const ModelOptions& m,
                   const CommonOptions& common, const PipelineOptions& p, bool print_json,
                   size_t tune) {
  const PassManager pm = network_pipeline();
  PassContext ctx;
  ctx.source = name, ctx.batch = batch, ctx.quant = m.quant, ctx.input_path = m.input;
  ctx.quant.progress = common.progress_flags();
  ctx.tune_candidates = tune;
  PassInstrument inst = pipeline_instrument(pm, p, print_json ? std::cerr : std::cout);
  if (print_json && inst.stop_after.empty()) {
    inst.stop_after = "quantize";
  } else if (!print_json) {
    ctx.config = resolve_config(common.config, common.sets).config;
  }
  ir::Module module;
  pm.run(module, ctx, inst);
  if (!p.dump_ir.empty()) {
    std::ofstream f(p.dump_ir);
    f << ir::print_module(module);
    if (!f) {
      throw Error("cannot write the IR to " + p.dump_ir);
    }
  }
  return module;
}

// The header of an op's lowered program: a convolution's shape, epilogue and schedule, or an
// ALU-only op's operator and shapes.
std::string op_lowered_header(const ir::Module& m, const NetworkLayer& l, const HwConfig& cfg) {
  const TensorShape in = m.types.at(l.input).shape;
  const VtaLowering& vta = op_def(l.op).vta;
  if (!vta.vta_conv || !l.schedule) {
    return fmt::format("// lowered program of {}: {} {} -> {} on VTA's ALU, config {}\n", l.name,
                       l.op, in.str(), m.types.at(l.name).shape.str(), cfg.model_name);
  }
  const Conv2dParams p = vta.vta_conv(l, in, cfg);
  return lowered_header(l.name, p.describe(), l.epilogue, *l.schedule, cfg);
}

// --print-lowered: the lower pass's program of one VTA op or of all of them.
void print_lowered_ops(const ir::Module& m, const std::string& which, const HwConfig& cfg) {
  std::string names;
  bool found = false;
  for (size_t i = 0; i < m.ops.size(); ++i) {
    const NetworkLayer& l = m.net->layers[i];
    if (!m.ops[i].lowered) {
      continue;
    }
    names += (names.empty() ? "" : ", ") + l.name;
    if (which == "all" || which == l.name) {
      std::cout << op_lowered_header(m, l, cfg) << format_lowered(*m.ops[i].lowered) << "\n";
      found = true;
    }
  }
  if (!found) {
    throw UsageError(fmt::format("--print-lowered {}: no lowered VTA op of that name (lowered: {})",
                                 which, names.empty() ? "none" : names));
  }
}

// The quantization report of MODEL.onnx (on stderr under --print-json, which prints the JSON).
void print_model_report(const std::optional<QuantizedModel>& model, bool print_json) {
  if (model) {
    (print_json ? std::cerr : std::cout) << model->describe();
  }
  if (model && print_json) {
    std::cerr << "note: the JSON holds the model's structure, not its weights\n";
  }
}

// The report's "frontend" key: the quantization report of MODEL.onnx.
void add_model_report(const std::optional<QuantizedModel>& model, const std::string& path,
                      nlohmann::ordered_json& extra) {
  if (model) {
    extra["frontend"] = model->to_json();
    extra["frontend"]["model"] = path;
  }
}

// The output of the quantized model on VTA must equal its int8 reference bit for bit; returns
// the error otherwise.
std::string check_model_output(const QuantizedModel& model, const NetworkRun& r,
                               nlohmann::ordered_json& extra) {
  size_t differ = 0;
  const bool same = output_matches_reference(model, r, &differ);
  extra["frontend"]["output_matches_reference"] = same;
  const LayerWidths& w = model.options.widths;  // int8, or the reference at the config's lanes
  const std::string ref = w.is_int8() ? "int8 reference" : "reference at " + w.describe();
  std::cout << fmt::format(
      "  end to end: the VTA output {} the {} of the quantized "
      "graph ({} values{})\n",
      same ? "equals" : "DIFFERS FROM", ref, std::max(r.output.size(), r.wide_output.size()),
      same ? "" : fmt::format(", {} differ", differ));
  return same ? std::string()
              : fmt::format(
                    "network {}: the output differs from the {} of the "
                    "quantized graph in {} of {} values",
                    model.net.name, ref, differ, std::max(r.output.size(), r.wide_output.size()));
}

// Host time and the end-to-end latency of an imported model. Serial: a host layer starts when
// the VTA layer before it has finished and the next VTA layer waits for it (the runtime runs
// the layers in order on one thread), so end to end = VTA + host.
void report_host_time(const QuantizedModel& model, const NetworkRun& r, double clock_mhz,
                      nlohmann::ordered_json& extra) {
  uint64_t cycles = 0;
  for (const LayerRun& l : r.runs) {
    cycles += l.stats.cycles;
  }
  const double vta_us = double(cycles) / clock_mhz;
  const double total = vta_us + model.host_us;
  std::cout << fmt::format("  host: {:.1f} us on {} ({} host layers, {:.1f} % of the MACs)\n",
                           model.host_us, model.host_cpu, r.host_ops.size(),
                           100.0 * double(model.host_macs) /
                               double(std::max<uint64_t>(model.host_macs + model.vta_macs, 1)));
  auto& fe = extra["frontend"];
  auto& summary = extra["summary"];  // joins the report's summary (finish_compiler_command)
  summary["host_time_us"] = model.host_us;
  summary["host_mac_share"] =
      double(model.host_macs) / double(std::max<uint64_t>(model.host_macs + model.vta_macs, 1));
  if (cycles) {
    summary["vta_time_us"] = vta_us;
    summary["end_to_end_us"] = total;
    std::cout << fmt::format(
        "  end to end (serial: VTA + host): {:.1f} us = {:.1f} us VTA at {:g} MHz + {:.1f} us "
        "host ({:.1f} % on the host)\n",
        total, vta_us, clock_mhz, model.host_us, 100.0 * model.host_us / total);
    fe["vta_time_us"] = vta_us;
    fe["end_to_end_us"] = total;
    fe["host_time_share"] = model.host_us / total;
  }
}

// One row per host layer, with its modelled time on the board's CPU when the model was timed
// (the host layers run in the network's order, as QuantizedModel lists them).
void print_host_rows(const std::optional<QuantizedModel>& model, const NetworkRun& r) {
  std::vector<const QuantLayerReport*> host;
  for (const QuantLayerReport& l : model ? model->layers : std::vector<QuantLayerReport>{}) {
    if (!l.on_vta) {
      host.push_back(&l);
    }
  }
  const bool timed = model && !model->host_cpu.empty() && host.size() == r.host_ops.size();
  for (size_t i = 0; i < r.host_ops.size(); ++i) {
    std::cout << "  host: " << r.host_ops[i]
              << (timed ? fmt::format(", {:.1f} us on {}", host[i]->host_us, model->host_cpu)
                        : std::string())
              << "\n";
  }
}

// The front end's wall times, apart from the simulation's: a line under the summary and the
// summary's import_seconds / quantize_seconds.
void report_frontend_time(const QuantizedModel& model, nlohmann::ordered_json& extra) {
  extra["summary"]["import_seconds"] = model.import_seconds;
  extra["summary"]["quantize_seconds"] = model.quantize_seconds;
  extra["summary_lines"].push_back(fmt::format(
      "front end: import {:.3f} s, quantize {:.3f} s ({} calibration sample(s) in float and as "
      "the int8 reference), not in the wall time above",
      model.import_seconds, model.quantize_seconds, model.options.calib));
  if (!model.host_cpu.empty()) {
    const auto& summary = extra["summary"];
    extra["summary_lines"].push_back(fmt::format(
        "host: {:.1f} us on {} ({:.1f} % of the MACs){}", model.host_us, model.host_cpu,
        100.0 * summary.value("host_mac_share", 0.0),
        summary.contains("end_to_end_us") ? fmt::format("; end to end {:.1f} us (VTA + host)",
                                                        summary["end_to_end_us"].get<double>())
                                          : std::string()));
  }
}

// With --trace, every host layer of a timed model becomes a slice on the trace's "host" track:
// its modelled time at the design's clock, placed after the layer before it, the next VTA layer
// starting after it (serial, as report_host_time counts end to end).
void trace_host_layers(const CommonOptions& common, Target& target,
                       const std::optional<QuantizedModel>& model) {
  if (common.trace_path.empty() || !model || model->host_cpu.empty()) {
    return;
  }
  Backend& backend = target.runtime->backend();
  const double mhz = target.config.clock_mhz;
  target.on_host_layer = [&backend, &model, mhz](const std::string& layer) {
    for (const QuantLayerReport& l : model->layers) {
      if (l.name == layer && !l.on_vta) {
        const auto cycles = static_cast<uint64_t>(std::llround(l.host_us * mhz));
        backend.add_trace_slice(
            "host",
            fmt::format("{} {}: {:.1f} us on {}", l.ops, l.name, l.host_us, model->host_cpu),
            cycles, {{"macs", l.macs}, {"bytes", l.bytes}, {"values", l.values}});
        return;
      }
    }
  };
}

// One line per finished VTA layer (unless --quiet) and the progress display.
void report_layer(ProgressDisplay& progress, bool quiet, const LayerRun& r,
                  std::vector<LayerRun>& done) {
  if (!quiet) {
    progress.note(fmt::format("  {:<20} {:<40} {} {}", r.name, r.shape, r.schedule.describe(),
                              !r.checked ? "" : (r.mismatches ? "MISMATCH" : "ok")));
  }
  done.push_back(r);
  size_t mismatched = 0;
  for (const LayerRun& d : done) {
    mismatched += d.mismatches ? 1 : 0;
  }
  progress.update(done.size(), mismatched);
}

constexpr int kMaxNetworkJobs = 256;  // worker processes of -j

// -j N: 1..kMaxNetworkJobs; traces record one process's time line, so only with -j 1.
void check_jobs_option(const po::variables_map& vm, const CommonOptions& common, int jobs) {
  check_option_range(vm, "jobs", 1, kMaxNetworkJobs);
  if (jobs > 1 && !(common.trace_path.empty() && common.vcd_path.empty())) {
    throw UsageError("--trace and --vcd record one process's time line: use them with -j 1");
  }
}

// What a failed run's report needs: the progress display, the layers done and the one running.
struct RunState {
  ProgressDisplay& progress;
  const std::vector<LayerRun>& done;
  const std::string& current;
};

// Runs the network (-j N: on worker processes). On a failure, the report so far (layers done,
// the failure named) is still written and the error names the layer (exit 1); under -j the
// workers name it (`done` holds exactly the layers before it).
NetworkRun run_or_report_failure(const CommonOptions& common, const Target& target,
                                 const Network& net, const NetworkOptions& opt, int jobs,
                                 const RunState& state, nlohmann::ordered_json& extra) {
  try {
    NetworkRun r =
        jobs > 1 ? run_network_parallel(target, net, opt, jobs) : run_network(target, net, opt);
    state.progress.finish();
    return r;
  } catch (const Error& ex) {
    state.progress.finish();
    const auto* failed = dynamic_cast<const NetworkLayerError*>(&ex);
    const std::string layer = failed ? failed->layer : state.current;
    extra["failure"] = {{"layer", layer}, {"error", ex.what()}};
    finish_compiler_command(common, target, "network", net.name, state.done, extra);
    throw Error(fmt::format("network {}: layer '{}': {}", net.name, layer, ex.what()));
  }
}

// Every option of `vtasim network`.
struct NetworkCommand {
  CommonOptions common;
  std::string name, plot_path;
  int tune = 0, batch = 1, jobs = 1;
  bool no_check = false, print_json = false;
  std::string split;
  ModelOptions model;
  PipelineOptions pipeline;
};

void add_network_options(po::options_description& desc, NetworkCommand& c) {
  add_common_options(desc, c.common);
  add_plot_option(desc, c.plot_path);
  auto add = desc.add_options();
  add("network", po::value(&c.name), "resnet18, a network JSON file or MODEL.onnx");
  add("batch", po::value(&c.batch)->default_value(1), "batch size of the built-in resnet18");
  add("tune", po::value(&c.tune)->implicit_value(4),
      "tune every convolution with the N best-estimated schedules (default 4)");
  add("no-check", po::bool_switch(&c.no_check), "skip the checks against the C++ reference");
  add("jobs,j", po::value(&c.jobs)->default_value(1),
      "simulate the layers in N worker processes (same results as -j 1)");
  add("print-json", po::bool_switch(&c.print_json),
      "print the network description as JSON (a starting point for your own) and exit");
  add_model_options(desc, c.model);
  add_pipeline_options(desc, c.pipeline);
  add_split_option(desc, c.split);
}

// Runs the compiled network on the target and reports it.
// The split of the network on the target's cores (printed), for -j 1 only.
SplitChoice network_split_choice(const NetworkCommand& c, const po::variables_map& vm,
                                 const Network& net, const HwConfig& cfg) {
  const NetworkSplit asked = split_option(vm, c.split, cfg);
  if (cfg.num_cores() < 2) {
    return SplitChoice{};
  }
  if (c.jobs > 1 && asked != NetworkSplit::kNone) {
    throw UsageError("a split over the cores runs in one process: use -j 1 (or --split none)");
  }
  SplitChoice choice;
  try {
    choice = choose_network_split(net, cfg, asked);
  } catch (const Error& e) {
    throw UsageError(std::string("--split: ") + e.what());
  }
  std::cout << "split: " << choice.reason << "\n";
  return choice;
}

int run_compiled_network(NetworkCommand& c, const po::variables_map& vm, const ir::Module& module) {
  const Network& net = *module.net;
  Target target = setup_target(c.common, !c.no_check);
  check_network_widths(target.config, net.name);
  if (module.quantized && module.quantized->options.widths != LayerWidths::of(target.config)) {
    throw Error(fmt::format("network {}: quantized to {} lanes, config {} has {}", net.name,
                            module.quantized->options.widths.describe(), target.config.model_name,
                            LayerWidths::of(target.config).describe()));
  }
  std::optional<QuantizedModel> timed = module.quantized;
  if (timed) {
    timed->time_host(host_cpu_for(target.config.target), &target.config);
  }
  const std::optional<QuantizedModel>& model = timed;
  NetworkOptions opt;
  opt.check = !c.no_check;
  opt.tune_candidates = size_t(c.tune);
  const SplitChoice choice = network_split_choice(c, vm, net, target.config);
  opt.layer_split = layer_split_of(choice.split);
  opt.pipeline = choice.split == NetworkSplit::kPipeline;
  std::vector<LayerRun> done;  // the layers finished so far, for the report of a failed run
  // A pipeline reports its steps (each a run of all cores).
  ProgressDisplay progress(
      "network " + net.name, opt.pipeline ? "pipeline steps" : "VTA layers",
      opt.pipeline ? size_t(choice.pipeline.steps()) : vta_layer_count(module, target.config),
      c.common.progress_flags());
  opt.on_layer = [&](const LayerRun& r) { report_layer(progress, c.common.quiet, r, done); };
  std::string current;  // the VTA layer running
  const auto begin_step = target.on_step_begin;
  target.on_step_begin = [&](const std::string& track, const std::string& step) {
    current = track == "layers" ? step : current;
    if (begin_step) {
      begin_step(track, step);
    }
  };
  std::cout << fmt::format("network {}: input {}x{}x{}x{}, {} layers\n", net.name, net.n, net.c,
                           net.h, net.w, net.layers.size());
  trace_host_layers(c.common, target, model);
  nlohmann::ordered_json extra;
  extra["network"] = net.name;
  add_model_report(model, c.name, extra);
  const NetworkRun r =
      run_or_report_failure(c.common, target, net, opt, c.jobs, {progress, done, current}, extra);
  print_host_rows(model, r);
  extra["host_ops"] = r.host_ops;
  report_split(choice, r.runs, extra);
  const std::string mismatch = model ? check_model_output(*model, r, extra) : std::string();
  if (model) {
    report_host_time(*model, r, target.config.clock_mhz, extra);
    report_frontend_time(*model, extra);
  }
  const int status =
      finish_compiler_command(c.common, target, "network", net.name, r.runs, extra, c.plot_path);
  if (!mismatch.empty()) {
    throw Error(mismatch);
  }
  return status;
}

}  // namespace

int cmd_network(int argc, char** argv) {
  return guarded([&] {
    NetworkCommand c;
    po::options_description desc("network options");
    add_network_options(desc, c);
    po::positional_options_description pos;
    pos.add("network", 1);
    po::variables_map vm;
    if (!parse_args(argc, argv, "vtasim network (resnet18 | FILE.json | MODEL.onnx) [options]",
                    desc, pos, vm)) {
      return 0;
    }
    check_option_range(vm, "batch", 1, kMaxTensorDim);
    check_option_range(vm, "tune", 1, INT_MAX);
    check_jobs_option(vm, c.common, c.jobs);
    if (c.pipeline.list) {
      std::cout << network_pipeline().list();
      return 0;
    }
    check_model_options(vm, c.name, c.model);
    if (!c.pipeline.print_lowered.empty() && (c.tune || c.print_json)) {
      throw UsageError(
          "--print-lowered prints the programs of the automatic or given schedules: it excludes "
          "--tune and --print-json");
    }
    const ir::Module module =
        compile(c.name, c.batch, c.model, c.common, c.pipeline, c.print_json, size_t(c.tune));
    print_model_report(module.quantized, c.print_json);
    if (c.print_json && !module.net) {
      throw UsageError("--print-json needs the int8 network: stop after quantize or later");
    }
    if (c.print_json) {
      std::cout << module.net->to_json().dump(2) << "\n";
      return 0;
    }
    if (!c.pipeline.print_lowered.empty()) {
      print_lowered_ops(module, c.pipeline.print_lowered,
                        resolve_config(c.common.config, c.common.sets).config);
      return 0;
    }
    return c.pipeline.stop_after.empty() ? run_compiled_network(c, vm, module) : 0;
  });
}

}  // namespace vta::cli
