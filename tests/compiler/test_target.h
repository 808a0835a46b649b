// The target of a backend test: a preset design from configs/ on one backend, with errors
// thrown (not printed and exited) so that Catch2 can check them.
#pragma once

#include <string>

#include "test_paths.h"
#include "vta/compiler/target.h"
#include "vta/runtime_cpp.h"
#include "vta/sim/hw_config.h"

inline vta::compiler::Target use(const std::string& backend, const char* config) {
  vta::set_error_mode(vta::ErrorMode::kThrow);
  return vta::compiler::Target(vta::HwConfig::from_file(config_path(config)), backend);
}
