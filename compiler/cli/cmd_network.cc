// vtasim network: run a network (the built-in resnet18 or a JSON description) layer by layer
// through the runtime, every VTA layer checked against the C++ reference, and print one report
// row per layer plus the totals.
#include <climits>
#include <iostream>

#include <fmt/format.h>

#include "cli_common.h"
#include "compiler_command.h"
#include "vta/compiler/network.h"
#include "vta/compiler/report.h"
#include "vta/explore/progress.h"

namespace vta::cli {

using namespace vta::compiler;

int cmd_network(int argc, char** argv) {
  return guarded([&] {
    CommonOptions common;
    std::string name, plot_path;
    int tune = 0;
    bool no_check = false, quiet = false, print_json = false;
    int batch = 1;
    po::options_description desc("network options");
    add_common_options(desc, common);
    add_plot_option(desc, plot_path);
    auto add = desc.add_options();
    add("network", po::value(&name), "resnet18 or a network JSON file");
    add("batch", po::value(&batch)->default_value(1), "batch size of the built-in resnet18");
    add("tune", po::value(&tune)->implicit_value(4),
        "tune every convolution with the N best-estimated schedules (default 4)");
    add("no-check", po::bool_switch(&no_check), "skip the checks against the C++ reference");
    add("quiet", po::bool_switch(&quiet), "no progress lines");
    add("print-json", po::bool_switch(&print_json),
        "print the network description as JSON (a starting point for your own) and exit");
    po::positional_options_description pos;
    pos.add("network", 1);
    po::variables_map vm;
    if (!parse_args(argc, argv, "vtasim network (resnet18 | FILE.json) [options]", desc, pos, vm)) {
      return 0;
    }
    check_option_range(vm, "batch", 1, kMaxTensorDim);
    check_option_range(vm, "tune", 1, INT_MAX);
    if (name.empty()) {
      throw UsageError("vtasim network needs a network (resnet18 or a JSON file)");
    }
    const Network net = (name == "resnet18" || name == "resnet-18") ? Network::resnet18(batch)
                                                                    : Network::from_file(name);
    if (print_json) {
      std::cout << net.to_json().dump(2) << "\n";
      return 0;
    }
    Target target = setup_target(common, !no_check);
    NetworkOptions opt;
    opt.check = !no_check;
    opt.tune_candidates = size_t(tune);
    std::vector<LayerRun> done;  // the layers finished so far, for the report of a failed run
    size_t vta_layers = 0, mismatched = 0;
    for (const NetworkLayer& l : net.layers) {
      vta_layers += l.op == "conv2d" || l.op == "dense" ? 1 : 0;
    }
    explore::ProgressDisplay progress("network " + net.name, "VTA layers", vta_layers, !quiet);
    opt.on_layer = [&](const LayerRun& r) {
      mismatched += r.mismatches ? 1 : 0;
      if (!quiet) {
        progress.note(fmt::format("  {:<20} {:<40} {} {}", r.name, r.shape, r.schedule.describe(),
                                  !r.checked ? "" : (r.mismatches ? "MISMATCH" : "ok")));
      }
      done.push_back(r);
      progress.update(done.size(), mismatched);
    };
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
    NetworkRun r;
    try {
      r = run_network(target, net, opt);
      progress.finish();
    } catch (const Error& ex) {
      progress.finish();
      // The report so far (layers done, the failure named) is still written; the error exits 1.
      extra["failure"] = {{"layer", current}, {"error", ex.what()}};
      finish_compiler_command(common, target, "network", net.name, done, extra);
      throw Error(fmt::format("network {}: layer '{}': {}", net.name, current, ex.what()));
    }
    for (const std::string& h : r.host_ops) {
      std::cout << "  host: " << h << "\n";
    }
    extra["host_ops"] = r.host_ops;
    return finish_compiler_command(common, target, "network", net.name, r.runs, extra, plot_path);
  });
}

}  // namespace vta::cli
