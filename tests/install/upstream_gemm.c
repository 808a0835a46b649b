/* A program written the way upstream's hardware tests are: instructions and micro-ops built with
 * the structs of vta/hw_spec.h and the constants of vta/hw_spec_const.h, placed in buffers from
 * VTAMemAlloc and run with VTADeviceRun. One GEMM tile (BATCH x BLOCK_IN times BLOCK_OUT x
 * BLOCK_IN, seeded random values in -1..1 so every sum fits int8), checked against a plain C
 * product, and the upstream counters (vta-reference.md 5.1) against their formulas. Also checks
 * that the runtime's config queries agree with the compile-time constants.
 * Declarations use the tags as upstream does (union VTAInsn); the program is also built as C++.
 * Exit status 0 when everything matches. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vta/driver.h>
#include <vta/hw_query.h>
#include <vta/hw_spec.h>
#include <vta/runtime.h>

enum { kSeed = 20261123, kInsns = 8 };

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

static void check_queries(void) {
  expect(VTAHwBatch() == VTA_BATCH, "VTAHwBatch", VTAHwBatch(), VTA_BATCH);
  expect(VTAHwBlockIn() == VTA_BLOCK_IN, "VTAHwBlockIn", VTAHwBlockIn(), VTA_BLOCK_IN);
  expect(VTAHwBlockOut() == VTA_BLOCK_OUT, "VTAHwBlockOut", VTAHwBlockOut(), VTA_BLOCK_OUT);
  expect(VTAHwInpBuffDepth() == VTA_INP_BUFF_DEPTH, "VTAHwInpBuffDepth", VTAHwInpBuffDepth(),
         VTA_INP_BUFF_DEPTH);
  expect(VTAHwAccBuffDepth() == VTA_ACC_BUFF_DEPTH, "VTAHwAccBuffDepth", VTAHwAccBuffDepth(),
         VTA_ACC_BUFF_DEPTH);
  expect(strstr(VTAHwConfigJSON(), VTA_MODEL) != NULL, "VTAHwConfigJSON names the model", 0, 1);
}

int main(void) {
  printf("upstream_gemm: backend %s, model %s, seed %d\n", VTAHwBackendName(), VTA_MODEL, kSeed);
  check_queries();
  srand(kSeed);
  int8_t* inp = (int8_t*)VTAMemAlloc(VTA_INP_ELEM_BYTES, 0);
  int8_t* wgt = (int8_t*)VTAMemAlloc(VTA_WGT_ELEM_BYTES, 0);
  int8_t* out = (int8_t*)VTAMemAlloc(VTA_OUT_ELEM_BYTES, 0);
  VTAUop* uop = (VTAUop*)VTAMemAlloc(sizeof(VTAUop), 0);
  VTAInsn* insn = (VTAInsn*)VTAMemAlloc(kInsns * sizeof(VTAInsn), 0);
  for (int k = 0; k < VTA_INP_ELEM_BYTES; ++k) {
    inp[k] = (int8_t)(rand() % 3 - 1);
  }
  for (int k = 0; k < VTA_WGT_ELEM_BYTES; ++k) {
    wgt[k] = (int8_t)(rand() % 3 - 1);
  }
  memset(uop, 0, sizeof(VTAUop)); /* dst 0, src 0, wgt 0 */
  /* DRAM addresses in elements of each memory type (physical address / element bytes). */
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
  insn[4].gemm.push_next_dep = 1; /* compute -> store: the result is in */
  insn[5] =
      mem_insn(VTA_OPCODE_STORE, VTA_MEM_ID_OUT, 0, VTAMemGetPhyAddr(out) / VTA_OUT_ELEM_BYTES, 1);
  insn[5].mem.pop_prev_dep = 1;
  insn[5].mem.push_prev_dep = 1;                                /* store -> compute: stored */
  insn[6] = mem_insn(VTA_OPCODE_LOAD, VTA_MEM_ID_UOP, 0, 0, 0); /* compute NOP waits for it */
  insn[6].mem.pop_next_dep = 1;
  memset(&insn[7], 0, sizeof(VTAInsn));
  insn[7].gemm.opcode = VTA_OPCODE_FINISH;

  VTASimProfilerClear();
  VTADeviceHandle dev = VTADeviceAlloc();
  expect(VTADeviceRun(dev, VTAMemGetPhyAddr(insn), kInsns, 10000000) == 0, "VTADeviceRun", 1, 0);
  for (int b = 0; b < VTA_BATCH; ++b) {
    for (int o = 0; o < VTA_BLOCK_OUT; ++o) {
      int sum = 0;
      for (int i = 0; i < VTA_BLOCK_IN; ++i) {
        sum += inp[b * VTA_BLOCK_IN + i] * wgt[o * VTA_BLOCK_IN + i];
      }
      expect(out[b * VTA_BLOCK_OUT + o] == sum, "output element", out[b * VTA_BLOCK_OUT + o], sum);
    }
  }
  const char* st = VTASimProfilerStatus();
  expect(counter(st, "inp_load_nbytes") == VTA_INP_ELEM_BYTES, "inp_load_nbytes",
         counter(st, "inp_load_nbytes"), VTA_INP_ELEM_BYTES);
  expect(counter(st, "wgt_load_nbytes") == VTA_WGT_ELEM_BYTES, "wgt_load_nbytes",
         counter(st, "wgt_load_nbytes"), VTA_WGT_ELEM_BYTES);
  expect(counter(st, "uop_load_nbytes") == VTA_UOP_ELEM_BYTES, "uop_load_nbytes",
         counter(st, "uop_load_nbytes"), VTA_UOP_ELEM_BYTES);
  expect(counter(st, "out_store_nbytes") == VTA_OUT_ELEM_BYTES, "out_store_nbytes",
         counter(st, "out_store_nbytes"), VTA_OUT_ELEM_BYTES);
  expect(counter(st, "gemm_counter") == 1, "gemm_counter", counter(st, "gemm_counter"), 1);
  expect(counter(st, "alu_counter") == 0, "alu_counter", counter(st, "alu_counter"), 0);
  VTADeviceFree(dev);
  VTAMemFree(insn);
  VTAMemFree(uop);
  VTAMemFree(out);
  VTAMemFree(wgt);
  VTAMemFree(inp);
  printf("upstream_gemm: %s\n", failures ? "FAILED" : "ok");
  return failures ? 1 : 0;
}
