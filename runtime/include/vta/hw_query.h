/* What the runtime's device is (C API, ours): the hardware config it runs on, as JSON and as the
 * derived values a C program needs most (block sizes, element widths, buffer depths), so one
 * binary can adapt to any config chosen by $VTA_CONFIG. Every call resolves the runtime's config
 * on first use, as the other entry points do; a bad $VTA_CONFIG is the usual C API error. The
 * compile-time view of one config is vta/hw_spec_const.h. */
#ifndef VTA_HW_QUERY_H_
#define VTA_HW_QUERY_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The active config as a JSON object (the preset file format plus "model"); the string lives
 * until the runtime is reconfigured or shut down. */
const char* VTAHwConfigJSON(void);
/* The active backend: "fsim", "cycle" or "rtl". */
const char* VTAHwBackendName(void);

uint32_t VTAHwBatch(void);        /* BATCH: rows of a GEMM tile */
uint32_t VTAHwBlockIn(void);      /* BLOCK_IN: input channels per GEMM tile */
uint32_t VTAHwBlockOut(void);     /* BLOCK_OUT: output channels per GEMM tile */
uint32_t VTAHwInpWidth(void);     /* bits per input element lane */
uint32_t VTAHwWgtWidth(void);     /* bits per weight element lane */
uint32_t VTAHwAccWidth(void);     /* bits per accumulator element lane */
uint32_t VTAHwOutWidth(void);     /* bits per output element lane */
uint32_t VTAHwUopBuffDepth(void); /* micro-op buffer entries */
uint32_t VTAHwInpBuffDepth(void); /* input buffer entries (BATCH x BLOCK_IN each) */
uint32_t VTAHwWgtBuffDepth(void); /* weight buffer entries (BLOCK_OUT x BLOCK_IN each) */
uint32_t VTAHwAccBuffDepth(void); /* accumulator buffer entries (BATCH x BLOCK_OUT each) */
uint32_t VTAHwOutBuffDepth(void); /* output buffer entries (BATCH x BLOCK_OUT each) */
uint32_t VTAHwBusBytes(void);     /* bytes per memory bus beat */
double VTAHwClockMHz(void);       /* clock of the timed backends */

#ifdef __cplusplus
}
#endif

#endif /* VTA_HW_QUERY_H_ */
