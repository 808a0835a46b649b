/* VTA driver API (upstream apache/tvm-vta include/vta/driver.h signatures), implemented over
 * the simulated DRAM and the backend selected by $VTA_BACKEND (fsim, cycle, rtl) with the
 * hardware configuration of $VTA_CONFIG. */
#ifndef VTA_DRIVER_H_
#define VTA_DRIVER_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef VTA_MAX_XFER
#define VTA_MAX_XFER (1 << 25) /* largest DMA transfer, bytes (instruction and uop buffers) */
#endif
#define VTA_PAGE_BITS 12
#define VTA_PAGE_BYTES (1 << VTA_PAGE_BITS)
#define VTA_CACHED 1
#define VTA_NOT_CACHED 0

typedef void* VTADeviceHandle;
typedef uint32_t vta_phy_addr_t;

VTADeviceHandle VTADeviceAlloc(void);
void VTADeviceFree(VTADeviceHandle handle);
/* Runs insn_count instructions at insn_phy_addr until FINISH. Returns 0 on success, 1 when a
 * timed backend exceeded wait_cycles. */
int VTADeviceRun(VTADeviceHandle device, vta_phy_addr_t insn_phy_addr, uint32_t insn_count,
                 uint32_t wait_cycles);

void* VTAMemAlloc(size_t size, int cached);
void VTAMemFree(void* buf);
vta_phy_addr_t VTAMemGetPhyAddr(void* buf);
void VTAMemCopyFromHost(void* dst, const void* src, size_t size);
void VTAMemCopyToHost(void* dst, const void* src, size_t size);
void VTAFlushCache(void* vir_addr, vta_phy_addr_t phy_addr, int size);
void VTAInvalidateCache(void* vir_addr, vta_phy_addr_t phy_addr, int size);
void VTAProgram(const char* bitstream);

#ifdef __cplusplus
}
#endif
#endif /* VTA_DRIVER_H_ */
