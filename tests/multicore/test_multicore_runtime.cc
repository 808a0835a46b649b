// The runtime of several cores (vta/system.h): a device per core, a command queue per core, and
// programs of two cores run alone and together, checked against a plain reference.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "test_paths.h"
#include "vta/backend_factory.h"
#include "vta/runtime.h"
#include "vta/runtime_cpp.h"
#include "vta/sim/error.h"
#include "vta/sim/isa.h"
#include "vta/system.h"

using namespace vta;
using Catch::Matchers::Contains;

namespace {

constexpr uint32_t kSync = 1u << 31;
constexpr uint32_t kTiles = 4;

HwConfig two_cores() {
  nlohmann::json j = HwConfig::from_file(config_path("pynq_fixed")).to_json();
  j["CORES"] = 2;
  return HwConfig::from_json(j, "pynq_fixed with CORES = 2");
}

template <int Imm>
int add_imm_finit(void*) {
  VTAUopLoopBegin(kTiles, 1, 1, 0);
  VTAUopPush(1, 0, 0, 0, 0, kAluAdd, 1, Imm);
  VTAUopLoopEnd();
  return 0;
}

// Records on the current core's queue: load kTiles accumulator tiles from `acc`, add Imm to
// every lane, store the kTiles output tiles (int8) to `out`.
template <int Imm>
VTACommandHandle record_add(void* acc, void* out, void** uop_handle) {
  VTACommandHandle cmd = VTATLSCommandHandle();
  VTALoadBuffer2D(cmd, acc, 0, kTiles, 1, kTiles, 0, 0, 0, 0, 0, kMemAcc);
  VTAPushALUOp(uop_handle, add_imm_finit<Imm>, nullptr, 0);
  VTADepPush(cmd, 2, 3);
  VTADepPop(cmd, 2, 3);
  VTAStoreBuffer2D(cmd, 0, kMemOut, out, 0, kTiles, 1, kTiles);
  VTADepPush(cmd, 3, 2);
  VTADepPop(cmd, 3, 2);
  return cmd;
}

struct Core {
  void* acc = nullptr;
  void* out = nullptr;
  void* uops = nullptr;
  std::vector<int32_t> in;
};

// Lanes of kTiles tiles filled with small values that differ between the cores.
Core make_core(const HwConfig& cfg, int32_t seed) {
  Core c;
  const size_t lanes = kTiles * static_cast<size_t>(cfg.batch * cfg.block_out);
  for (size_t i = 0; i < lanes; ++i) {
    c.in.push_back(static_cast<int32_t>((i * 7 + static_cast<size_t>(seed)) % 101) - 50);
  }
  c.acc = VTABufferAlloc(lanes * 4);
  c.out = VTABufferAlloc(lanes);
  VTABufferCopy(c.in.data(), 0, c.acc, 0, lanes * 4, VTA_MEMCPY_H2D);
  return c;
}

// The plain reference: int8(x + imm) for every lane.
void check_out(const Core& c, int32_t imm) {
  std::vector<int8_t> got(c.in.size());
  VTABufferCopy(c.out, 0, got.data(), 0, got.size(), VTA_MEMCPY_D2H);
  for (size_t i = 0; i < got.size(); ++i) {
    INFO("lane " << i);
    REQUIRE(got[i] == static_cast<int8_t>(c.in[i] + imm));
  }
}

struct CycleSession {
  explicit CycleSession(const HwConfig& cfg) {
    set_error_mode(ErrorMode::kThrow);
    runtime_configure("cycle", cfg);
  }
  ~CycleSession() { runtime_reset(); }
  CycleSession(const CycleSession&) = delete;
  CycleSession& operator=(const CycleSession&) = delete;
};

}  // namespace

TEST_CASE("multicore runtime: VTADeviceAlloc hands out core 0, then core 1", "[multicore]") {
  const CycleSession s(two_cores());
  REQUIRE(VTASystemCores() == 2);
  VTADeviceHandle d0 = VTADeviceAlloc();
  VTADeviceHandle d1 = VTADeviceAlloc();
  CHECK(VTADeviceCore(d0) == 0);
  CHECK(VTADeviceCore(d1) == 1);
  CHECK_THROWS_WITH(VTADeviceAlloc(), Contains("every core of the system (CORES = 2)"));
  CHECK_THROWS_WITH(VTADeviceAllocCore(2), Contains("core 2 does not exist"));
  VTADeviceHandle again = VTADeviceAllocCore(1);
  CHECK(VTADeviceCore(again) == 1);
  VTADeviceFree(d0);
  VTADeviceHandle d0b = VTADeviceAlloc();  // core 0 is free again
  CHECK(VTADeviceCore(d0b) == 0);
  for (VTADeviceHandle d : {d1, again, d0b}) {
    VTADeviceFree(d);
  }
  CHECK_THROWS_WITH(VTACommandCore(5), Contains("core 5 does not exist"));
  CHECK_THROWS_WITH(VTASystemRun(0), Contains("VTASystemBegin first"));
}

TEST_CASE("multicore runtime: a command queue per core, alone and together", "[multicore]") {
  const HwConfig cfg = two_cores();
  const CycleSession s(cfg);
  Core c0 = make_core(cfg, 3);
  Core c1 = make_core(cfg, 11);

  // Alone: core 0's queue, then core 1's; each VTASynchronize runs on its own core.
  VTACommandCore(0);
  VTACommandHandle q0 = record_add<5>(c0.acc, c0.out, &c0.uops);
  const auto system_cycles = [] {
    const NamedCounter* c = runtime_stats().find("system.cycles");
    return c != nullptr ? c->value : 0.0;
  };
  VTASynchronize(q0, kSync);
  check_out(c0, 5);
  const double alone0 = system_cycles();
  VTACommandCore(1);
  VTACommandHandle q1 = record_add<-9>(c1.acc, c1.out, &c1.uops);
  CHECK(q1 != q0);
  CHECK_THROWS_WITH(VTASynchronize(q0, kSync), Contains("not the live command handle"));
  VTASynchronize(q1, kSync);
  check_out(c1, -9);
  const double alone1 = system_cycles() - alone0;

  // Together: both programs kept, then started in the same cycle.
  std::vector<int8_t> zeros(c0.in.size(), 0);
  VTABufferCopy(zeros.data(), 0, c0.out, 0, zeros.size(), VTA_MEMCPY_H2D);
  VTABufferCopy(zeros.data(), 0, c1.out, 0, zeros.size(), VTA_MEMCPY_H2D);
  VTASystemBegin();
  VTACommandCore(0);
  VTASynchronize(record_add<5>(c0.acc, c0.out, &c0.uops), kSync);
  VTACommandCore(1);
  VTASynchronize(record_add<-9>(c1.acc, c1.out, &c1.uops), kSync);
  CHECK(VTASystemRun(0) == 0);
  check_out(c0, 5);
  check_out(c1, -9);
  // The run of both is no shorter than either alone.
  const double together = system_cycles() - alone0 - alone1;
  WARN("alone " << alone0 << " and " << alone1 << " cycles, together " << together);
  CHECK(alone0 > 0);
  CHECK(together >= alone0);
  CHECK(together >= alone1);
  VTACommandCore(0);
  for (Core* c : {&c0, &c1}) {
    VTABufferFree(c->acc);
    VTABufferFree(c->out);
  }
}

TEST_CASE("multicore runtime: the rtl backend builds a system of CORES cores", "[multicore]") {
  const auto names = available_backends();
  if (std::find(names.begin(), names.end(), "rtl") == names.end()) {
    SUCCEED("rtl backend not built");
    return;
  }
  Dram dram;
  const std::unique_ptr<Backend> be = make_backend("rtl", two_cores(), dram);
  CHECK(be->cores() == 2);  // its runs: tests/multicore/test_multicore_rtl.cc
}
