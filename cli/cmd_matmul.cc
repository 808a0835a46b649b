// vtasim matmul: C (M x N) = A (M x K) * B (K x N) with operands of the config's lane widths
// (1 to 32 bits; layer_widths.h, wide_layer_runner.h) and the fused epilogue, compiled as a 1x1
// convolution, run through the runtime and checked against the C++ reference.
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

int cmd_matmul(int argc, char** argv) {
  return guarded([&] {
    CommonOptions common;
    EpilogueFlags ef;
    MatmulParams p;
    std::string schedule_path;
    uint64_t seed = 1;
    bool no_check = false;
    bool print_lowered = false;
    std::string dump_path, plot_path, split;
    po::options_description desc("matmul options");
    add_common_options(desc, common);
    auto add = desc.add_options();
    add("m", po::value(&p.m)->default_value(64), "rows of A and C");
    add("k", po::value(&p.k)->default_value(256), "columns of A = rows of B");
    add("n", po::value(&p.n)->default_value(256), "columns of B and C");
    add("schedule", po::value(&schedule_path),
        "schedule JSON of the 1x1 convolution (tile_h 1, tile_w = rows/BATCH per tile, "
        "tile_oc_blocks = N blocks, tile_ic_blocks = K blocks, threads)");
    add("seed", po::value(&seed)->default_value(1), "seed of the random operands");
    add("no-check", po::bool_switch(&no_check), "skip the check against the C++ reference");
    add("dump-program", po::value(&dump_path),
        "write the compiled program as a program image (for vtasim run / disasm)");
    add("print-lowered", po::bool_switch(&print_lowered),
        "print the lowered program (a loop nest of runtime calls) instead of running it");
    add_epilogue_options(desc, ef);
    add_plot_option(desc, plot_path);
    add_split_option(desc, split);
    po::variables_map vm;
    if (!parse_args(argc, argv, "vtasim matmul --m M --k K --n N [options]", desc, {}, vm)) {
      return 0;
    }
    for (const char* opt : {"m", "k", "n"}) {
      check_option_range(vm, opt, 1, kMaxTensorDim);
    }
    p.validate();
    Epilogue e;
    const std::optional<ConvSchedule> sched = read_schedule_option(schedule_path, e);
    e = apply_epilogue_flags(e, ef, vm);
    Target target = setup_target(common, !no_check);
    const HwConfig& cfg = target.config;
    const NetworkSplit asked = layer_split_option(vm, split, cfg);
    e = epilogue_at_widths(e, cfg);  // clip bounds within the output lane
    if (!dump_path.empty()) {
      target.runtime->set_program_dump(dump_path);
    }
    const ConvSchedule s = sched ? *sched : auto_schedule(matmul_as_conv(p, cfg), e, cfg);
    if (print_lowered) {
      std::cout << lowered_header("matmul", p.describe(), e, s, cfg)
                << format_lowered(*lower_conv2d(cfg, matmul_as_conv(p, cfg), e, s));
      return 0;
    }
    SplitChoice choice;
    if (cfg.num_cores() > 1) {
      choice = choose_layer_split(matmul_as_conv(p, cfg), e, s, true, cfg, asked);
      target.layer_split = layer_split_of(choice.split);
      std::cout << "split: " << choice.reason << "\n";
    }
    TargetStep step(target, "layers", p.describe());  // the layer's slice of a trace
    const LayerRun run =
        compiler::with_simulation_progress(common.progress_flags(), target.backend, [&] {
          if (needs_wide_lanes(cfg)) {  // int16 / int32 lanes: held in int32_t
            return run_matmul_wide(target, p, e, s, random_wide_matmul_data(p, e, seed, cfg),
                                   !no_check)
                .run;
          }
          return run_matmul(target, p, e, s, random_matmul_data_at(p, e, seed, cfg), !no_check);
        });
    step.done(run.stats);
    std::cout << fmt::format("matmul {}: epilogue {}, schedule {} ({})\n", p.describe(),
                             e.describe(), s.describe(), sched ? schedule_path : "automatic");
    nlohmann::ordered_json extra = nlohmann::ordered_json::object();
    report_split(choice, {run}, extra);
    return finish_compiler_command(common, target, "matmul", p.describe(), {run}, extra, plot_path);
  });
}

}  // namespace vta::cli
