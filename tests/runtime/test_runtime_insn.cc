// Port of upstream's instruction tests (vta/tests/python/unittest/test_vta_insn.py) to the C
// API, driven the way TVM's lowered code drives it: finit closures that record micro-op
// kernels, VTADepPush/VTADepPop with queue ids 1/2/3, one VTASynchronize. Results are checked
// against plain C++ references and the counters against the upstream counting rules applied to
// the shapes.
#include <algorithm>
#include <cstdint>
#include <vector>

#include <catch2/catch.hpp>

#include "runtime_test_util.h"

using namespace vta;
using namespace vta::rt_test;

namespace {

constexpr uint32_t kSync = 1u << 31;  // wait_cycles TVM passes

// Closure of an element-wise ALU kernel over `extent` consecutive accumulator tiles.
struct AluClosure {
  uint32_t extent;
  uint32_t dst;      // first destination tile
  uint32_t src;      // first source tile (vector op) or dst (immediate op)
  uint32_t op;       // ALU opcode
  uint32_t use_imm;  // 1: immediate operand
  int32_t imm;
};

int alu_finit(void* signature) {
  const auto* c = static_cast<const AluClosure*>(signature);
  VTAUopLoopBegin(c->extent, 1, 1, 0);
  VTAUopPush(1, 0, c->dst, c->src, 0, c->op, c->use_imm, c->imm);
  VTAUopLoopEnd();
  return 0;
}

// Each call site of TVM code owns a static handle; here every push is its own call site.
void push_alu(const AluClosure& c) {
  void* handle = nullptr;
  VTAPushALUOp(&handle, alu_finit, const_cast<AluClosure*>(&c), 0);
}

// Stores `n` out tiles from SRAM index 0 after the compute stage, as TVM brackets a store.
void store_tiles(VTACommandHandle cmd, const Buffer& out, uint32_t sram, uint32_t offset,
                 uint32_t n) {
  VTADepPush(cmd, 2, 3);
  VTADepPop(cmd, 2, 3);
  VTAStoreBuffer2D(cmd, sram, kMemOut, out.get(), offset, n, 1, n);
  VTADepPush(cmd, 3, 2);
  VTADepPop(cmd, 3, 2);
}

std::vector<int8_t> to_i8(const std::vector<int32_t>& v) {
  std::vector<int8_t> r(v.size());
  std::transform(v.begin(), v.end(), r.begin(), [](int32_t x) { return static_cast<int8_t>(x); });
  return r;
}

}  // namespace

TEST_CASE("runtime array round trip through device buffers", "[runtime]") {
  Session s;
  std::mt19937 rng(test_seed());
  INFO("seed " << test_seed());
  const size_t n = 100 * 100 * s.cfg.batch * s.cfg.block_in;  // (100, 100, BATCH, BLOCK) int8
  const auto host = random_vector<int8_t>(rng, n, 1, 10);
  Buffer dev(n);
  dev.upload(host);
  CHECK(dev.download<int8_t>(n) == host);
  // Device-to-device copy with offsets, then back.
  Buffer dev2(n);
  VTABufferCopy(dev.get(), 16, dev2.get(), 32, n - 32, VTA_MEMCPY_D2D);
  const auto back = dev2.download<int8_t>(n);
  CHECK(std::equal(back.begin() + 32, back.end(), host.begin() + 16));
  CHECK(VTABufferCPUPtr(VTATLSCommandHandle(), dev.get()) == dev.get());
  // The driver layer sees the same memory.
  int8_t first = 0;
  VTAMemCopyToHost(&first, dev.get(), 1);
  CHECK(first == host[0]);
  CHECK(VTAMemGetPhyAddr(static_cast<char*>(dev.get()) + 5) == VTAMemGetPhyAddr(dev.get()) + 5);
}

TEST_CASE("save and load out: DMA into acc, >> 0, store", "[runtime]") {
  Session s;
  std::mt19937 rng(test_seed());
  INFO("seed " << test_seed());
  const uint32_t n = 6 * 6;  // (6, 6, BATCH, BLOCK) int32
  const size_t lanes = s.cfg.batch * s.cfg.block_out;
  const auto x = random_vector<int32_t>(rng, n * lanes, 1, 10);
  Buffer xb(x.size() * 4), yb(n * lanes);
  xb.upload(x);
  VTACommandHandle cmd = VTATLSCommandHandle();
  VTALoadBuffer2D(cmd, xb.get(), 0, n, 1, n, 0, 0, 0, 0, 0, kMemAcc);
  push_alu({n, 0, 0, kAluShr, 1, 0});
  store_tiles(cmd, yb, 0, 0, n);
  VTASynchronize(cmd, kSync);
  CHECK(yb.download<int8_t>(n * lanes) == to_i8(x));
  Counters e;
  e.acc = n * uint64_t(s.cfg.acc_elem_bytes);  // 2304 on pynq
  e.uop = 1 * kUopBytes;
  e.out = n * uint64_t(s.cfg.out_elem_bytes);  // 576
  e.alu = n;                                   // 36
  check_counters(e);
}

TEST_CASE("padded load of the accumulator in the five padding cases", "[runtime]") {
  struct Case {
    const char* name;  // upstream name (pads over dims [y, x])
    uint32_t y0, y1, x0, x1;
  };
  const Case cases[] = {{"Y0", 2, 0, 0, 0},
                        {"Y1", 0, 0, 2, 0},
                        {"X0", 0, 2, 0, 0},
                        {"X1", 0, 0, 0, 2},
                        {"all", 1, 1, 1, 1}};
  // One process, one session: every case is its own program.
  Session s;
  std::mt19937 rng(test_seed());
  INFO("seed " << test_seed());
  const uint32_t rows = 3, cols = 5;  // (3, 5, BATCH, BLOCK) int32
  const size_t lanes = s.cfg.batch * s.cfg.block_out;
  Counters e;
  for (const Case& c : cases) {
    INFO("case " << c.name);
    const auto x = random_vector<int32_t>(rng, rows * cols * lanes, 0, 10);
    const uint32_t prow = c.y0 + rows + c.y1, pcol = c.x0 + cols + c.x1, n = prow * pcol;
    Buffer xb(x.size() * 4), yb(n * lanes);
    xb.upload(x);
    VTACommandHandle cmd = VTATLSCommandHandle();
    VTALoadBuffer2D(cmd, xb.get(), 0, cols, rows, cols, c.x0, c.y0, c.x1, c.y1, 0, kMemAcc);
    push_alu({n, 0, 0, kAluShr, 1, 0});
    store_tiles(cmd, yb, 0, 0, n);
    VTASynchronize(cmd, kSync);
    std::vector<int8_t> expect(n * lanes, 0);
    for (uint32_t r = 0; r < rows; ++r) {
      for (uint32_t q = 0; q < cols; ++q) {
        for (size_t l = 0; l < lanes; ++l) {
          expect[((r + c.y0) * pcol + q + c.x0) * lanes + l] =
              static_cast<int8_t>(x[(r * cols + q) * lanes + l]);
        }
      }
    }
    CHECK(yb.download<int8_t>(n * lanes) == expect);
    e.acc += rows * cols * uint64_t(s.cfg.acc_elem_bytes);  // padding is not counted
    e.uop += kUopBytes;
    e.alu += n;
    e.out += n * uint64_t(s.cfg.out_elem_bytes);
  }
  check_counters(e);
}

namespace {

void alu_case(uint32_t op, bool use_imm, int32_t imm_sign) {
  Session s;
  std::mt19937 rng(test_seed());
  INFO("seed " << test_seed() << " op " << alu_op_name(op) << " use_imm " << use_imm);
  const uint32_t n = 8 * 8;  // (8, 8, BATCH, BLOCK) int32
  const size_t lanes = s.cfg.batch * s.cfg.block_out;
  const auto a = random_vector<int32_t>(rng, n * lanes, -16, 16);
  const auto b = random_vector<int32_t>(rng, n * lanes, -16, 16);
  const int32_t imm = std::uniform_int_distribution<int32_t>(1, 4)(rng) * imm_sign;
  Buffer ab(n * lanes * 4), bb(n * lanes * 4), yb(n * lanes);
  ab.upload(a);
  bb.upload(b);
  VTACommandHandle cmd = VTATLSCommandHandle();
  VTALoadBuffer2D(cmd, ab.get(), 0, n, 1, n, 0, 0, 0, 0, 0, kMemAcc);
  if (!use_imm) {
    VTALoadBuffer2D(cmd, bb.get(), 0, n, 1, n, 0, 0, 0, 0, n, kMemAcc);
  }
  push_alu({n, 0, use_imm ? 0 : n, op, use_imm ? 1u : 0u, use_imm ? imm : 0});
  store_tiles(cmd, yb, 0, 0, n);
  VTASynchronize(cmd, kSync);
  std::vector<int8_t> expect(n * lanes);
  for (size_t i = 0; i < expect.size(); ++i) {
    expect[i] = static_cast<int8_t>(testref::ref_alu(op, a[i], use_imm ? imm : b[i]));
  }
  CHECK(yb.download<int8_t>(n * lanes) == expect);
  Counters e;
  e.acc = (use_imm ? 1 : 2) * n * uint64_t(s.cfg.acc_elem_bytes);  // 4096 / 8192 on pynq
  e.uop = kUopBytes;
  e.alu = n;
  e.out = n * uint64_t(s.cfg.out_elem_bytes);  // 1024
  check_counters(e);
}

}  // namespace

TEST_CASE("ALU shift left by immediate (SHR with a negative immediate)", "[runtime]") {
  alu_case(kAluShr, true, -1);
}
TEST_CASE("ALU max with immediate", "[runtime]") {
  alu_case(kAluMax, true, 1);
}
TEST_CASE("ALU max of two tensors", "[runtime]") {
  alu_case(kAluMax, false, 1);
}
TEST_CASE("ALU add immediate", "[runtime]") {
  alu_case(kAluAdd, true, 1);
}
TEST_CASE("ALU add two tensors", "[runtime]") {
  alu_case(kAluAdd, false, 1);
}
TEST_CASE("ALU shift right by immediate", "[runtime]") {
  alu_case(kAluShr, true, 1);
}

TEST_CASE("relu: max 0 then min 127", "[runtime]") {
  Session s;
  std::mt19937 rng(test_seed());
  INFO("seed " << test_seed());
  const uint32_t n = 8 * 10;
  const size_t lanes = s.cfg.batch * s.cfg.block_out;
  const auto a = random_vector<int32_t>(rng, n * lanes, -256, 256);
  Buffer ab(n * lanes * 4), yb(n * lanes);
  ab.upload(a);
  VTACommandHandle cmd = VTATLSCommandHandle();
  VTALoadBuffer2D(cmd, ab.get(), 0, n, 1, n, 0, 0, 0, 0, 0, kMemAcc);
  push_alu({n, 0, 0, kAluMax, 1, 0});
  push_alu({n, 0, 0, kAluMin, 1, 127});
  store_tiles(cmd, yb, 0, 0, n);
  VTASynchronize(cmd, kSync);
  std::vector<int8_t> expect(n * lanes);
  for (size_t i = 0; i < expect.size(); ++i) {
    expect[i] = static_cast<int8_t>(std::clamp(a[i], 0, 127));
  }
  CHECK(yb.download<int8_t>(n * lanes) == expect);
  Counters e;
  e.acc = n * uint64_t(s.cfg.acc_elem_bytes);  // 5120
  e.uop = 2 * kUopBytes;                       // 8
  e.alu = 2 * n;                               // 160
  e.out = n * uint64_t(s.cfg.out_elem_bytes);  // 1280
  check_counters(e);
}

TEST_CASE("shift and scale: (a + shift) >> scale", "[runtime]") {
  Session s;
  std::mt19937 rng(test_seed());
  INFO("seed " << test_seed());
  const uint32_t n = 2 * 8;
  const size_t lanes = s.cfg.batch * s.cfg.block_out;
  const auto a = random_vector<int32_t>(rng, n * lanes, -10, 10);
  const int32_t shift = std::uniform_int_distribution<int32_t>(0, 7)(rng);
  const int32_t scale = std::uniform_int_distribution<int32_t>(1, 4)(rng);
  INFO("shift " << shift << " scale " << scale);
  Buffer ab(n * lanes * 4), yb(n * lanes);
  ab.upload(a);
  VTACommandHandle cmd = VTATLSCommandHandle();
  VTALoadBuffer2D(cmd, ab.get(), 0, n, 1, n, 0, 0, 0, 0, 0, kMemAcc);
  push_alu({n, 0, 0, kAluAdd, 1, shift});
  push_alu({n, 0, 0, kAluShr, 1, scale});
  store_tiles(cmd, yb, 0, 0, n);
  VTASynchronize(cmd, kSync);
  std::vector<int8_t> expect(n * lanes);
  for (size_t i = 0; i < expect.size(); ++i) {
    expect[i] = static_cast<int8_t>((a[i] + shift) >> scale);
  }
  CHECK(yb.download<int8_t>(n * lanes) == expect);
  Counters e;
  e.acc = n * uint64_t(s.cfg.acc_elem_bytes);  // 1024
  e.uop = 2 * kUopBytes;
  e.alu = 2 * n;                               // 32
  e.out = n * uint64_t(s.cfg.out_elem_bytes);  // 256
  check_counters(e);
}

// ---- GEMM: y = clip((x . w^T) >> 8, 0, 127), x (O, ICT, BATCH, BLOCK), w (OCT, ICT, BLOCK, BLOCK)

namespace {

constexpr uint32_t kO = 4;    // output row tiles
constexpr uint32_t kOct = 4;  // output channel tiles
constexpr uint32_t kIct = 2;  // reduction tiles

// Rows per virtual thread (vt = signature value; no signature = one thread of all rows).
uint32_t rows_of(void* sig) {
  return sig == nullptr ? kO : kO / 2;
}
uint32_t vt_of(void* sig) {
  return sig == nullptr ? 0 : static_cast<uint32_t>(*static_cast<int*>(sig));
}

int gemm_reset_finit(void* sig) {
  const uint32_t vt = vt_of(sig), rows = rows_of(sig);
  VTAUopLoopBegin(rows, kOct, 0, 0);
  VTAUopLoopBegin(kOct, 1, 0, 0);
  VTAUopPush(0, 1, vt * rows * kOct, 0, 0, 0, 0, 0);
  VTAUopLoopEnd();
  VTAUopLoopEnd();
  return 0;
}

int gemm_finit(void* sig) {
  const uint32_t vt = vt_of(sig), rows = rows_of(sig);
  VTAUopLoopBegin(rows, kOct, 1, 0);
  VTAUopLoopBegin(kOct, 1, 0, 1);
  VTAUopPush(0, 0, vt * rows * kOct, vt * rows, vt * kOct, 0, 0, 0);
  VTAUopLoopEnd();
  VTAUopLoopEnd();
  return 0;
}

struct EpilogueOp {
  uint32_t op;
  int32_t imm;
};
constexpr EpilogueOp kEpilogue[] = {{kAluShr, 8}, {kAluMax, 0}, {kAluMin, 127}};

// ALU epilogue kernels keyed by (vt * 3 + step); the step's op comes from the table.
int epilogue_finit(void* sig) {
  const int key = *static_cast<int*>(sig);
  const uint32_t vt = static_cast<uint32_t>(key / 3);
  const EpilogueOp& e = kEpilogue[key % 3];
  const uint32_t tiles = (kO / 2) * kOct;
  VTAUopLoopBegin(tiles, 1, 1, 0);
  VTAUopPush(1, 0, vt * tiles, vt * tiles, 0, e.op, 1, e.imm);
  VTAUopLoopEnd();
  return 0;
}

void gemm_case(bool two_threads, int debug_flags) {
  Session s;
  std::mt19937 rng(test_seed());
  INFO("seed " << test_seed() << " threads " << (two_threads ? 2 : 1));
  const HwConfig& c = s.cfg;
  const size_t bi = c.batch * c.block_in, bo = c.batch * c.block_out;
  const auto x = random_vector<int8_t>(rng, kO * kIct * bi, -128, 128);
  const auto w = random_vector<int8_t>(rng, kOct * kIct * c.block_out * c.block_in, -128, 128);
  Buffer xb(x.size()), wb(w.size()), yb(kO * kOct * bo);
  xb.upload(x);
  wb.upload(w);
  static void* h_reset = nullptr;
  static void* h_gemm = nullptr;
  static void* h_alu = nullptr;
  VTACommandHandle cmd = VTATLSCommandHandle();
  VTASetDebugMode(cmd, debug_flags);
  const int threads = two_threads ? 2 : 1;
  const uint32_t rows = kO / threads;
  int vts[2] = {0, 1};
  auto sig = [&](int vt) -> void* { return two_threads ? &vts[vt] : nullptr; };
  for (int vt = 0; vt < threads; ++vt) {
    VTAPushGEMMOp(&h_reset, gemm_reset_finit, sig(vt), two_threads ? 4 : 0);
  }
  for (uint32_t ko = 0; ko < kIct; ++ko) {
    for (int vt = 0; vt < threads; ++vt) {
      if (ko > 0) {
        VTADepPop(cmd, 2, 1);  // the previous tiles of this thread were consumed
      }
      // x tiles [vt*rows .. +rows)[ko] -> inp[vt*rows ..]; all w tiles [..][ko] -> wgt[vt*OCT ..]
      VTALoadBuffer2D(cmd, xb.get(), vt * rows * kIct + ko, 1, rows, kIct, 0, 0, 0, 0, vt * rows,
                      kMemInp);
      VTALoadBuffer2D(cmd, wb.get(), ko, 1, kOct, kIct, 0, 0, 0, 0, vt * kOct, kMemWgt);
      VTADepPush(cmd, 1, 2);
    }
    for (int vt = 0; vt < threads; ++vt) {
      VTADepPop(cmd, 1, 2);
      VTAPushGEMMOp(&h_gemm, gemm_finit, sig(vt), two_threads ? 4 : 0);
      VTADepPush(cmd, 2, 1);
    }
  }
  for (int vt = 0; vt < threads; ++vt) {
    VTADepPop(cmd, 2, 1);  // balance the last WAR tokens
  }
  for (int vt = 0; vt < 2; ++vt) {  // the epilogue kernels always cover half the rows
    for (int step = 0; step < 3; ++step) {
      int key = vt * 3 + step;
      VTAPushALUOp(&h_alu, epilogue_finit, &key, 4);
    }
  }
  store_tiles(cmd, yb, 0, 0, kO * kOct);
  VTASynchronize(cmd, kSync);

  std::vector<int8_t> expect(kO * kOct * bo);
  for (uint32_t o = 0; o < kO; ++o) {
    for (uint32_t oct = 0; oct < kOct; ++oct) {
      for (int b = 0; b < c.batch; ++b) {
        for (int oc = 0; oc < c.block_out; ++oc) {
          int32_t sum = 0;
          for (uint32_t ko = 0; ko < kIct; ++ko) {
            for (int k = 0; k < c.block_in; ++k) {
              sum += int32_t(x[(o * kIct + ko) * bi + b * c.block_in + k]) *
                     int32_t(w[((oct * kIct + ko) * c.block_out + oc) * c.block_in + k]);
            }
          }
          expect[(o * kOct + oct) * bo + b * c.block_out + oc] =
              static_cast<int8_t>(std::clamp(sum >> 8, 0, 127));
        }
      }
    }
  }
  CHECK(yb.download<int8_t>(expect.size()) == expect);
  Counters e;
  e.inp = kIct * kO * uint64_t(c.inp_elem_bytes);
  e.wgt = threads * kIct * kOct * uint64_t(c.wgt_elem_bytes);  // every thread loads all weights
  e.gemm = kIct * kO * kOct;  // one uop per (ko, o, oct); reset GEMMs count nothing
  e.alu = 3 * kO * kOct;
  e.out = kO * kOct * uint64_t(c.out_elem_bytes);
  // Kernels of one uop each, loaded once: reset and GEMM per thread, 6 epilogue kernels.
  e.uop = (2 * threads + 6) * kUopBytes;
  check_counters(e);
}

}  // namespace

TEST_CASE("GEMM, default schedule", "[runtime]") {
  gemm_case(false, 0);
}
TEST_CASE("GEMM, two virtual threads", "[runtime]") {
  gemm_case(true, 0);
}
TEST_CASE("GEMM, two virtual threads, FORCE_SERIAL", "[runtime]") {
  gemm_case(true, VTA_DEBUG_FORCE_SERIAL);
}

TEST_CASE("ACC_8BIT load: int8 DRAM data sign-extended into the accumulator", "[runtime]") {
  Session s;
  std::mt19937 rng(test_seed());
  INFO("seed " << test_seed());
  const uint32_t n = 12;
  const size_t lanes = s.cfg.batch * s.cfg.block_out;
  const auto x = random_vector<int8_t>(rng, n * lanes, -128, 128);
  Buffer xb(x.size()), yb(n * lanes);
  xb.upload(x);
  VTACommandHandle cmd = VTATLSCommandHandle();
  // Rows of 4 elements with stride 4 from element offset 0: all 12, as 3 x 4.
  VTALoadBuffer2D(cmd, xb.get(), 0, 4, 3, 4, 0, 0, 0, 0, 0, kMemAcc8);
  push_alu({n, 0, 0, kAluAdd, 1, -1});
  store_tiles(cmd, yb, 0, 0, n);
  VTASynchronize(cmd, kSync);
  std::vector<int8_t> expect(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    expect[i] = static_cast<int8_t>(int32_t(x[i]) - 1);
  }
  CHECK(yb.download<int8_t>(n * lanes) == expect);
  Counters e;
  e.acc = n * uint64_t(s.cfg.acc_elem_bytes);  // ACC_8BIT counts full accumulator elements
  e.uop = kUopBytes;
  e.alu = n;
  e.out = n * uint64_t(s.cfg.out_elem_bytes);
  check_counters(e);
}

TEST_CASE("driver API: a hand-encoded program through VTADeviceRun", "[runtime]") {
  Session s;
  const HwConfig& c = s.cfg;
  const IsaCodec codec(c);
  const size_t lanes = c.batch * c.block_out;
  const uint32_t n = 2;
  std::vector<int32_t> acc(n * lanes);
  for (size_t i = 0; i < acc.size(); ++i) {
    acc[i] = static_cast<int32_t>(3 * i) - 7;
  }
  void* acc_buf = VTAMemAlloc(acc.size() * 4, VTA_CACHED);
  void* out_buf = VTAMemAlloc(n * lanes, VTA_CACHED);
  void* uop_buf = VTAMemAlloc(kUopBytes, VTA_CACHED);
  void* insn_buf = VTAMemAlloc(8 * kInsnBytes, VTA_CACHED);
  VTAMemCopyFromHost(acc_buf, acc.data(), acc.size() * 4);
  const uint32_t uop = codec.encode_uop(Uop{0, 0, 0});
  VTAMemCopyFromHost(uop_buf, &uop, sizeof(uop));

  std::vector<Insn> prog(5);
  prog[0].opcode = kOpLoad;  // LOAD UOP
  prog[0].memory_type = kMemUop;
  prog[0].dram_base = VTAMemGetPhyAddr(uop_buf) / kUopBytes;
  prog[0].y_size = 1;
  prog[0].x_size = prog[0].x_stride = 1;
  prog[1] = prog[0];  // LOAD ACC
  prog[1].memory_type = kMemAcc;
  prog[1].dram_base = VTAMemGetPhyAddr(acc_buf) / c.acc_elem_bytes;
  prog[1].x_size = prog[1].x_stride = n;
  prog[2].opcode = kOpAlu;  // acc[i] = max(acc[i], 0)
  prog[2].uop_bgn = 0;
  prog[2].uop_end = 1;
  prog[2].iter_out = 1;
  prog[2].iter_in = n;
  prog[2].dst_factor_in = prog[2].src_factor_in = 1;
  prog[2].alu_opcode = kAluMax;
  prog[2].use_imm = true;
  prog[2].push_next_dep = true;
  prog[3].opcode = kOpStore;
  prog[3].memory_type = kMemOut;
  prog[3].dram_base = VTAMemGetPhyAddr(out_buf) / c.out_elem_bytes;
  prog[3].y_size = 1;
  prog[3].x_size = prog[3].x_stride = n;
  prog[3].pop_prev_dep = prog[3].push_prev_dep = true;
  prog[4].opcode = kOpFinish;
  prog[4].pop_next_dep = true;
  std::vector<uint8_t> bytes(prog.size() * kInsnBytes);
  for (size_t i = 0; i < prog.size(); ++i) {
    IsaCodec::store_words(codec.encode(prog[i]), bytes.data() + i * kInsnBytes);
  }
  VTAMemCopyFromHost(insn_buf, bytes.data(), bytes.size());
  VTAFlushCache(insn_buf, VTAMemGetPhyAddr(insn_buf), static_cast<int>(bytes.size()));

  VTADeviceHandle dev = VTADeviceAlloc();
  REQUIRE(VTADeviceRun(dev, VTAMemGetPhyAddr(insn_buf), 5, 1u << 31) == 0);
  std::vector<int8_t> out(n * lanes);
  VTAInvalidateCache(out_buf, VTAMemGetPhyAddr(out_buf), static_cast<int>(out.size()));
  VTAMemCopyToHost(out.data(), out_buf, out.size());
  for (size_t i = 0; i < out.size(); ++i) {
    INFO("lane " << i);
    CHECK(out[i] == static_cast<int8_t>(std::max(acc[i], 0)));
  }
  // The driver shares the runtime's device, so the profiler sees this run.
  CHECK(runtime_stats().alu_counter == n);
  CHECK(runtime_stats().out_store_nbytes == n * uint64_t(c.out_elem_bytes));
  if (runtime_backend_name() != "fsim") {
    // Timed backends give up after wait_cycles and report it as upstream does: return 1.
    CHECK(VTADeviceRun(dev, VTAMemGetPhyAddr(insn_buf), 5, 3) == 1);
  }
  VTADeviceFree(dev);
  REQUIRE_THROWS_WITH(VTADeviceRun(dev, 0, 0, 0),
                      Catch::Matchers::Contains("is not a live device handle from VTADeviceAlloc"));
  for (void* p : {acc_buf, out_buf, uop_buf, insn_buf}) {
    VTAMemFree(p);
  }
}
