// vta::Runtime as an object: each instance owns its memory, device, kernels and statistics; the
// C recorder calls inside a finit reach the runtime that runs it; two runtimes run on two
// threads at the same time with the results they give alone.
#include <cstdio>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include "runtime_test_util.h"
#include "vta/runtime_object.h"

using namespace vta;
using namespace vta::rt_test;
using Catch::Matchers::Contains;

namespace {

constexpr uint32_t kRows = 8;  // ACC rows of every program here

// finit through the C API: acc[i] += imm for kRows rows (the imm is the signature's int).
int add_imm_kernel(void* signature) {
  const int imm = *static_cast<const int*>(signature);
  VTAUopLoopBegin(kRows, 1, 1, 0);
  VTAUopPush(1, 0, 0, 0, 0, kAluAdd, 1, imm);
  VTAUopLoopEnd();
  return 0;
}

// out[i] = int8(acc[i] + imm) for kRows ACC rows, run on `rt`. `handle` is the call site's
// kernel handle (one per runtime).
std::vector<int8_t> add_imm(Runtime& rt, void*& handle, const std::vector<int32_t>& acc, int imm) {
  const HwConfig& c = rt.config();
  REQUIRE(acc.size() == size_t(kRows) * c.batch * c.block_out);
  const uint32_t rows = kRows;
  void* acc_buf = rt.buffer_alloc(acc.size() * sizeof(int32_t));
  void* out_buf = rt.buffer_alloc(acc.size());
  rt.buffer_copy(acc.data(), 0, acc_buf, 0, acc.size() * sizeof(int32_t), VTA_MEMCPY_H2D);
  rt.load_buffer_2d(acc_buf, 0, rows, 1, rows, 0, 0, 0, 0, 0, kMemAcc);
  rt.push_kernel_op(1, &handle, &add_imm_kernel, &imm, 4);
  rt.dep_push(kStageCompute, kStageStore);
  rt.dep_pop(kStageCompute, kStageStore);
  rt.store_buffer_2d(0, kMemOut, out_buf, 0, rows, 1, rows);
  rt.synchronize(1u << 31);
  std::vector<int8_t> out(acc.size());
  rt.buffer_copy(out_buf, 0, out.data(), 0, out.size(), VTA_MEMCPY_D2H);
  rt.buffer_free(acc_buf);
  rt.buffer_free(out_buf);
  return out;
}

std::vector<int8_t> add_imm_reference(const std::vector<int32_t>& acc, int imm) {
  std::vector<int8_t> out;
  for (int32_t a : acc) {
    out.push_back(static_cast<int8_t>(static_cast<uint32_t>(a) + static_cast<uint32_t>(imm)));
  }
  return out;
}

HwConfig preset(const char* name) {
  return HwConfig::from_file(config_path(name));
}

}  // namespace

TEST_CASE("a Runtime owns its memory, kernels and statistics", "[runtime][object]") {
  const uint32_t seed = test_seed();
  std::printf("runtime object: seed %u\n", seed);
  std::mt19937 rng(seed);
  Runtime a(backend_name_from_env(), preset("pynq"));
  Runtime b(backend_name_from_env(), preset("pynq"));
  const HwConfig& c = a.config();
  const auto acc = random_vector<int32_t>(rng, size_t(kRows) * c.batch * c.block_out, -1000, 1000);
  void* handle_a = nullptr;
  void* handle_b = nullptr;
  CHECK(add_imm(a, handle_a, acc, 5) == add_imm_reference(acc, 5));
  CHECK(add_imm(b, handle_b, acc, -7) == add_imm_reference(acc, -7));
  CHECK(a.stats().alu_counter == kRows);  // each counts its own run only
  CHECK(b.stats().alu_counter == kRows);
  CHECK(a.id() != b.id());

  // A kernel handle belongs to the runtime that filled it.
  REQUIRE_THROWS_WITH(add_imm(b, handle_a, acc, 5), Contains("which this runtime did not create"));
  // A buffer belongs to the runtime that allocated it.
  void* buf = a.buffer_alloc(64);
  REQUIRE_THROWS_WITH(b.buffer_free(buf), Contains("is not a live device allocation"));
  a.buffer_free(buf);
}

TEST_CASE("C recorder calls outside any finit still go to the default runtime",
          "[runtime][object]") {
  Session s;
  REQUIRE(Runtime::recording_on_this_thread() == nullptr);
  REQUIRE_THROWS_WITH(VTAUopPush(1, 0, 0, 0, 0, kAluAdd, 1, 1),
                      Contains("VTAUopPush outside a micro-op kernel recording"));
}

TEST_CASE("two runtimes on two threads at the same time, pynq and block 32",
          "[runtime][object][threads]") {
  const uint32_t seed = test_seed();
  std::printf("two runtimes on two threads: seed %u\n", seed);
  std::mt19937 rng(seed);
  const char* configs[2] = {"pynq", "block32"};
  std::vector<int32_t> acc[2];
  std::vector<int8_t> alone[2];
  for (int i = 0; i < 2; ++i) {
    Runtime rt(backend_name_from_env(), preset(configs[i]));
    const HwConfig& c = rt.config();
    acc[i] = random_vector<int32_t>(rng, size_t(kRows) * c.batch * c.block_out, -100000, 100000);
    void* handle = nullptr;
    alone[i] = add_imm(rt, handle, acc[i], 3 + i);
    REQUIRE(alone[i] == add_imm_reference(acc[i], 3 + i));
  }
  constexpr int kRounds = 20;
  std::vector<std::vector<int8_t>> threaded[2];
  std::string errors[2];
  std::vector<std::thread> threads;
  for (int i = 0; i < 2; ++i) {
    threads.emplace_back([&, i] {
      try {
        Runtime rt(backend_name_from_env(), preset(configs[i]));
        void* handle = nullptr;
        for (int round = 0; round < kRounds; ++round) {
          threaded[i].push_back(add_imm(rt, handle, acc[i], 3 + i));
        }
      } catch (const std::exception& e) {
        errors[i] = e.what();
      }
    });
  }
  for (std::thread& t : threads) {
    t.join();
  }
  for (int i = 0; i < 2; ++i) {
    INFO("seed " << seed << " config " << configs[i]);
    REQUIRE(errors[i].empty());
    REQUIRE(threaded[i].size() == size_t(kRounds));
    for (const auto& out : threaded[i]) {
      REQUIRE(out == alone[i]);
    }
  }
}
