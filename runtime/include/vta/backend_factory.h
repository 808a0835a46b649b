// Creates the backend named by the user ("fsim", "cycle", "rtl") for a configuration.
// C++ API of libvta, shared by the C runtime (VTA_BACKEND) and the vtasim CLI (--backend). The
// list is whatever registered itself in the backend registry (vta/sim/backend_registry.h).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "vta/sim/backend.h"

namespace vta {

// Backends compiled into this build, in the order shown to users (fsim, rtl, cycle).
std::vector<std::string> available_backends();
// Throws Error naming the value and the available backends if `name` is unknown.
std::unique_ptr<Backend> make_backend(const std::string& name, const HwConfig& cfg, Dram& dram);
// $VTA_BACKEND if set, else the default: the last available backend ("cycle").
std::string backend_name_from_env();

}  // namespace vta
