// vtasim.conv2d / matmul / network / schedules: compile and run layers and networks on any
// backend through the compiler's explicit Target; results as plain Python objects.
#pragma once

#include <pybind11/pybind11.h>

namespace vta::py {

void bind_layers(pybind11::module_& m);

}  // namespace vta::py
