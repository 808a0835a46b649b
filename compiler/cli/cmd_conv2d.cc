// vtasim conv2d: compile one convolution (shape options or a ResNet-18 layer preset) with an
// explicit (--schedule), automatic or tuned (--tune) schedule, run it through the runtime on the
// chosen backend, check it against the C++ reference and print the layer report.
#include <climits>
#include <cstdint>
#include <iostream>

#include <fmt/format.h>

#include "cli_common.h"
#include "compiler_command.h"
#include "vta/compiler/auto_schedule.h"
#include "vta/compiler/layer_runner.h"
#include "vta/runtime_cpp.h"

namespace vta::cli {

using namespace vta::compiler;

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

// ---- vtasim conv2d -------------------------------------------------------------------------

int cmd_conv2d(int argc, char** argv) {
  return guarded([&] {
    CommonOptions common;
    EpilogueFlags ef;
    Conv2dParams p;
    std::string layer, schedule_path;
    int kernel = 3, stride = 1, pad = 1, kh = 0, kw = 0, stride_h = 0, stride_w = 0;
    int pad_top = -1, pad_bottom = -1, pad_left = -1, pad_right = -1, hw = 0;
    int tune = 0;
    uint64_t seed = 1;
    bool no_check = false;
    std::string dump_path;
    po::options_description desc("conv2d options");
    add_common_options(desc, common);
    desc.add_options()("layer", po::value(&layer),
                       "ResNet-18 layer preset resnet18.C1 .. resnet18.C11 (shape + epilogue)")(
        "n", po::value(&p.n)->default_value(1), "batch")("c", po::value(&p.c)->default_value(16),
                                                         "input channels")(
        "h", po::value(&p.h)->default_value(14), "input height")(
        "w", po::value(&p.w)->default_value(14), "input width")(
        "hw", po::value(&hw), "input height and width")("k", po::value(&p.k)->default_value(16),
                                                        "output channels")(
        "kernel", po::value(&kernel)->default_value(3), "kernel size (square)")(
        "kh", po::value(&kh), "kernel height")("kw", po::value(&kw), "kernel width")(
        "stride", po::value(&stride)->default_value(1), "stride")(
        "stride-h", po::value(&stride_h), "vertical stride")("stride-w", po::value(&stride_w),
                                                             "horizontal stride")(
        "pad", po::value(&pad)->default_value(1), "zero padding on every side")(
        "pad-top", po::value(&pad_top), "")("pad-bottom", po::value(&pad_bottom), "")(
        "pad-left", po::value(&pad_left), "")("pad-right", po::value(&pad_right), "")(
        "schedule", po::value(&schedule_path),
        "schedule JSON (tile_h, tile_w, tile_oc_blocks, tile_ic_blocks, threads[, epilogue])")(
        "tune", po::value(&tune)->implicit_value(8),
        "run the N best-estimated schedules on the backend and keep the fastest (default 8)")(
        "seed", po::value(&seed)->default_value(1), "seed of the random tensors")(
        "no-check", po::bool_switch(&no_check), "skip the check against the C++ reference")(
        "dump-program", po::value(&dump_path),
        "write the compiled program as a program image (for vtasim run / disasm)");
    add_epilogue_options(desc, ef);
    po::variables_map vm;
    if (!parse_args(argc, argv, "vtasim conv2d [--layer NAME | shape options] [options]", desc, {},
                    vm)) {
      return 0;
    }
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
    if (!schedule_path.empty() && tune) {
      throw UsageError("--schedule and --tune exclude each other");
    }

    Epilogue e;
    if (!layer.empty()) {
      for (const char* opt : {"n", "c", "h", "w", "hw", "k", "kernel", "stride", "pad"}) {
        if (!vm[opt].defaulted() && vm.count(opt)) {
          throw UsageError(
              fmt::format("--layer fixes the shape; --{} is not allowed with it", opt));
        }
      }
      const NamedConvLayer l = find_named_layer(layer);
      p = l.params;
      e = l.epilogue;
    } else {
      p.name = "conv2d";
      if (hw) {
        p.h = p.w = hw;
      }
      p.kh = kh ? kh : kernel;
      p.kw = kw ? kw : kernel;
      p.stride_h = stride_h ? stride_h : stride;
      p.stride_w = stride_w ? stride_w : stride;
      p.pad_top = pad_top >= 0 ? pad_top : pad;
      p.pad_bottom = pad_bottom >= 0 ? pad_bottom : pad;
      p.pad_left = pad_left >= 0 ? pad_left : pad;
      p.pad_right = pad_right >= 0 ? pad_right : pad;
    }
    p.validate();
    const std::optional<ConvSchedule> sched = read_schedule_option(schedule_path, e);
    e = apply_epilogue_flags(e, ef, vm);

    const Target target = setup_target(common, !no_check);
    const HwConfig& cfg = target.config;
    if (!dump_path.empty()) {
      runtime_set_program_dump(dump_path);
    }
    const ConvData data = random_conv_data(p, e, seed);
    nlohmann::ordered_json extra;
    LayerRun run;
    if (tune) {
      TuneResult t = tune_conv2d(target, p, e, data, size_t(tune), !no_check);
      print_tune(t, t.trials[t.best].run.stats.timed);
      run = t.trials[t.best].run;
      extra["tuning"] = tune_json(t);
    } else {
      const ConvSchedule s = sched ? *sched : auto_schedule(p, e, cfg);
      run = run_conv2d(target, p, e, s, data, !no_check);
    }
    extra["schedule_source"] = tune ? "tuned" : (sched ? schedule_path : "automatic");
    std::cout << fmt::format("conv2d {}: {}, epilogue {}, schedule {} ({})\n", run.name, run.shape,
                             e.describe(), run.schedule.describe(),
                             extra["schedule_source"].get<std::string>());
    std::cout << TilePlan::make(p, e, run.schedule, cfg).describe(cfg);
    return finish_compiler_command(common, target, "conv2d", run.name, {run}, extra);
  });
}

}  // namespace vta::cli
