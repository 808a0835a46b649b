// The driver C API (driver.h) over the default runtime's simulated DRAM and device.
#include "vta/driver.h"

#include <cstring>

#include <fmt/format.h>

#include "hw_spec_check.h"
#include "runtime_context.h"
#include "vta/runtime.h"
#include "vta/sim/error.h"

using vta::c_api;
using vta::c_runtime;

extern "C" {

VTADeviceHandle VTADeviceAlloc(void) {
  return c_api("VTADeviceAlloc", [] { return c_runtime().device_alloc(); });
}

void VTADeviceFree(VTADeviceHandle handle) {
  c_api("VTADeviceFree", [&] { c_runtime().device_free(handle); });
}

int VTADeviceRun(VTADeviceHandle device, vta_phy_addr_t insn_phy_addr, uint32_t insn_count,
                 uint32_t wait_cycles) {
  return c_api("VTADeviceRun", [&] {
    vta::check_declared_hw_spec(c_runtime().config());
    return c_runtime().device_run(device, insn_phy_addr, insn_count, wait_cycles) ? 1 : 0;
  });
}

void* VTAMemAlloc(size_t size, int cached) {
  (void)cached;  // the simulated DRAM is coherent
  return c_api("VTAMemAlloc", [&] { return c_runtime().buffer_alloc(size, "VTAMemAlloc"); });
}

void VTAMemFree(void* buf) {
  c_api("VTAMemFree", [&] { c_runtime().buffer_free(buf, "VTAMemFree"); });
}

vta_phy_addr_t VTAMemGetPhyAddr(void* buf) {
  return c_api("VTAMemGetPhyAddr", [&] { return c_runtime().phys_addr(buf, "VTAMemGetPhyAddr"); });
}

void VTAMemCopyFromHost(void* dst, const void* src, size_t size) {
  c_api("VTAMemCopyFromHost", [&] {
    c_runtime().buffer_copy(src, 0, dst, 0, size, VTA_MEMCPY_H2D, "VTAMemCopyFromHost");
  });
}

void VTAMemCopyToHost(void* dst, const void* src, size_t size) {
  c_api("VTAMemCopyToHost",
        [&] { c_runtime().buffer_copy(src, 0, dst, 0, size, VTA_MEMCPY_D2H, "VTAMemCopyToHost"); });
}

// The simulated memory is coherent: cache maintenance has nothing to do.
void VTAFlushCache(void* vir_addr, vta_phy_addr_t phy_addr, int size) {
  (void)vir_addr;
  (void)phy_addr;
  (void)size;
}

void VTAInvalidateCache(void* vir_addr, vta_phy_addr_t phy_addr, int size) {
  (void)vir_addr;
  (void)phy_addr;
  (void)size;
}

void VTAProgram(const char* bitstream) {
  (void)bitstream;
}

}  // extern "C"
