// vtasim network: run a network (the built-in resnet18 or a JSON description) layer by layer
// through the runtime, every VTA layer checked against the C++ reference, and print one report
// row per layer plus the totals.
#include <climits>
#include <iostream>
#include <optional>

#include <fmt/format.h>

#include "cli_common.h"
#include "compiler_command.h"
#include "vta/compiler/network.h"
#include "vta/compiler/network_workers.h"
#include "vta/compiler/onnx_import.h"
#include "vta/compiler/quantize.h"
#include "vta/compiler/report.h"
#include "vta/explore/progress.h"

namespace vta::cli {

using namespace vta::compiler;

namespace {

size_t vta_layer_count(const Network& net) {
  size_t n = 0;
  for (const NetworkLayer& l : net.layers) {
    n += l.on_vta() ? 1 : 0;
  }
  return n;
}

// The options of `vtasim network MODEL.onnx`.
struct ModelOptions {
  QuantOptions quant;
  std::string input;  // --input FILE
};

void add_model_options(po::options_description& desc, ModelOptions& m) {
  auto add = desc.add_options();
  add("calib", po::value(&m.quant.calib)->default_value(4),
      "MODEL.onnx: calibration inputs (seeded N(0,1)) of the quantization");
  add("quant", po::value(&m.quant.mode)->default_value("max"),
      "MODEL.onnx: calibration mode, max or percentile (99.99th of |x|)");
  add("input", po::value(&m.input),
      "MODEL.onnx: raw float32 NCHW file of the model's input shape to run (also the first "
      "calibration input)");
}

void check_model_options(const po::variables_map& vm, const std::string& name,
                         const ModelOptions& m) {
  check_option_range(vm, "calib", 1, 1000);
  if (!is_onnx_model(name) && !m.input.empty()) {
    throw UsageError("--input needs a MODEL.onnx network");
  }
  if (m.quant.mode != "max" && m.quant.mode != "percentile") {
    throw UsageError("--quant must be max or percentile (got '" + m.quant.mode + "')");
  }
  if (name.empty()) {
    throw UsageError("vtasim network needs a network (resnet18, a JSON file or MODEL.onnx)");
  }
}

// MODEL.onnx: imported, quantized (its report printed), the network with the model's weights.
Network load_onnx_network(const std::string& path, const ModelOptions& m,
                          std::optional<QuantizedModel>& model) {
  const FloatGraph graph = import_onnx(path);
  QuantOptions q = m.quant;
  if (!m.input.empty()) {
    q.first_input = read_float_input(graph, m.input);
  }
  model = quantize_graph(graph, q);
  return model->net;
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
  for (size_t i = 0; i < r.output.size() && i < model.reference_output.size(); ++i) {
    differ += r.output[i] != model.reference_output[i] ? 1 : 0;
  }
  const bool same = differ == 0 && r.output.size() == model.reference_output.size();
  extra["frontend"]["output_matches_reference"] = same;
  std::cout << fmt::format(
      "  end to end: the VTA output {} the int8 reference of the quantized "
      "graph ({} values{})\n",
      same ? "equals" : "DIFFERS FROM", r.output.size(),
      same ? "" : fmt::format(", {} differ", differ));
  return same ? std::string()
              : fmt::format(
                    "network {}: the output differs from the int8 reference of the "
                    "quantized graph in {} of {} values",
                    model.net.name, differ, r.output.size());
}

// One line per finished VTA layer (unless --quiet) and the progress display.
void report_layer(explore::ProgressDisplay& progress, bool quiet, const LayerRun& r,
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
  explore::ProgressDisplay& progress;
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

}  // namespace

int cmd_network(int argc, char** argv) {
  return guarded([&] {
    CommonOptions common;
    std::string name, plot_path;
    int tune = 0;
    bool no_check = false, quiet = false, print_json = false;
    int batch = 1, jobs = 1;
    ModelOptions model_opt;
    po::options_description desc("network options");
    add_common_options(desc, common);
    add_plot_option(desc, plot_path);
    auto add = desc.add_options();
    add("network", po::value(&name), "resnet18, a network JSON file or MODEL.onnx");
    add("batch", po::value(&batch)->default_value(1), "batch size of the built-in resnet18");
    add("tune", po::value(&tune)->implicit_value(4),
        "tune every convolution with the N best-estimated schedules (default 4)");
    add("no-check", po::bool_switch(&no_check), "skip the checks against the C++ reference");
    add("quiet", po::bool_switch(&quiet), "no progress lines");
    add("jobs,j", po::value(&jobs)->default_value(1),
        "simulate the layers in N worker processes (same results as -j 1)");
    add("print-json", po::bool_switch(&print_json),
        "print the network description as JSON (a starting point for your own) and exit");
    add_model_options(desc, model_opt);
    po::positional_options_description pos;
    pos.add("network", 1);
    po::variables_map vm;
    if (!parse_args(argc, argv, "vtasim network (resnet18 | FILE.json | MODEL.onnx) [options]",
                    desc, pos, vm)) {
      return 0;
    }
    check_option_range(vm, "batch", 1, kMaxTensorDim);
    check_option_range(vm, "tune", 1, INT_MAX);
    check_jobs_option(vm, common, jobs);
    check_model_options(vm, name, model_opt);
    std::optional<QuantizedModel> model;
    const Network net = (name == "resnet18" || name == "resnet-18") ? Network::resnet18(batch)
                        : is_onnx_model(name) ? load_onnx_network(name, model_opt, model)
                                              : Network::from_file(name);
    print_model_report(model, print_json);
    if (print_json) {
      std::cout << net.to_json().dump(2) << "\n";
      return 0;
    }
    Target target = setup_target(common, !no_check);
    NetworkOptions opt;
    opt.check = !no_check;
    opt.tune_candidates = size_t(tune);
    std::vector<LayerRun> done;  // the layers finished so far, for the report of a failed run
    explore::ProgressDisplay progress("network " + net.name, "VTA layers", vta_layer_count(net),
                                      !quiet);
    opt.on_layer = [&](const LayerRun& r) { report_layer(progress, quiet, r, done); };
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
    nlohmann::ordered_json extra;
    extra["network"] = net.name;
    add_model_report(model, name, extra);
    const NetworkRun r =
        run_or_report_failure(common, target, net, opt, jobs, {progress, done, current}, extra);
    for (const std::string& h : r.host_ops) {
      std::cout << "  host: " << h << "\n";
    }
    extra["host_ops"] = r.host_ops;
    const std::string mismatch = model ? check_model_output(*model, r, extra) : std::string();
    const int status =
        finish_compiler_command(common, target, "network", net.name, r.runs, extra, plot_path);
    if (!mismatch.empty()) {
      throw Error(mismatch);
    }
    return status;
  });
}

}  // namespace vta::cli
