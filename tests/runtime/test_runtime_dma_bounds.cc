// Device memory knows its allocations: a LOAD or STORE that leaves the buffer it starts in, or
// touches a freed buffer, is an error naming the instruction, the buffer and the bytes, through
// the command queue and through VTADeviceRun; the switch lets programs that address one region
// across buffers on purpose run.
#include <cstdlib>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <catch2/catch.hpp>

#include "runtime_test_util.h"
#include "vta/driver.h"
#include "vta/runtime_object.h"

using namespace vta;
using namespace vta::rt_test;
using Catch::Matchers::Contains;

namespace {

HwConfig pynq() {
  return HwConfig::from_file(config_path("pynq"));
}

// finit: OUT = ACC for the signature's number of rows (acc += 0 narrows into OUT).
int copy_acc_rows(void* signature) {
  VTAUopLoopBegin(static_cast<uint32_t>(*static_cast<const int*>(signature)), 1, 1, 0);
  VTAUopPush(1, 0, 0, 0, 0, kAluAdd, 1, 0);
  VTAUopLoopEnd();
  return 0;
}

// A program of four instructions: LOAD ACC (0) of `rows` rows from `acc`, LOAD UOP (1), the ALU
// (2, which pushes to store) and a STORE of the rows to `dst` (3, which pops), as upstream's
// dependency rules place them.
void acc_rows_to(Runtime& rt, void* acc, int rows, void* dst) {
  void* handle = nullptr;  // a new kernel each time (handles belong to one runtime)
  const auto n = static_cast<uint32_t>(rows);
  rt.load_buffer_2d(acc, 0, n, 1, n, 0, 0, 0, 0, 0, kMemAcc);
  rt.push_kernel_op(1, &handle, &copy_acc_rows, &rows, 4);
  rt.dep_push(kStageCompute, kStageStore);
  rt.dep_pop(kStageCompute, kStageStore);
  rt.store_buffer_2d(0, kMemOut, dst, 0, n, 1, n);
}

// A buffer of `rows` ACC rows holding 1, 2, 3, ... (so OUT row r lane l is int8(r * lanes + l
// + 1)).
void* counting_acc(Runtime& rt, int rows) {
  const HwConfig& c = rt.config();
  std::vector<int32_t> v(static_cast<size_t>(rows) * c.batch * c.block_out);
  for (size_t i = 0; i < v.size(); ++i) {
    v[i] = static_cast<int32_t>(i + 1);
  }
  void* buf = rt.buffer_alloc(v.size() * sizeof(int32_t));
  rt.buffer_copy(v.data(), 0, buf, 0, v.size() * sizeof(int32_t), VTA_MEMCPY_H2D);
  return buf;
}

}  // namespace

TEST_CASE("dma bounds: a STORE past the end of its buffer is an error naming it",
          "[runtime][dma]") {
  Runtime rt(backend_name_from_env(), pynq());
  const HwConfig& c = rt.config();
  const auto row = static_cast<uint64_t>(c.out_elem_bytes);  // bytes of one OUT row
  REQUIRE(c.batch == 1);
  const int rows = static_cast<int>(4096 / row) + 20;  // a page of rows and 20 more
  void* acc = counting_acc(rt, rows);
  void* out = rt.buffer_alloc(4096);
  void* next = rt.buffer_alloc(256);  // the weights the last 20 rows would overwrite
  REQUIRE(rt.phys_addr(next) == rt.phys_addr(out) + 4096);
  const std::vector<int8_t> weights(256, 0x5a);
  rt.buffer_copy(weights.data(), 0, next, 0, weights.size(), VTA_MEMCPY_H2D);
  const uint64_t phys = rt.phys_addr(out);
  const uint64_t end = phys + rows * row;
  acc_rows_to(rt, acc, rows, out);
  const std::string expect = fmt::format(
      "VTASynchronize: instruction 3 (STORE OUT) writes DRAM [0x{:x}, 0x{:x}) ({} bytes): {} "
      "bytes past the end of its buffer [0x{:x}, 0x{:x}) (4096 bytes",
      phys, end, rows * row, 20 * row, phys, phys + 4096);
  REQUIRE_THROWS_MATCHES(rt.synchronize(1u << 31), ProgramError,
                         Catch::Matchers::Predicate<ProgramError>(
                             [&](const ProgramError& e) {
                               const std::string m = e.what();
                               return m.find(expect) != std::string::npos &&
                                      m.find("VTA_DMA_BOUNDS=off") != std::string::npos;
                             },
                             expect));
  std::vector<int8_t> after(256);
  rt.buffer_copy(next, 0, after.data(), 0, after.size(), VTA_MEMCPY_D2H);
  CHECK(after == weights);  // nothing ran
  // A page of rows fills the buffer exactly: fine.
  acc_rows_to(rt, acc, static_cast<int>(4096 / row), out);
  rt.synchronize(1u << 31);
}

TEST_CASE("dma bounds: switched off, a program may address one region across buffers",
          "[runtime][dma]") {
  Runtime rt(backend_name_from_env(), pynq());
  REQUIRE(rt.dma_bounds_check());
  rt.set_dma_bounds_check(false);
  const HwConfig& c = rt.config();
  const auto row = static_cast<size_t>(c.out_elem_bytes);
  const auto lanes = static_cast<size_t>(c.block_out);
  const int rows = static_cast<int>(4096 / row) + 20;
  void* acc = counting_acc(rt, rows);
  void* out = rt.buffer_alloc(4096);
  void* next = rt.buffer_alloc(4096);
  REQUIRE(rt.phys_addr(next) == rt.phys_addr(out) + 4096);
  acc_rows_to(rt, acc, rows, out);
  rt.synchronize(1u << 31);
  // The last 20 rows went to the next buffer: row r lane l is int8(r * lanes + l + 1).
  std::vector<int8_t> got(20 * row);
  rt.buffer_copy(next, 0, got.data(), 0, got.size(), VTA_MEMCPY_D2H);
  for (size_t i = 0; i < got.size(); ++i) {
    const size_t r = 4096 / row + i / lanes, l = i % lanes;
    INFO("byte " << i);
    REQUIRE(got[i] == static_cast<int8_t>(r * lanes + l + 1));
  }
}

TEST_CASE("dma bounds: a LOAD from a buffer freed before the program runs is an error",
          "[runtime][dma]") {
  Runtime rt(backend_name_from_env(), pynq());
  const HwConfig& c = rt.config();
  void* inp = rt.buffer_alloc(static_cast<size_t>(c.inp_elem_bytes) * 4);
  const uint64_t phys = rt.phys_addr(inp);
  rt.load_buffer_2d(inp, 0, 4, 1, 4, 0, 0, 0, 0, 0, kMemInp);
  rt.buffer_free(inp);  // after the LOAD was issued, before it runs
  rt.dep_push(kStageLoad, kStageCompute);
  rt.dep_pop(kStageLoad, kStageCompute);
  const std::string expect = fmt::format(
      "VTASynchronize: instruction 0 (LOAD INP) reads DRAM [0x{:x}, 0x{:x}) ({} bytes), "
      "which starts in no live buffer (freed memory",
      phys, phys + 4 * uint64_t(c.inp_elem_bytes), 4 * c.inp_elem_bytes);
  REQUIRE_THROWS_WITH(rt.synchronize(1u << 31), Contains(expect));
}

TEST_CASE("dma bounds: VTA_DMA_BOUNDS=off is the environment's switch", "[runtime][dma]") {
  ::setenv("VTA_DMA_BOUNDS", "off", 1);
  Runtime off(backend_name_from_env(), pynq());
  ::unsetenv("VTA_DMA_BOUNDS");
  Runtime on(backend_name_from_env(), pynq());
  CHECK_FALSE(off.dma_bounds_check());
  CHECK(on.dma_bounds_check());
}

TEST_CASE("dma bounds: VTADeviceRun checks the stream it is given", "[runtime][dma]") {
  Session s("pynq");
  const HwConfig& c = s.cfg;
  void* out = VTAMemAlloc(256, 0);
  void* insn_buf = VTAMemAlloc(2 * kInsnBytes, 0);
  const uint32_t out_phys = VTAMemGetPhyAddr(out);
  const auto row = static_cast<uint32_t>(c.out_elem_bytes);
  Insn finish;
  finish.opcode = kOpFinish;
  const Insn prog[2] = {mem_insn(kOpStore, kMemOut, 0, out_phys / row, 1, 20, 20), finish};
  const IsaCodec codec(c);
  std::vector<uint8_t> bytes(2 * kInsnBytes);
  for (size_t i = 0; i < 2; ++i) {
    IsaCodec::store_words(codec.encode(prog[i]), bytes.data() + i * kInsnBytes);
  }
  VTAMemCopyFromHost(insn_buf, bytes.data(), bytes.size());
  VTADeviceHandle dev = VTADeviceAlloc();
  const std::string expect = fmt::format(
      "VTADeviceRun: instruction 0 (STORE OUT) writes DRAM [0x{:x}, 0x{:x}) ({} bytes): {} bytes "
      "past the end of its buffer [0x{:x}, 0x{:x}) (256 bytes",
      out_phys, out_phys + 20 * row, 20 * row, 20 * row - 256, out_phys, out_phys + 256);
  REQUIRE_THROWS_WITH(VTADeviceRun(dev, VTAMemGetPhyAddr(insn_buf), 2, 0), Contains(expect));
  VTADeviceFree(dev);
  VTAMemFree(out);
  VTAMemFree(insn_buf);
}

TEST_CASE("dma bounds: through the C API, a STORE of 20 rows into a 256-byte buffer",
          "[runtime][dma]") {
  Session s("pynq");
  const auto row = static_cast<uint64_t>(s.cfg.out_elem_bytes);
  void* out = VTABufferAlloc(256);
  const uint64_t phys = VTAMemGetPhyAddr(out);
  VTACommandHandle cmd = VTATLSCommandHandle();
  VTADepPush(cmd, kStageCompute, kStageStore);  // a compute NOP (instruction 0) pushes
  VTADepPop(cmd, kStageCompute, kStageStore);
  VTAStoreBuffer2D(cmd, 0, kMemOut, out, 0, 20, 1, 20);  // instruction 1
  const std::string expect = fmt::format(
      "VTASynchronize: instruction 1 (STORE OUT) writes DRAM [0x{:x}, 0x{:x}) ({} bytes): {} bytes "
      "past the end of its buffer [0x{:x}, 0x{:x}) (256 bytes",
      phys, phys + 20 * row, 20 * row, 20 * row - 256, phys, phys + 256);
  REQUIRE_THROWS_WITH(VTASynchronize(cmd, 1u << 31), Contains(expect));
  VTABufferFree(out);
}
