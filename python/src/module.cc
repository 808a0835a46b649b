// The `vtasim` Python module (_vtasim, re-exported by vtasim/__init__.py): configs, layers and
// networks, program images, with the project's errors as Python exceptions.
#include <pybind11/pybind11.h>

#include "py_config.h"
#include "py_layers.h"
#include "py_programs.h"
#include "py_sweep.h"
#include "vta/sim/error.h"

namespace {
PyObject* vtasim_error = nullptr;  // vtasim.Error
}  // namespace

PYBIND11_MODULE(_vtasim, m) {
  namespace pyb = pybind11;
  m.doc() = "VTA simulator: configs, conv2d/matmul/network runs, program images, sweeps.";
  auto error = pyb::register_exception<vta::Error>(m, "Error", PyExc_RuntimeError);
  pyb::register_exception<vta::ConfigError>(m, "ConfigError", error.ptr());
  pyb::register_exception<vta::ProgramError>(m, "ProgramError", error.ptr());
  vtasim_error = error.ptr();  // the module holds the reference
  // A value of the wrong type met inside a call (pybind's cast_error) is the caller's error:
  // vtasim.Error with what was expected, not a bare RuntimeError.
  pyb::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) {
        std::rethrow_exception(p);
      }
    } catch (const pyb::cast_error& e) {
      PyErr_SetString(vtasim_error,
                      (std::string("an argument has the wrong type: ") + e.what()).c_str());
    }
  });
  vta::py::bind_config(m);
  vta::py::bind_layers(m);
  vta::py::bind_programs(m);
  vta::py::bind_sweep(m);
}
