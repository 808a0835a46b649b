/* Several VTA cores sharing one DRAM (C API, ours; docs/multicore.md). A config with CORES is a
 * system of cores behind one interconnect; each core is a device. VTADeviceAlloc hands out core
 * 0 first, then 1, 2, ... (the lowest core no live handle holds); VTADeviceAllocCore picks one.
 * VTADeviceRun runs the stream on its handle's core, the other cores idle. The runtime calls of
 * vta/runtime.h (VTALoadBuffer2D ... VTASynchronize) record into the command queue of the core
 * VTACommandCore chose (0 by default), each core's queue with its own instruction and micro-op
 * buffers, so a single-core program runs unchanged on core 0.
 *
 * To run several cores together: VTASystemBegin(), then one VTADeviceRun or VTASynchronize per
 * core (each keeps its program instead of running it), then VTASystemRun(wait_cycles) starts
 * them all in the same cycle and returns when every core has executed FINISH. */
#ifndef VTA_SYSTEM_H_
#define VTA_SYSTEM_H_

#include <stdint.h>

#include "vta/driver.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Cores of the runtime's config: CORES, or 1 without it. */
int VTASystemCores(void);
/* A device on core `core` (0 <= core < VTASystemCores()); several handles may share a core. */
VTADeviceHandle VTADeviceAllocCore(int core);
/* The core of a device handle. */
int VTADeviceCore(VTADeviceHandle device);
/* The core whose command queue the later vta/runtime.h calls use. */
void VTACommandCore(int core);
/* Later VTADeviceRun / VTASynchronize calls keep their program (one per core) for VTASystemRun. */
void VTASystemBegin(void);
/* Runs the kept programs together; 1 if `wait_cycles` (0 = no limit) ran out first, else 0. */
int VTASystemRun(uint32_t wait_cycles);

#ifdef __cplusplus
}
#endif

#endif /* VTA_SYSTEM_H_ */
