// vtasim conv2d: compile one convolution (shape options or a ResNet-18 layer preset) with an
// explicit (--schedule), automatic or tuned (--tune) schedule, run it through the runtime on the
// chosen backend, check it against the C++ reference and print the layer report.
// Also holds the pieces shared by the compiler subcommands (conv2d, matmul, network).
#include <cstdint>
#include <iostream>

#include <fmt/format.h>

#include "cli_common.h"
#include "vta/backend_factory.h"
#include "vta/compiler/auto_schedule.h"
#include "vta/compiler/layer_runner.h"
#include "vta/compiler/program_check.h"
#include "vta/compiler/report.h"
#include "vta/runtime_cpp.h"
#include "vta/sim/error.h"

namespace vta::cli {

using namespace vta::compiler;

// ---- shared by the compiler subcommands ----------------------------------------------------

struct EpilogueFlags {
  bool bias = false, relu = false, no_epilogue = false;
  int shift = 0, clip_lo = 0, clip_hi = 0;
};

void add_epilogue_options(po::options_description& desc, EpilogueFlags& f) {
  desc.add_options()("bias", po::bool_switch(&f.bias), "add a random per-channel int32 bias")(
      "shift", po::value(&f.shift), "arithmetic right shift of the accumulator")(
      "relu", po::bool_switch(&f.relu), "ReLU (max 0)")("clip-lo", po::value(&f.clip_lo),
                                                        "lower clip bound (ALU MAX)")(
      "clip-hi", po::value(&f.clip_hi), "upper clip bound (ALU MIN)")(
      "no-epilogue", po::bool_switch(&f.no_epilogue),
      "start from an empty epilogue instead of the layer's / schedule's");
}

// Flags given on the command line override the base epilogue one by one.
Epilogue apply_epilogue_flags(Epilogue e, const EpilogueFlags& f, const po::variables_map& vm) {
  if (f.no_epilogue)
    e = Epilogue{};
  if (f.bias)
    e.bias = true;
  if (vm.count("shift"))
    e.shift = f.shift;
  if (f.relu)
    e.relu = true;
  if (vm.count("clip-lo"))
    e.clip_lo = f.clip_lo;
  if (vm.count("clip-hi"))
    e.clip_hi = f.clip_hi;
  e.validate();
  return e;
}

// Configures the runtime's device for the command (backend, config, trace/VCD). With `verify`,
// every synchronised program is checked for cross-stage races before it runs.
HwConfig setup_runtime(const CommonOptions& o, bool verify) {
  set_error_mode(ErrorMode::kThrow);
  const HwConfig cfg = resolve_config(o.config);
  const std::string backend = o.backend.empty() ? backend_name_from_env() : o.backend;
  runtime_configure(backend, cfg);
  if (verify)
    runtime_set_program_observer([cfg](const SyncedProgram& p) {
      const ProgramCheck c = check_program(p, cfg);
      if (!c.ok())
        throw Error("program verifier: " +
                    (c.first_problem.empty()
                         ? fmt::format("{} dependency tokens left over", c.leftover_tokens)
                         : c.first_problem));
    });
  if (!o.trace_path.empty())
    runtime_backend().enable_trace(o.trace_path);
  if (!o.vcd_window.empty() && o.vcd_path.empty())
    throw UsageError("--vcd-window needs --vcd FILE");
  if (!o.vcd_path.empty()) {
    uint64_t start = 0, end = UINT64_MAX;
    if (!o.vcd_window.empty()) {
      const size_t colon = o.vcd_window.find(':');
      try {
        if (colon == std::string::npos)
          throw std::invalid_argument("no colon");
        start = std::stoull(o.vcd_window.substr(0, colon));
        end = std::stoull(o.vcd_window.substr(colon + 1));
      } catch (const std::exception&) {
        throw UsageError(fmt::format("--vcd-window '{}' is not A:B", o.vcd_window));
      }
    }
    runtime_backend().enable_vcd(o.vcd_path, start, end);
  }
  return cfg;
}

// Prints the layer table (and for a single layer the full counter report), writes the JSON
// report, and turns a failed reference check into an error.
int finish_compiler_command(const CommonOptions& o, const std::string& command,
                            const std::string& program, const std::vector<LayerRun>& runs,
                            nlohmann::ordered_json extra) {
  std::cout << format_report(runs);
  RunReport rr;
  rr.command = command;
  rr.program = program;
  rr.backend = runtime_backend_name();
  rr.config = runtime_config().model_name;
  for (const LayerRun& r : runs) {
    rr.wall_seconds += r.wall_seconds;
    Stats& s = rr.stats;
    s.inp_load_nbytes += r.stats.inp_load_nbytes;
    s.wgt_load_nbytes += r.stats.wgt_load_nbytes;
    s.acc_load_nbytes += r.stats.acc_load_nbytes;
    s.uop_load_nbytes += r.stats.uop_load_nbytes;
    s.out_store_nbytes += r.stats.out_store_nbytes;
    s.gemm_counter += r.stats.gemm_counter;
    s.alu_counter += r.stats.alu_counter;
    s.cycles += r.stats.cycles;
    s.runs += r.stats.runs;
    s.timed = r.stats.timed;
    for (size_t i = 0; i < s.insn_count.size(); ++i)
      s.insn_count[i] += r.stats.insn_count[i];
  }
  if (runs.size() == 1) {
    rr.stats = runs.front().stats;  // complete, with the backend's own counters
    std::cout << "\n";
    print_report(std::cout, rr);
  }
  const nlohmann::ordered_json rep = report_to_json(runs);
  for (auto it = rep.begin(); it != rep.end(); ++it)
    extra[it.key()] = *it;
  rr.extra = std::move(extra);
  write_json_report(o, rr);
  size_t bad = 0;
  std::string first;
  for (const LayerRun& r : runs)
    if (r.mismatches) {
      if (!bad)
        first = r.name + ": " + r.first_mismatch;
      bad += r.mismatches;
    }
  if (bad)
    throw Error(fmt::format("{} result differs from the C++ reference in {} element(s) (first: {})",
                            command, bad, first));
  return 0;
}

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
  for (size_t i = 0; i < t.trials.size(); ++i)
    std::cout << fmt::format("  {:<22} {:>12.0f} {:>12.0f}{}\n", t.trials[i].schedule.describe(),
                             t.trials[i].est_cycles, t.trials[i].cost,
                             i == t.best ? "  <- best" : "");
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
    size_t tune = 0;
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
                    vm))
      return 0;
    if (!schedule_path.empty() && tune)
      throw UsageError("--schedule and --tune exclude each other");

    Epilogue e;
    if (!layer.empty()) {
      for (const char* opt : {"n", "c", "h", "w", "hw", "k", "kernel", "stride", "pad"})
        if (!vm[opt].defaulted() && vm.count(opt))
          throw UsageError(
              fmt::format("--layer fixes the shape; --{} is not allowed with it", opt));
      const NamedConvLayer l = find_named_layer(layer);
      p = l.params;
      e = l.epilogue;
    } else {
      p.name = "conv2d";
      if (hw)
        p.h = p.w = hw;
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
    std::optional<ConvSchedule> sched;
    if (!schedule_path.empty()) {
      sched = ConvSchedule::from_file(schedule_path);
      if (sched->epilogue)
        e = *sched->epilogue;
    }
    e = apply_epilogue_flags(e, ef, vm);

    const HwConfig cfg = setup_runtime(common, !no_check);
    if (!dump_path.empty())
      runtime_set_program_dump(dump_path);
    const ConvData data = random_conv_data(p, e, seed);
    nlohmann::ordered_json extra;
    LayerRun run;
    if (tune) {
      TuneResult t = tune_conv2d(p, e, data, tune, !no_check);
      print_tune(t, t.trials[t.best].run.stats.timed);
      run = t.trials[t.best].run;
      extra["tuning"] = tune_json(t);
    } else {
      const ConvSchedule s = sched ? *sched : auto_schedule(p, e, cfg);
      run = run_conv2d(p, e, s, data, !no_check);
    }
    extra["schedule_source"] = tune ? "tuned" : (sched ? schedule_path : "automatic");
    std::cout << fmt::format("conv2d {}: {}, epilogue {}, schedule {} ({})\n", run.name, run.shape,
                             e.describe(), run.schedule.describe(),
                             extra["schedule_source"].get<std::string>());
    std::cout << TilePlan::make(p, e, run.schedule, cfg).describe(cfg);
    return finish_compiler_command(common, "conv2d", run.name, {run}, extra);
  });
}

}  // namespace vta::cli
