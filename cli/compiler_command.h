// Pieces shared by the compiler subcommands (conv2d, matmul, network): the epilogue options,
// range checks of the numeric options, runtime setup and the final report.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_common.h"
#include "vta/compiler/run/layer_runner.h"
#include "vta/compiler/run/network_split.h"
#include "vta/compiler/scheduling/schedule.h"
#include "vta/compiler/scheduling/workload.h"
#include "vta/compiler/target.h"

namespace vta::cli {

// --bias, --shift, --relu, --clip-lo, --clip-hi, --no-epilogue.
struct EpilogueFlags {
  bool bias = false, relu = false, no_epilogue = false;
  int shift = 0, clip_lo = 0, clip_hi = 0;
};

void add_epilogue_options(po::options_description& desc, EpilogueFlags& f);
// Flags given on the command line override the base epilogue one by one; validates the result.
compiler::Epilogue apply_epilogue_flags(compiler::Epilogue e, const EpilogueFlags& f,
                                        const po::variables_map& vm);

// The schedule of --schedule FILE, none when `path` is empty. A schedule's epilogue replaces
// `e` (the epilogue flags are applied on top of it afterwards).
std::optional<compiler::ConvSchedule> read_schedule_option(const std::string& path,
                                                           compiler::Epilogue& e);

// Throws UsageError "--<option> <value> is out of range <min>..<max>" when the int option
// `option` was given (or defaulted) with a value outside [min, max].
void check_option_range(const po::variables_map& vm, const std::string& option, int min, int max);

// --plot FILE.png: the cycle breakdown and roofline of the run (explore/plots/run_plot.py).
void add_plot_option(po::options_description& desc, std::string& plot_path);

// --split auto|channels|batch|none: how layers go to the cores of a config with CORES > 1
// (default auto there; run/network_split.h).
void add_split_option(po::options_description& desc, std::string& split);
// The split the command line asks for on `cfg`: unknown, or given on a config of one core, is a
// UsageError naming it; not given: auto with CORES > 1, else none.
compiler::NetworkSplit split_option(const po::variables_map& vm, const std::string& text,
                                    const HwConfig& cfg);
// The same for one layer (conv2d, matmul): pipeline, which cuts a network's layers into stages,
// is a UsageError too.
compiler::NetworkSplit layer_split_option(const po::variables_map& vm, const std::string& text,
                                          const HwConfig& cfg);
// Prints the split chosen and why, and adds the report's "multicore" key: the choice, each
// candidate's estimate, and per core the cycles and DRAM contention summed over `runs` (also
// as a summary line). Nothing for a config of one core.
void report_split(const compiler::SplitChoice& choice, const std::vector<compiler::LayerRun>& runs,
                  nlohmann::ordered_json& extra);

// The command's target (--config, --backend); with `verify` the compiler checks every
// synchronised program for cross-stage races before it runs. Also configures the runtime's
// device for it and applies --trace / --vcd there: the compiler then finds the runtime already
// serving the target and keeps that device.
compiler::Target setup_target(const CommonOptions& o, bool verify);

// Prints the layer table (and for a single layer the full counter report), writes the JSON
// report, and turns a failed reference check into an error.
// The report also carries the design's FPGA resources ("area", with the fit on its board's
// device) and the energy of the run ("energy", and "energy_j" per layer); with `plot_path` the
// plot of the report is drawn there.
int finish_compiler_command(const CommonOptions& o, const compiler::Target& target,
                            const std::string& command, const std::string& program,
                            const std::vector<compiler::LayerRun>& runs,
                            nlohmann::ordered_json extra, const std::string& plot_path = "");

}  // namespace vta::cli
