// Misuse of the API gives a clear error naming the call and the offending value, never an
// abort deep inside. One test per error, message pinned. (The default policy of the C API,
// message on stderr and exit status 1, is tested by the runtime.c_api_* ctests.)
#include <string>

#include <fmt/format.h>
#include <catch2/catch.hpp>

#include "runtime_test_util.h"

using namespace vta;
using namespace vta::rt_test;
using Catch::Matchers::Equals;
using Catch::Matchers::Message;
using Catch::Matchers::StartsWith;

namespace {

int one_alu_uop(void*) {
  VTAUopPush(1, 0, 0, 0, 0, kAluAdd, 1, 1);
  return 0;
}

// Records `finit` as a kernel on a fresh handle (the misuse cases expect it to throw).
void push_alu_kernel(int (*finit)(void*)) {
  void* h = nullptr;
  VTAPushALUOp(&h, finit, nullptr, 0);
}
void push_gemm_kernel(int (*finit)(void*)) {
  void* h = nullptr;
  VTAPushGEMMOp(&h, finit, nullptr, 0);
}

}  // namespace

TEST_CASE("misuse: a pop without a matching push is reported at synchronisation", "[runtime]") {
  Session s;
  void* h = nullptr;
  VTACommandHandle cmd = VTATLSCommandHandle();
  VTADepPop(cmd, 1, 2);  // nothing on the load stage ever pushes
  VTAPushALUOp(&h, one_alu_uop, nullptr, 0);
  REQUIRE_THROWS_MATCHES(
      VTASynchronize(cmd, 1u << 31), ProgramError,
      Message("VTASynchronize: dependency deadlock (a pop without a matching push): the compute "
              "stage waits forever at instruction 4 (LOAD UOP NOP) for a token on l2g "
              "(load->compute)"));
  // The queue was reset: the next program runs.
  VTAPushALUOp(&h, one_alu_uop, nullptr, 0);
  VTASynchronize(cmd, 1u << 31);
  CHECK(runtime_stats().alu_counter == 1);
}

TEST_CASE("misuse: a micro-op kernel that mixes modes", "[runtime]") {
  Session s;
  REQUIRE_THROWS_WITH(push_alu_kernel([](void*) {
                        VTAUopPush(0, 0, 0, 0, 0, 0, 0, 0);
                        VTAUopPush(1, 0, 1, 0, 0, kAluAdd, 1, 1);
                        return 0;
                      }),
                      Equals("VTAPushALUOp: VTAUopPush: a kernel mixes modes (GEMM then ALU; 0 = "
                             "GEMM, 1 = ALU)"));
}

TEST_CASE("misuse: a GEMM kernel pushed with VTAPushALUOp", "[runtime]") {
  Session s;
  REQUIRE_THROWS_WITH(push_alu_kernel([](void*) {
                        VTAUopPush(0, 0, 0, 0, 0, 0, 0, 0);
                        return 0;
                      }),
                      Equals("VTAPushALUOp: a GEMM kernel was pushed with VTAPushALUOp"));
}

TEST_CASE("misuse: more than two micro-op loops", "[runtime]") {
  Session s;
  REQUIRE_THROWS_WITH(push_gemm_kernel([](void*) {
                        VTAUopLoopBegin(2, 1, 0, 0);
                        VTAUopLoopBegin(2, 2, 0, 0);
                        VTAUopLoopBegin(2, 4, 0, 0);
                        return 0;
                      }),
                      Equals("VTAPushGEMMOp: VTAUopLoopBegin: a micro-op kernel has at most 2 "
                             "loops"));
}

TEST_CASE("misuse: the same dst index within a distance of two micro-ops", "[runtime]") {
  Session s;
  REQUIRE_THROWS_WITH(push_alu_kernel([](void*) {
                        VTAUopPush(1, 0, 0, 0, 0, kAluAdd, 1, 1);
                        VTAUopPush(1, 0, 1, 1, 0, kAluAdd, 1, 1);
                        VTAUopPush(1, 0, 0, 2, 0, kAluAdd, 1, 1);
                        return 0;
                      }),
                      Equals("VTAPushALUOp: VTAUopPush: micro-op 2 writes accumulator index 0 "
                             "like micro-op 0 (the same dst index needs a distance of at least "
                             "3)"));
}

TEST_CASE("misuse: VTAUopPush outside a kernel recording", "[runtime]") {
  Session s;
  VTATLSCommandHandle();
  REQUIRE_THROWS_WITH(VTAUopPush(0, 0, 0, 0, 0, 0, 0, 0),
                      Equals("VTAUopPush outside a micro-op kernel recording (only the finit "
                             "callback of VTAPushGEMMOp/VTAPushALUOp may call it)"));
}

TEST_CASE("misuse: a kernel signature that is not 0 or 4 bytes", "[runtime]") {
  Session s;
  void* h = nullptr;
  int64_t sig = 3;
  REQUIRE_THROWS_WITH(VTAPushGEMMOp(&h, one_alu_uop, &sig, 8),
                      Equals("VTAPushGEMMOp: micro-op kernel signature of 8 bytes (only 0 or 4 "
                             "are supported)"));
}

TEST_CASE("misuse: an ALU immediate that does not fit 16 bits", "[runtime]") {
  Session s;
  REQUIRE_THROWS_WITH(push_alu_kernel([](void*) {
                        VTAUopPush(1, 0, 0, 0, 0, kAluAdd, 1, 40000);
                        return 0;
                      }),
                      Equals("VTAPushALUOp: VTAUopPush: ALU immediate 40000 does not fit 16 "
                             "signed bits"));
}

TEST_CASE("misuse: a buffer freed twice", "[runtime]") {
  Session s;
  void* p = VTABufferAlloc(64);
  VTABufferFree(p);
  REQUIRE_THROWS_WITH(VTABufferFree(p),
                      Equals(fmt::format("VTABufferFree: {} is not a live device allocation "
                                         "(freed twice, or not the pointer returned by the "
                                         "allocator)",
                                         p)));
}

TEST_CASE("misuse: a copy out of bounds", "[runtime]") {
  Session s;
  Buffer b(100);
  std::vector<uint8_t> host(200);
  REQUIRE_THROWS_WITH(
      VTABufferCopy(host.data(), 0, b.get(), 10, 100, VTA_MEMCPY_H2D),
      Equals(fmt::format("VTABufferCopy: destination range [{}, +100) exceeds its buffer (100 "
                         "bytes at {}, offset 10)",
                         static_cast<void*>(static_cast<char*>(b.get()) + 10), b.get())));
  REQUIRE_THROWS_WITH(VTAMemCopyToHost(host.data(), static_cast<char*>(b.get()) + 1, 100),
                      StartsWith("VTAMemCopyToHost: source range ["));
}

TEST_CASE("misuse: an unknown backend", "[runtime]") {
  Session s;
  REQUIRE_THROWS_MATCHES(runtime_configure("warp9", s.cfg), ConfigError,
                         Catch::Matchers::Predicate<ConfigError>([](const ConfigError& e) {
                           return std::string(e.what()).rfind(
                                      "unknown backend 'warp9' (available: ", 0) == 0;
                         }));
}

TEST_CASE("misuse: an unknown config path", "[runtime]") {
  REQUIRE_THROWS_AS(HwConfig::from_file("/nonexistent/vta.json"), ConfigError);
  REQUIRE_THROWS_WITH(HwConfig::from_file("/nonexistent/vta.json"),
                      Equals("cannot open config file '/nonexistent/vta.json'"));
}

TEST_CASE("misuse: dependency queue ids out of range", "[runtime]") {
  Session s;
  VTACommandHandle cmd = VTATLSCommandHandle();
  REQUIRE_THROWS_WITH(VTADepPush(cmd, 0, 2),
                      Equals("VTADepPush(0, 2): queue id 0 out of range (1 = load, 2 = compute, 3 "
                             "= store)"));
  REQUIRE_THROWS_WITH(VTADepPop(cmd, 2, 4),
                      Equals("VTADepPop(2, 4): queue id 4 out of range (1 = load, 2 = compute, 3 "
                             "= store)"));
}

TEST_CASE("misuse: a load<->store dependency", "[runtime]") {
  Session s;
  VTACommandHandle cmd = VTATLSCommandHandle();
  REQUIRE_THROWS_WITH(VTADepPop(cmd, 1, 3),
                      Equals("VTADepPop(1, 3): there is no dependency queue between load and "
                             "store (only l2g, g2l, s2g, g2s)"));
  REQUIRE_THROWS_WITH(VTADepPush(cmd, 3, 1),
                      Equals("VTADepPush(3, 1): there is no dependency queue between load and "
                             "store (only l2g, g2l, s2g, g2s)"));
}

TEST_CASE("misuse: a load that overflows the SRAM", "[runtime]") {
  Session s;
  Buffer b(3000 * s.cfg.inp_elem_bytes);
  VTACommandHandle cmd = VTATLSCommandHandle();
  REQUIRE_THROWS_WITH(
      VTALoadBuffer2D(cmd, b.get(), 0, 3000, 1, 3000, 0, 0, 0, 0, 0, kMemInp),
      Equals(fmt::format("VTALoadBuffer2D: INP tile of 1x3000 elements with padding at SRAM "
                         "index 0 ends at 3000, beyond the buffer depth {}",
                         s.cfg.inp_buff_depth)));
}

TEST_CASE("misuse: a stale command handle", "[runtime]") {
  Session s;
  Buffer b(s.cfg.inp_elem_bytes);
  VTACommandHandle cmd = VTATLSCommandHandle();
  VTARuntimeShutdown();
  REQUIRE_THROWS_WITH(VTALoadBuffer2D(cmd, b.get(), 0, 1, 1, 1, 0, 0, 0, 0, 0, kMemInp),
                      Equals(fmt::format("VTALoadBuffer2D: {} is not the live command handle "
                                         "(use VTATLSCommandHandle())",
                                         cmd)));
}

TEST_CASE("misuse: a program the backend rejects raises ProgramError", "[runtime]") {
  Session s;
  void* h = nullptr;
  VTACommandHandle cmd = VTATLSCommandHandle();
  // 3000 iterations of dst += 1 run past the accumulator depth.
  VTAPushALUOp(
      &h,
      [](void*) {
        VTAUopLoopBegin(3000, 1, 1, 0);
        VTAUopPush(1, 0, 0, 0, 0, kAluAdd, 1, 1);
        VTAUopLoopEnd();
        return 0;
      },
      nullptr, 0);
  // fsim and cycle check the whole loop before running it and name the last index with how it
  // was formed; the RTL core stops at the first index beyond the buffer.
  const std::string expected =
      runtime_backend_name() == "rtl"
          ? fmt::format(
                "VTASynchronize: instruction 1 (ALU, compute unit): dst index {0} is "
                "beyond the ACC buffer of {0} entries",
                s.cfg.acc_buff_depth)
          : fmt::format(
                "VTASynchronize: instruction 1 (ALU, compute unit): dst index 2999 (uop "
                "0 dst_idx 0 + it_out 0 * dst_factor_out 0 + it_in 2999 * dst_factor_in "
                "1) is beyond the ACC buffer of {} entries",
                s.cfg.acc_buff_depth);
  REQUIRE_THROWS_MATCHES(VTASynchronize(cmd, 1u << 31), ProgramError,
                         Catch::Matchers::Predicate<ProgramError>([&](const ProgramError& e) {
                           return std::string(e.what()).rfind("VTASynchronize: ", 0) == 0 &&
                                  e.what() == expected;
                         }));
}

TEST_CASE("misuse: a synchronisation that exceeds wait_cycles on a timed backend", "[runtime]") {
  Session s;
  void* h = nullptr;
  VTACommandHandle cmd = VTATLSCommandHandle();
  VTAPushALUOp(&h, one_alu_uop, nullptr, 0);
  if (runtime_backend_name() == "fsim") {
    VTASynchronize(cmd, 2);  // untimed: wait_cycles is ignored
    CHECK(runtime_stats().alu_counter == 1);
  } else {
    REQUIRE_THROWS_WITH(VTASynchronize(cmd, 2),
                        Equals(fmt::format("VTASynchronize: the {} backend did not reach FINISH "
                                           "within 2 cycles",
                                           runtime_backend_name())));
  }
}

TEST_CASE("misuse: an allocation larger than the simulated DRAM", "[runtime]") {
  Session s;
  // Sizes near SIZE_MAX used to wrap in the page rounding and return a one-page buffer.
  for (size_t size : {SIZE_MAX, SIZE_MAX - 4095, size_t{1} << 32}) {
    REQUIRE_THROWS_WITH(VTABufferAlloc(size),
                        Equals(fmt::format("VTABufferAlloc: cannot allocate {} bytes: larger than "
                                           "the 4 GiB simulated DRAM (page 0 is reserved)",
                                           size)));
    REQUIRE_THROWS_WITH(VTAMemAlloc(size, 0), StartsWith("VTAMemAlloc: cannot allocate "));
  }
}

TEST_CASE("misuse: null pointers and wrapping offsets in copies", "[runtime]") {
  Session s;
  Buffer b(64);
  std::vector<uint8_t> host(64);
  REQUIRE_THROWS_WITH(VTABufferCopy(nullptr, 0, b.get(), 0, 16, VTA_MEMCPY_H2D),
                      Equals("VTABufferCopy: source is a null pointer"));
  REQUIRE_THROWS_WITH(VTABufferCopy(b.get(), 0, nullptr, 0, 16, VTA_MEMCPY_D2H),
                      Equals("VTABufferCopy: destination is a null pointer"));
  REQUIRE_THROWS_WITH(VTABufferCopy(host.data(), SIZE_MAX, b.get(), 0, 16, VTA_MEMCPY_H2D),
                      StartsWith("VTABufferCopy: source range [") &&
                          Catch::Matchers::EndsWith("wraps around the address space"));
  REQUIRE_THROWS_WITH(VTABufferCopy(host.data(), 0, b.get(), 0, 16, 4),
                      Equals("VTABufferCopy: kind_mask 4 (1 = to device, 2 = from device, 3 = "
                             "both)"));
  REQUIRE_THROWS_WITH(VTAMemCopyFromHost(b.get(), nullptr, 16),
                      Equals("VTAMemCopyFromHost: source is a null pointer"));
  REQUIRE_THROWS_WITH(VTAMemCopyToHost(nullptr, b.get(), 16),
                      Equals("VTAMemCopyToHost: destination is a null pointer"));
  // The buffer is untouched by the rejected copies and still works.
  host.assign(64, 7);
  VTABufferCopy(host.data(), 0, b.get(), 0, 64, VTA_MEMCPY_H2D);
  std::vector<uint8_t> back(64);
  VTAMemCopyToHost(back.data(), b.get(), 64);
  CHECK(back == host);
}

TEST_CASE("a zero-extent micro-op loop executes nothing, as upstream", "[runtime]") {
  Session s;
  VTACommandHandle cmd = VTATLSCommandHandle();
  void* h0 = nullptr;
  VTAPushALUOp(
      &h0,
      [](void*) {
        VTAUopLoopBegin(0, 1, 1, 0);
        VTAUopPush(1, 0, 0, 0, 0, kAluAdd, 1, 1);
        VTAUopLoopEnd();
        return 0;
      },
      nullptr, 0);
  VTASynchronize(cmd, 1u << 31);
  CHECK(runtime_stats().alu_counter == 0);
  // The same kernel with extent 3 runs its micro-op three times (upstream's counting rule).
  void* h3 = nullptr;
  VTAPushALUOp(
      &h3,
      [](void*) {
        VTAUopLoopBegin(3, 1, 1, 0);
        VTAUopPush(1, 0, 0, 0, 0, kAluAdd, 1, 1);
        VTAUopLoopEnd();
        return 0;
      },
      nullptr, 0);
  VTASynchronize(cmd, 1u << 31);
  CHECK(runtime_stats().alu_counter == 3);
}
