// The driver C API (driver.h) over the process-wide simulated DRAM and device.
#include "vta/driver.h"

#include <cstring>

#include <fmt/format.h>

#include "runtime_context.h"
#include "vta/sim/error.h"

using vta::c_api;

extern "C" {

VTADeviceHandle VTADeviceAlloc(void) {
  return c_api("VTADeviceAlloc", [] { return vta::new_device_handle(); });
}

void VTADeviceFree(VTADeviceHandle handle) {
  c_api("VTADeviceFree", [&] { vta::free_device_handle(handle); });
}

int VTADeviceRun(VTADeviceHandle device, vta_phy_addr_t insn_phy_addr, uint32_t insn_count,
                 uint32_t wait_cycles) {
  return c_api("VTADeviceRun", [&] {
    vta::check_device_handle(device, "VTADeviceRun");
    const vta::RunStatus st = vta::runtime_device().run(insn_phy_addr, insn_count, wait_cycles);
    return st == vta::RunStatus::kTimeout ? 1 : 0;
  });
}

void* VTAMemAlloc(size_t size, int cached) {
  (void)cached;  // the simulated DRAM is coherent
  return c_api("VTAMemAlloc", [&] { return vta::device_memory().alloc(size); });
}

void VTAMemFree(void* buf) {
  c_api("VTAMemFree", [&] { vta::device_memory().free(buf, "VTAMemFree"); });
}

vta_phy_addr_t VTAMemGetPhyAddr(void* buf) {
  return c_api("VTAMemGetPhyAddr",
               [&] { return vta::device_memory().phys_addr(buf, "VTAMemGetPhyAddr"); });
}

void VTAMemCopyFromHost(void* dst, const void* src, size_t size) {
  c_api("VTAMemCopyFromHost", [&] {
    vta::DeviceMemory::host_range(src, 0, size, "VTAMemCopyFromHost", "source");
    vta::device_memory().check_range(dst, size, "VTAMemCopyFromHost", "destination");
    if (size > 0) {
      std::memcpy(dst, src, size);
    }
  });
}

void VTAMemCopyToHost(void* dst, const void* src, size_t size) {
  c_api("VTAMemCopyToHost", [&] {
    vta::DeviceMemory::host_range(dst, 0, size, "VTAMemCopyToHost", "destination");
    vta::device_memory().check_range(src, size, "VTAMemCopyToHost", "source");
    if (size > 0) {
      std::memcpy(dst, src, size);
    }
  });
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
