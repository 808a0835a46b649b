// Python bindings of the exploration layer: run a sweep spec into a results database, and read a
// results database back as rows.
#pragma once

#include <pybind11/pybind11.h>

namespace vta::py {

void bind_sweep(pybind11::module_& m);

}  // namespace vta::py
