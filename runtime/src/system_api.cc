// The C API of several cores (vta/system.h) over the default runtime.
#include "vta/system.h"

#include "runtime_context.h"
#include "vta/runtime_object.h"

using vta::c_api;
using vta::c_runtime;

extern "C" {

int VTASystemCores(void) {
  return c_api("VTASystemCores", [] { return c_runtime().config().num_cores(); });
}

VTADeviceHandle VTADeviceAllocCore(int core) {
  return c_api("VTADeviceAllocCore", [&] { return c_runtime().device_alloc_core(core); });
}

int VTADeviceCore(VTADeviceHandle device) {
  return c_api("VTADeviceCore", [&] { return c_runtime().device_core(device); });
}

void VTACommandCore(int core) {
  c_api("VTACommandCore", [&] { c_runtime().set_command_core(core); });
}

void VTASystemBegin(void) {
  c_api("VTASystemBegin", [] { c_runtime().system_begin(); });
}

int VTASystemRun(uint32_t wait_cycles) {
  return c_api("VTASystemRun", [&] { return c_runtime().system_run(wait_cycles) ? 1 : 0; });
}

}  // extern "C"
