// The design the compiler generates code for and runs on: a hardware config, the backend that
// executes the programs, and the checks applied to every program. Every compiler entry point
// takes its Target explicitly, so one process can compile and run several designs one after the
// other without depending on the runtime's process-wide configuration.
#pragma once

#include <functional>
#include <string>
#include <utility>

#include "vta/sim/hw_config.h"

namespace vta::compiler {

struct ProgramCheck;

struct Target {
  Target(HwConfig cfg, std::string backend_name)
      : config(std::move(cfg)), backend(std::move(backend_name)) {}

  HwConfig config;
  std::string backend;  // "fsim", "cycle" or "rtl" (vta::available_backends())
  // Run the static program verifier (program_check.h) on every synchronised program before it
  // executes; a problem is a vta::Error "program verifier: ...".
  bool verify_programs = true;
  // Optional: also receives the verifier's result for every checked program (e.g. to collect
  // statistics); called before the error for a failing program is thrown.
  std::function<void(const ProgramCheck&)> on_program_check;
};

}  // namespace vta::compiler
