// The `vtasim` Python module (_vtasim, re-exported by vtasim/__init__.py): configs, layers and
// networks, program images, with the project's errors as Python exceptions.
#include <pybind11/pybind11.h>

#include "py_config.h"
#include "py_layers.h"
#include "py_programs.h"
#include "py_sweep.h"
#include "vta/sim/error.h"

PYBIND11_MODULE(_vtasim, m) {
  namespace pyb = pybind11;
  m.doc() = "VTA simulator: configs, conv2d/matmul/network runs, program images, sweeps.";
  auto error = pyb::register_exception<vta::Error>(m, "Error", PyExc_RuntimeError);
  pyb::register_exception<vta::ConfigError>(m, "ConfigError", error.ptr());
  pyb::register_exception<vta::ProgramError>(m, "ProgramError", error.ptr());
  vta::py::bind_config(m);
  vta::py::bind_layers(m);
  vta::py::bind_programs(m);
  vta::py::bind_sweep(m);
}
