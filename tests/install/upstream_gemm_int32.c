/* A GEMM program with 32-bit elements written against the C API the upstream way (the structs of
 * vta/hw_spec.h, the constants of vta/hw_spec_const.h generated for configs/pynq_int32.json,
 * VTAMemAlloc and VTADeviceRun): one tile of seeded random int32 inputs and weights over their
 * whole range, accumulated twice into int32 lanes, stored as int32 outputs. The reference is a
 * plain C product modulo 2^32 (the accumulator width). Exit status 0 when everything matches. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vta/driver.h>
#include <vta/hw_query.h>
#include <vta/hw_spec.h>
#include <vta/runtime.h>

#if VTA_INP_WIDTH != 32 || VTA_WGT_WIDTH != 32 || VTA_ACC_WIDTH != 32
#error "upstream_gemm_int32 needs vta/hw_spec_const.h of a config with 32-bit elements"
#endif

enum { kSeed = 20261126, kInsns = 9 };

static int failures = 0;

static void expect(int ok, const char* what, long long got, long long want) {
  if (!ok) {
    printf("FAIL: %s: got %lld, want %lld\n", what, got, want);
    ++failures;
  }
}

/* The integer after "key": in the profiler's JSON (-1 if absent). */
static long long counter(const char* json, const char* key) {
  char pattern[64];
  snprintf(pattern, sizeof pattern, "\"%s\":", key);
  const char* p = strstr(json, pattern);
  return p ? atoll(p + strlen(pattern)) : -1;
}

static union VTAInsn mem_insn(int opcode, int type, uint32_t sram, uint32_t dram, uint32_t x) {
  union VTAInsn i; /* upstream writes the tag */
  memset(&i, 0, sizeof i);
  i.mem.opcode = opcode;
  i.mem.memory_type = type;
  i.mem.sram_base = sram;
  i.mem.dram_base = dram;
  i.mem.y_size = x ? 1 : 0;
  i.mem.x_size = x;
  i.mem.x_stride = x;
  return i;
}

static union VTAInsn gemm_insn(int reset) {
  union VTAInsn i; /* upstream writes the tag */
  memset(&i, 0, sizeof i);
  i.gemm.opcode = VTA_OPCODE_GEMM;
  i.gemm.reset_reg = reset;
  i.gemm.uop_bgn = 0;
  i.gemm.uop_end = 1;
  i.gemm.iter_out = 1;
  i.gemm.iter_in = 1;
  return i;
}

/* A random 32-bit value with every bit pattern possible. */
static int32_t random_i32(void) {
  return (int32_t)(((uint32_t)rand() << 16) ^ (uint32_t)rand());
}

int main(void) {
  printf("upstream_gemm_int32: backend %s, model %s, seed %d\n", VTAHwBackendName(), VTA_MODEL,
         kSeed);
  expect(VTAHwInpWidth() == 32 && VTAHwWgtWidth() == 32 && VTAHwAccWidth() == 32,
         "device widths (inp, wgt, acc) are 32", VTAHwInpWidth(), 32);
  srand(kSeed);
  int32_t* inp = (int32_t*)VTAMemAlloc(VTA_INP_ELEM_BYTES, 0);
  int32_t* wgt = (int32_t*)VTAMemAlloc(VTA_WGT_ELEM_BYTES, 0);
  int32_t* out = (int32_t*)VTAMemAlloc(VTA_OUT_ELEM_BYTES, 0);
  VTAUop* uop = (VTAUop*)VTAMemAlloc(sizeof(VTAUop), 0);
  VTAInsn* insn = (VTAInsn*)VTAMemAlloc(kInsns * sizeof(VTAInsn), 0);
  for (int k = 0; k < VTA_BATCH * VTA_BLOCK_IN; ++k) {
    inp[k] = random_i32();
  }
  for (int k = 0; k < VTA_BLOCK_OUT * VTA_BLOCK_IN; ++k) {
    wgt[k] = random_i32();
  }
  memset(uop, 0, sizeof(VTAUop)); /* dst 0, src 0, wgt 0 */
  insn[0] =
      mem_insn(VTA_OPCODE_LOAD, VTA_MEM_ID_UOP, 0, VTAMemGetPhyAddr(uop) / VTA_UOP_ELEM_BYTES, 1);
  insn[1] =
      mem_insn(VTA_OPCODE_LOAD, VTA_MEM_ID_WGT, 0, VTAMemGetPhyAddr(wgt) / VTA_WGT_ELEM_BYTES, 1);
  insn[2] =
      mem_insn(VTA_OPCODE_LOAD, VTA_MEM_ID_INP, 0, VTAMemGetPhyAddr(inp) / VTA_INP_ELEM_BYTES, 1);
  insn[2].mem.push_next_dep = 1; /* load -> compute: inputs are in */
  insn[3] = gemm_insn(1);
  insn[4] = gemm_insn(0);
  insn[4].gemm.pop_prev_dep = 1;
  insn[5] = gemm_insn(0);         /* twice: acc = 2 * (inp x wgt) mod 2^32 */
  insn[5].gemm.push_next_dep = 1; /* compute -> store: the result is in */
  insn[6] =
      mem_insn(VTA_OPCODE_STORE, VTA_MEM_ID_OUT, 0, VTAMemGetPhyAddr(out) / VTA_OUT_ELEM_BYTES, 1);
  insn[6].mem.pop_prev_dep = 1;
  insn[6].mem.push_prev_dep = 1;                                /* store -> compute: stored */
  insn[7] = mem_insn(VTA_OPCODE_LOAD, VTA_MEM_ID_UOP, 0, 0, 0); /* compute NOP waits for it */
  insn[7].mem.pop_next_dep = 1;
  memset(&insn[8], 0, sizeof(VTAInsn));
  insn[8].gemm.opcode = VTA_OPCODE_FINISH;

  VTASimProfilerClear();
  VTADeviceHandle dev = VTADeviceAlloc();
  expect(VTADeviceRun(dev, VTAMemGetPhyAddr(insn), kInsns, 10000000) == 0, "VTADeviceRun", 1, 0);
  for (int b = 0; b < VTA_BATCH; ++b) {
    for (int o = 0; o < VTA_BLOCK_OUT; ++o) {
      uint32_t sum = 0; /* unsigned: the wrap modulo 2^32 is defined */
      for (int i = 0; i < VTA_BLOCK_IN; ++i) {
        sum += (uint32_t)inp[b * VTA_BLOCK_IN + i] * (uint32_t)wgt[o * VTA_BLOCK_IN + i];
      }
      sum *= 2u;
      expect((uint32_t)out[b * VTA_BLOCK_OUT + o] == sum, "output element",
             out[b * VTA_BLOCK_OUT + o], (int32_t)sum);
    }
  }
  const char* st = VTASimProfilerStatus();
  expect(counter(st, "out_store_nbytes") == VTA_OUT_ELEM_BYTES, "out_store_nbytes",
         counter(st, "out_store_nbytes"), VTA_OUT_ELEM_BYTES);
  expect(counter(st, "gemm_counter") == 2, "gemm_counter", counter(st, "gemm_counter"), 2);
  VTADeviceFree(dev);
  VTAMemFree(insn);
  VTAMemFree(uop);
  VTAMemFree(out);
  VTAMemFree(wgt);
  VTAMemFree(inp);
  printf("upstream_gemm_int32: %s\n", failures ? "FAILED" : "ok");
  return failures ? 1 : 0;
}
