// Creates the backend named by the user ("fsim", "cycle", "rtl") for a configuration.
// C++ API of libvta, shared by the C runtime (VTA_BACKEND) and the vtasim CLI (--backend).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "vta/sim/backend.h"

namespace vta {

// Backends compiled into this build, in the order shown to users.
std::vector<std::string> available_backends();
// Throws Error naming the value and the available backends if `name` is unknown.
std::unique_ptr<Backend> make_backend(const std::string& name, const HwConfig& cfg, Dram& dram);
// $VTA_BACKEND if set, else the default ("cycle" once that backend exists).
std::string backend_name_from_env();

}  // namespace vta
