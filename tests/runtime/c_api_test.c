/* The VTA C API used from plain C, as upstream code (and what TVM generates) uses it: a GEMM
 * of one input tile by one weight tile plus a ">> 1" ALU epilogue, checked against a C
 * reference. Sizes come from the counters: BLOCK and BATCH are derived from the profiler's
 * byte counts of a one-tile load, so the program works with any $VTA_CONFIG.
 * With the argument "double-free" it frees a buffer twice to show the default error policy. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vta/runtime.h"

static int gemm_finit(void* signature) {
  (void)signature;
  VTAUopPush(0, 0, 0, 0, 0, 0, 0, 0);
  return 0;
}

static int reset_finit(void* signature) {
  (void)signature;
  VTAUopPush(0, 1, 0, 0, 0, 0, 0, 0);
  return 0;
}

static int shr_finit(void* signature) {
  (void)signature;
  VTAUopPush(1, 0, 0, 0, 0, 3 /* SHR */, 1, 1);
  return 0;
}

/* Reads "key": <number> from the profiler JSON. */
static long counter(const char* key) {
  const char* json = VTASimProfilerStatus();
  char pattern[64];
  snprintf(pattern, sizeof(pattern), "\"%s\":", key);
  const char* p = strstr(json, pattern);
  return p ? strtol(p + strlen(pattern), NULL, 10) : -1;
}

int main(int argc, char** argv) {
  static void* reset_handle = NULL;
  static void* gemm_handle = NULL;
  static void* shr_handle = NULL;
  VTACommandHandle cmd = VTATLSCommandHandle();
  if (argc > 1 && strcmp(argv[1], "double-free") == 0) {
    void* b = VTABufferAlloc(16);
    VTABufferFree(b);
    VTABufferFree(b); /* prints "vta: error: VTABufferFree: ..." and exits with status 1 */
    return 0;
  }

  /* Probe the tile sizes: one INP tile and one WGT tile load (BATCH*BLOCK and BLOCK*BLOCK). */
  void* probe = VTABufferAlloc(1 << 16);
  VTALoadBuffer2D(cmd, probe, 0, 1, 1, 1, 0, 0, 0, 0, 0, 2 /* INP */);
  VTALoadBuffer2D(cmd, probe, 0, 1, 1, 1, 0, 0, 0, 0, 0, 1 /* WGT */);
  VTASynchronize(cmd, 1u << 31);
  const long inp_bytes = counter("inp_load_nbytes"), wgt_bytes = counter("wgt_load_nbytes");
  long block = 1;
  while (block * block < wgt_bytes) {
    block *= 2;
  }
  const long batch = inp_bytes / block;
  VTABufferFree(probe);
  VTASimProfilerClear();
  if (block * block != wgt_bytes || batch < 1) {
    fprintf(stderr, "unexpected tile sizes %ld %ld\n", inp_bytes, wgt_bytes);
    return 1;
  }

  signed char* x = malloc(batch * block);
  signed char* w = malloc(block * block);
  signed char* y = malloc(batch * block);
  for (long i = 0; i < batch * block; ++i) {
    x[i] = (signed char)((i * 7) % 23 - 11);
  }
  for (long i = 0; i < block * block; ++i) {
    w[i] = (signed char)((i * 5) % 19 - 9);
  }
  void* xb = VTABufferAlloc(batch * block);
  void* wb = VTABufferAlloc(block * block);
  void* yb = VTABufferAlloc(batch * block);
  VTABufferCopy(x, 0, xb, 0, batch * block, VTA_MEMCPY_H2D);
  VTABufferCopy(w, 0, wb, 0, block * block, VTA_MEMCPY_H2D);

  VTAPushGEMMOp(&reset_handle, reset_finit, NULL, 0);
  VTALoadBuffer2D(cmd, xb, 0, 1, 1, 1, 0, 0, 0, 0, 0, 2 /* INP */);
  VTALoadBuffer2D(cmd, wb, 0, 1, 1, 1, 0, 0, 0, 0, 0, 1 /* WGT */);
  VTADepPush(cmd, 1, 2);
  VTADepPop(cmd, 1, 2);
  VTAPushGEMMOp(&gemm_handle, gemm_finit, NULL, 0);
  VTAPushALUOp(&shr_handle, shr_finit, NULL, 0);
  VTADepPush(cmd, 2, 3);
  VTADepPop(cmd, 2, 3);
  VTAStoreBuffer2D(cmd, 0, 4 /* OUT */, yb, 0, 1, 1, 1);
  VTADepPush(cmd, 3, 2);
  VTADepPop(cmd, 3, 2);
  VTASynchronize(cmd, 1u << 31);
  VTABufferCopy(yb, 0, y, 0, batch * block, VTA_MEMCPY_D2H);

  int errors = 0;
  for (long b = 0; b < batch; ++b) {
    for (long o = 0; o < block; ++o) {
      int sum = 0;
      for (long k = 0; k < block; ++k) {
        sum += x[b * block + k] * w[o * block + k];
      }
      const signed char want = (signed char)(sum >> 1);
      if (y[b * block + o] != want) {
        if (errors++ < 5) {
          printf("mismatch b %ld o %ld: got %d want %d\n", b, o, y[b * block + o], want);
        }
      }
    }
  }
  if (counter("gemm_counter") != 1 || counter("alu_counter") != 1) {
    printf("unexpected counters: %s\n", VTASimProfilerStatus());
    ++errors;
  }
  VTABufferFree(xb);
  VTABufferFree(wb);
  VTABufferFree(yb);
  free(x);
  free(w);
  free(y);
  VTARuntimeShutdown();
  printf("%s\n", errors ? "FAILED" : "PASSED");
  return errors ? 1 : 0;
}
