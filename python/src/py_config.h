// vtasim.Config: a hardware configuration (preset name or JSON file, with key overrides),
// validated exactly as the CLI validates it, with its derived values.
#pragma once

#include <string>

#include <pybind11/pybind11.h>

#include "vta/sim/hw_config.h"

namespace vta::py {

// A preset name ("pynq", "small", ...) or the path of a config JSON, with `overrides` (a dict of
// config keys) applied on top and validated; throws ConfigError naming the key.
HwConfig load_config(const std::string& name_or_path, const pybind11::dict& overrides);
// A Config object or a preset name / path given where a config is expected.
HwConfig config_arg(const pybind11::handle& h);

void bind_config(pybind11::module_& m);

}  // namespace vta::py
