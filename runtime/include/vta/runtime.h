/* VTA runtime API (upstream apache/tvm vta/runtime/runtime.h signatures). Calls are batched
 * into an instruction stream that runs at VTASynchronize. */
#ifndef VTA_RUNTIME_H_
#define VTA_RUNTIME_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vta/driver.h"

#ifdef __cplusplus
extern "C" {
#endif

#define VTA_MEMCPY_H2D 1
#define VTA_MEMCPY_D2H 2
#define VTA_MEMCPY_D2D 3

#define VTA_DEBUG_DUMP_INSN (1 << 1)
#define VTA_DEBUG_DUMP_UOP (1 << 2)
#define VTA_DEBUG_SKIP_READ_BARRIER (1 << 3)
#define VTA_DEBUG_SKIP_WRITE_BARRIER (1 << 4)
#define VTA_DEBUG_FORCE_SERIAL (1 << 5)
#define VTA_DEBUG_LOG_INSN (1 << 6)

typedef void* VTACommandHandle;

void* VTABufferAlloc(size_t size);
void VTABufferFree(void* buffer);
void VTABufferCopy(const void* from, size_t from_offset, void* to, size_t to_offset, size_t size,
                   int kind_mask);
VTACommandHandle VTATLSCommandHandle(void);
void VTARuntimeShutdown(void);
void* VTABufferCPUPtr(VTACommandHandle cmd, void* buffer);
void VTAWriteBarrier(VTACommandHandle cmd, void* buffer, uint32_t elem_bits, uint32_t start,
                     uint32_t extent);
void VTAReadBarrier(VTACommandHandle cmd, void* buffer, uint32_t elem_bits, uint32_t start,
                    uint32_t extent);
void VTASetDebugMode(VTACommandHandle cmd, int debug_flag);

void VTALoadBuffer2D(VTACommandHandle cmd, void* src_dram_addr, uint32_t src_elem_offset,
                     uint32_t x_size, uint32_t y_size, uint32_t x_stride, uint32_t x_pad_before,
                     uint32_t y_pad_before, uint32_t x_pad_after, uint32_t y_pad_after,
                     uint32_t dst_sram_index, uint32_t dst_memory_type);
void VTAStoreBuffer2D(VTACommandHandle cmd, uint32_t src_sram_index, uint32_t src_memory_type,
                      void* dst_dram_addr, uint32_t dst_elem_offset, uint32_t x_size,
                      uint32_t y_size, uint32_t x_stride);

void VTAUopPush(uint32_t mode, uint32_t reset_out, uint32_t dst_index, uint32_t src_index,
                uint32_t wgt_index, uint32_t opcode, uint32_t use_imm, int32_t imm_val);
void VTAUopLoopBegin(uint32_t extent, uint32_t dst_factor, uint32_t src_factor,
                     uint32_t wgt_factor);
void VTAUopLoopEnd(void);
int VTAPushGEMMOp(void** uop_handle, int (*finit)(void*), void* signature, int nbytes);
int VTAPushALUOp(void** uop_handle, int (*finit)(void*), void* signature, int nbytes);

int VTADepPush(VTACommandHandle cmd, int from_qid, int to_qid);
int VTADepPop(VTACommandHandle cmd, int from_qid, int to_qid);
void VTASynchronize(VTACommandHandle cmd, uint32_t wait_cycles);

/* Simulator statistics of everything run since the last clear, as a JSON object: the seven
 * upstream counters (inp_load_nbytes, wgt_load_nbytes, acc_load_nbytes, uop_load_nbytes,
 * out_store_nbytes, gemm_counter, alu_counter) and, on timed backends, "cycles" plus the
 * backend's own counters. The string stays valid until the next call. */
const char* VTASimProfilerStatus(void);
void VTASimProfilerClear(void);

/* Called before main by every program that includes vta/hw_spec.h, with the VTA_HW_SPEC_SIGNATURE
 * of the vta/hw_spec_const.h it was built with; VTASynchronize and VTADeviceRun then refuse a
 * device whose configuration differs, naming both. */
void VTASimDeclareHwSpec(const char* signature);

#ifdef __cplusplus
}
#endif
#endif /* VTA_RUNTIME_H_ */
