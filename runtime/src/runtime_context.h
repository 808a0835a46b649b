// The process-wide runtime state behind the C API: one simulated DRAM, the active hardware
// config and backend name, the single device every VTADeviceAlloc handle and the command queue
// share (SystemC allows one simulation per process, and upstream's profiler is process-wide
// too), the command queue, and the error policy of the C entry points.
#pragma once

#include <memory>
#include <string>

#include "command_queue.h"
#include "device_memory.h"
#include "vta/runtime_cpp.h"

namespace vta {

DeviceMemory& device_memory();
// The device (backend) of the runtime, created from the active config on first use.
Backend& runtime_device();
// The command queue, created on first use; `current_command_queue` returns null if none.
CommandQueue& command_queue();
CommandQueue* current_command_queue();
void destroy_command_queue();

// Device handles handed out by VTADeviceAlloc (all refer to runtime_device()).
void* new_device_handle();
void check_device_handle(void* handle, const char* who);
// Storage of the string VTASimProfilerStatus returns.
std::string& profiler_status_buffer();
void free_device_handle(void* handle);

// Called inside a catch block of a C entry point: prefixes the message with the API name, then
// exits (ErrorMode::kExit) or rethrows an exception of the same class (ErrorMode::kThrow).
[[noreturn]] void handle_c_api_error(const char* api);

// Runs `f` with the C API error policy.
template <class F>
auto c_api(const char* api, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (...) {
    handle_c_api_error(api);
  }
}

}  // namespace vta
