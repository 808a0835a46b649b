// The C API's side of the runtime: the default instance (Runtime::default_instance()) that the
// extern "C" entry points and the process-wide functions of vta/runtime_cpp.h act on, and the
// error policy of those entry points.
#pragma once

#include "vta/runtime_object.h"

namespace vta {

// The runtime a C entry point acts on: the default instance.
inline Runtime& c_runtime() {
  return Runtime::default_instance();
}

// Called inside a catch block of a C entry point: prefixes the message with the API name, then
// exits (ErrorMode::kExit) or rethrows an exception of the same class (ErrorMode::kThrow).
[[noreturn]] void handle_c_api_error(const char* api, ErrorMode mode);

// Runs `f` with the error policy of `rt` (the runtime the call reached).
template <class F>
auto c_api(Runtime& rt, const char* api, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (...) {
    handle_c_api_error(api, rt.error_mode());
  }
}

// Runs `f` with the default instance's error policy.
template <class F>
auto c_api(const char* api, F&& f) -> decltype(f()) {
  return c_api(c_runtime(), api, std::forward<F>(f));
}

}  // namespace vta
