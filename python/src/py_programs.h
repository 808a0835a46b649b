// vtasim.Program: an instruction-stream image (the `vtasim run` format): load, save, disassemble
// and run it on any backend.
#pragma once

#include <pybind11/pybind11.h>

namespace vta::py {

void bind_programs(pybind11::module_& m);

}  // namespace vta::py
