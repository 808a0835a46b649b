// Shared by the binding units of the vtasim Python module: JSON <-> Python conversion, numpy
// arrays that own a C++ vector (no copy), and running a simulation with the GIL released.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <nlohmann/json.hpp>

#include "vta/sim/run_progress.h"

namespace vta::py {

namespace pyb = pybind11;

// JSON value as the equivalent Python object (dict, list, int, float, str, bool, None).
pyb::object to_python(const nlohmann::ordered_json& j);
pyb::object to_python(const nlohmann::json& j);
// A Python value (dict, list, number, str, bool, None) as JSON; throws vta::Error naming `what`
// for anything else.
nlohmann::json from_python(const pyb::handle& h, const std::string& what);

// An int8 numpy array of `shape` that takes ownership of `data` (no copy).
pyb::array_t<int8_t> to_numpy(std::vector<int8_t>&& data, const std::vector<pyb::ssize_t>& shape);
// The elements of a C-contiguous int8 array (any shape) after checking its size; throws
// vta::Error naming `what` and the expected element count.
std::vector<int8_t> int8_elements(const pyb::handle& array, size_t expected, const char* what);
std::vector<int32_t> int32_elements(const pyb::handle& array, size_t expected, const char* what);

// Runs `f` with the GIL released. Each call works on its own runtime (its Target's) or its own
// backend, so Python threads simulate at the same time; the cycle and rtl backends take turns
// inside SystemC by themselves (vta/runtime_object.h).
template <class F>
auto without_gil(F&& f) {
  pyb::gil_scoped_release nogil;
  return f();
}

// The Python thread's stop check while a simulation holds no GIL (vta/sim/run_progress.h): true
// when a signal is pending (Ctrl-C). Takes the GIL for the check; the signal's own exception is
// dropped, and interruptible() raises KeyboardInterrupt in its place.
bool python_signal_pending();

// without_gil(f) with python_signal_pending as the thread's stop check, which the backends ask
// inside long instructions and runs (once per 2^20 work units or cycles): Ctrl-C stops the
// simulation where it is and raises KeyboardInterrupt.
template <class F>
auto interruptible(F&& f) {
  try {
    pyb::gil_scoped_release nogil;
    const ScopedStopCheck stop(&python_signal_pending);
    return f();
  } catch (const RunInterrupted&) {
    PyErr_SetNone(PyExc_KeyboardInterrupt);
    throw pyb::error_already_set();
  }
}

}  // namespace vta::py
