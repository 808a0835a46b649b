// vtasim conv2d: compile one convolution (shape options or a ResNet-18 layer preset) with an
// explicit (--schedule), automatic or tuned (--tune) schedule, run it through the runtime on the
// chosen backend, check it against the C++ reference and print the layer report.
#include <climits>
#include <cstdint>
#include <iostream>

#include <fmt/format.h>

#include "cli_common.h"
#include "compiler_command.h"
#include "vta/compiler/codegen/lowered_program.h"
#include "vta/compiler/run/layer_runner.h"
#include "vta/compiler/run/layer_widths.h"
#include "vta/compiler/run/wide_layer_runner.h"
#include "vta/compiler/scheduling/auto_schedule.h"
#include "vta/runtime_object.h"

namespace vta::cli {

using namespace vta::compiler;

namespace {

nlohmann::ordered_json tune_json(const TuneResult& t) {
  nlohmann::ordered_json j = nlohmann::ordered_json::array();
  for (size_t i = 0; i < t.trials.size(); ++i) {
    nlohmann::ordered_json e;
    e["schedule"] = t.trials[i].schedule.to_json();
    e["estimated_cycles"] = t.trials[i].est_cycles;
    e["cost"] = t.trials[i].cost;
    e["best"] = i == t.best;
    j.push_back(e);
  }
  return j;
}

void print_tune(const TuneResult& t, bool timed) {
  std::cout << fmt::format("tuning: {} candidates, cost = {}\n", t.trials.size(),
                           timed ? "measured cycles" : "GEMM + ALU micro-ops + bytes / bus bytes");
  std::cout << fmt::format("  {:<22} {:>12} {:>12}\n", "schedule", "estimated", "cost");
  for (size_t i = 0; i < t.trials.size(); ++i) {
    std::cout << fmt::format("  {:<22} {:>12.0f} {:>12.0f}{}\n", t.trials[i].schedule.describe(),
                             t.trials[i].est_cycles, t.trials[i].cost,
                             i == t.best ? "  <- best" : "");
  }
  std::cout << "best schedule: " << t.trials[t.best].schedule.to_json().dump() << "\n\n";
}

}  // namespace

// ---- vtasim conv2d -------------------------------------------------------------------------

namespace {

// The command line of vtasim conv2d (shape options are used only without --layer; 0 or -1 means
// "not given" for the ones that refine --kernel, --stride and --pad).
struct Conv2dFlags {
  CommonOptions common;
  EpilogueFlags epilogue;
  Conv2dParams p;
  std::string layer, schedule_path, dump_path, plot_path;
  int kernel = Conv2dDefaults::kernel, stride = Conv2dDefaults::stride, pad = Conv2dDefaults::pad;
  int kh = 0, kw = 0, stride_h = 0, stride_w = 0;
  int pad_top = -1, pad_bottom = -1, pad_left = -1, pad_right = -1, hw = 0;
  int tune = 0;
  uint64_t seed = 1;
  bool no_check = false;
  bool print_lowered = false;
  std::string split;
};

void add_conv2d_options(po::options_description& desc, Conv2dFlags& f) {
  add_common_options(desc, f.common);
  auto add = desc.add_options();
  add("layer", po::value(&f.layer),
      "ResNet-18 layer preset resnet18.C1 .. resnet18.C11 (shape + epilogue)");
  add("n", po::value(&f.p.n)->default_value(Conv2dDefaults::n), "batch");
  add("c", po::value(&f.p.c)->default_value(Conv2dDefaults::c), "input channels");
  add("h", po::value(&f.p.h)->default_value(Conv2dDefaults::h), "input height");
  add("w", po::value(&f.p.w)->default_value(Conv2dDefaults::w), "input width");
  add("hw", po::value(&f.hw), "input height and width");
  add("k", po::value(&f.p.k)->default_value(Conv2dDefaults::k), "output channels");
  add("kernel", po::value(&f.kernel)->default_value(Conv2dDefaults::kernel),
      "kernel size (square)");
  add("kh", po::value(&f.kh), "kernel height");
  add("kw", po::value(&f.kw), "kernel width");
  add("stride", po::value(&f.stride)->default_value(Conv2dDefaults::stride), "stride");
  add("stride-h", po::value(&f.stride_h), "vertical stride");
  add("stride-w", po::value(&f.stride_w), "horizontal stride");
  add("pad", po::value(&f.pad)->default_value(Conv2dDefaults::pad), "zero padding on every side");
  add("pad-top", po::value(&f.pad_top), "");
  add("pad-bottom", po::value(&f.pad_bottom), "");
  add("pad-left", po::value(&f.pad_left), "");
  add("pad-right", po::value(&f.pad_right), "");
  add("schedule", po::value(&f.schedule_path),
      "schedule JSON (tile_h, tile_w, tile_oc_blocks, tile_ic_blocks, threads[, epilogue])");
  add("tune", po::value(&f.tune)->implicit_value(8),
      "run the N best-estimated schedules on the backend and keep the fastest (default 8)");
  add("seed", po::value(&f.seed)->default_value(1), "seed of the random tensors");
  add("no-check", po::bool_switch(&f.no_check), "skip the check against the C++ reference");
  add("dump-program", po::value(&f.dump_path),
      "write the compiled program as a program image (for vtasim run / disasm)");
  add("print-lowered", po::bool_switch(&f.print_lowered),
      "print the layer's lowered program (a loop nest of runtime calls) instead of running it");
  add_epilogue_options(desc, f.epilogue);
  add_plot_option(desc, f.plot_path);
  add_split_option(desc, f.split);
}

void check_conv2d_options(const po::variables_map& vm, const Conv2dFlags& f) {
  // Sizes beyond the ISA's 16-bit fields would never fit a program (and would make the
  // schedule search and the tensors huge): refuse them here, naming the option.
  for (const char* opt :
       {"n", "c", "h", "w", "hw", "k", "kernel", "kh", "kw", "stride", "stride-h", "stride-w"}) {
    check_option_range(vm, opt, 1, kMaxTensorDim);
  }
  for (const char* opt : {"pad", "pad-top", "pad-bottom", "pad-left", "pad-right"}) {
    check_option_range(vm, opt, 0, 15);  // the 4-bit pad fields of LOAD
  }
  check_option_range(vm, "tune", 1, INT_MAX);
  if (!f.schedule_path.empty() && f.tune) {
    throw UsageError("--schedule and --tune exclude each other");
  }
  if (f.print_lowered && f.tune) {
    throw UsageError("--print-lowered prints one schedule's program: it excludes --tune");
  }
}

// The layer preset's shape and epilogue (--layer), or the shape of the size options.
Conv2dParams conv2d_shape(const po::variables_map& vm, const Conv2dFlags& f, Epilogue& e) {
  if (!f.layer.empty()) {
    for (const char* opt :
         {"n", "c", "h", "w", "hw", "k", "kernel", "kh", "kw", "stride", "stride-h", "stride-w",
          "pad", "pad-top", "pad-bottom", "pad-left", "pad-right"}) {
      if (!vm[opt].defaulted() && vm.count(opt)) {
        throw UsageError(fmt::format("--layer fixes the shape; --{} is not allowed with it", opt));
      }
    }
    const NamedConvLayer l = find_named_layer(f.layer);
    e = l.epilogue;
    return l.params;
  }
  Conv2dParams p = f.p;
  p.name = "conv2d";
  if (f.hw) {
    p.h = p.w = f.hw;
  }
  p.kh = f.kh ? f.kh : f.kernel;
  p.kw = f.kw ? f.kw : f.kernel;
  p.stride_h = f.stride_h ? f.stride_h : f.stride;
  p.stride_w = f.stride_w ? f.stride_w : f.stride;
  p.pad_top = f.pad_top >= 0 ? f.pad_top : f.pad;
  p.pad_bottom = f.pad_bottom >= 0 ? f.pad_bottom : f.pad;
  p.pad_left = f.pad_left >= 0 ? f.pad_left : f.pad;
  p.pad_right = f.pad_right >= 0 ? f.pad_right : f.pad;
  return p;
}

// Tunes (--tune) or runs the given / automatic schedule; notes the choice in `extra`.
LayerRun compile_and_run(const Target& target, const Conv2dFlags& f, const Conv2dParams& p,
                         const Epilogue& e, const std::optional<ConvSchedule>& sched,
                         nlohmann::ordered_json& extra) {
  TargetStep step(target, "layers", p.name);  // the layer's slice of a trace
  LayerRun run;
  if (needs_wide_lanes(target.config)) {  // int16 / int32 lanes: held in int32_t
    const ConvSchedule s = sched ? *sched : auto_schedule(p, e, target.config);
    run = run_conv2d_wide(target, p, e, s, random_wide_conv_data(p, e, f.seed, target.config),
                          !f.no_check)
              .run;
  } else if (f.tune) {
    const ConvData data = random_conv_data_at(p, e, f.seed, target.config);
    TuneResult t = tune_conv2d(target, p, e, data, size_t(f.tune), !f.no_check);
    print_tune(t, t.trials[t.best].run.stats.timed);
    run = t.trials[t.best].run;
    extra["tuning"] = tune_json(t);
  } else {
    const ConvSchedule s = sched ? *sched : auto_schedule(p, e, target.config);
    run =
        run_conv2d(target, p, e, s, random_conv_data_at(p, e, f.seed, target.config), !f.no_check);
  }
  extra["schedule_source"] = f.tune ? "tuned" : (sched ? f.schedule_path : "automatic");
  step.done(run.stats);
  return run;
}

}  // namespace

int cmd_conv2d(int argc, char** argv) {
  return guarded([&] {
    Conv2dFlags f;
    po::options_description desc("conv2d options");
    add_conv2d_options(desc, f);
    po::variables_map vm;
    if (!parse_args(argc, argv, "vtasim conv2d [--layer NAME | shape options] [options]", desc, {},
                    vm)) {
      return 0;
    }
    check_conv2d_options(vm, f);
    Epilogue e;
    const Conv2dParams p = conv2d_shape(vm, f, e);
    p.validate();
    const std::optional<ConvSchedule> sched = read_schedule_option(f.schedule_path, e);
    e = apply_epilogue_flags(e, f.epilogue, vm);

    Target target = setup_target(f.common, !f.no_check);
    const NetworkSplit asked = layer_split_option(vm, f.split, target.config);
    if (f.tune && needs_wide_lanes(target.config)) {
      throw UsageError("--tune runs layers with lanes of up to 8 bits; this config's are wider");
    }
    e = epilogue_at_widths(e, target.config);  // clip bounds within the output lane
    if (f.print_lowered) {
      const ConvSchedule s = sched ? *sched : auto_schedule(p, e, target.config);
      std::cout << lowered_header(p.name, p.describe(), e, s, target.config)
                << format_lowered(*lower_conv2d(target.config, p, e, s));
      return 0;
    }
    if (!f.dump_path.empty()) {
      target.runtime->set_program_dump(f.dump_path);
    }
    SplitChoice choice;
    if (target.config.num_cores() > 1) {
      const ConvSchedule s = sched ? *sched : auto_schedule(p, e, target.config);
      choice = choose_layer_split(p, e, s, false, target.config, asked);
      target.layer_split = layer_split_of(choice.split);
      std::cout << "split: " << choice.reason << "\n";
    }
    nlohmann::ordered_json extra;
    const LayerRun run = compiler::with_simulation_progress(
        f.common.progress_flags(), target.backend,
        [&] { return compile_and_run(target, f, p, e, sched, extra); });
    std::cout << fmt::format("conv2d {}: {}, epilogue {}, schedule {} ({})\n", run.name, run.shape,
                             e.describe(), run.schedule.describe(),
                             extra["schedule_source"].get<std::string>());
    std::cout << TilePlan::make(p, e, run.schedule, target.config).describe(target.config);
    report_split(choice, {run}, extra);
    return finish_compiler_command(f.common, target, "conv2d", run.name, {run}, extra, f.plot_path);
  });
}

}  // namespace vta::cli
