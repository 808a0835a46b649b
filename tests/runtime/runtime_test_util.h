// Helpers of the runtime tests: a session that selects backend/config through the C++ API and
// makes the C API throw, device buffers, seeded random data, and the upstream counter rules.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "ref_alu.h"
#include "test_paths.h"
#include "vta/backend_factory.h"
#include "vta/runtime.h"
#include "vta/runtime_cpp.h"

namespace vta::rt_test {

// Chooses $VTA_BACKEND (ctest sets it) and a config: the named preset, or by default $VTA_CONFIG
// (the built-in pynq config when unset), so the suite can run on any config. Restores the
// runtime's defaults on exit.
class Session {
 public:
  explicit Session(const std::string& preset = "") {
    set_error_mode(ErrorMode::kThrow);
    runtime_set_max_xfer(VTA_MAX_XFER);
    cfg = preset.empty() ? HwConfig::from_env() : HwConfig::from_file(config_path(preset));
    runtime_configure(backend_name_from_env(), cfg);
  }
  ~Session() {
    runtime_set_program_observer(nullptr);
    runtime_set_skip_execution(false);
    runtime_set_max_xfer(VTA_MAX_XFER);
    runtime_reset();
  }
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  HwConfig cfg;
};

// A device buffer from VTABufferAlloc, freed on scope exit.
class Buffer {
 public:
  explicit Buffer(size_t bytes) : m_bytes(bytes), m_ptr(VTABufferAlloc(bytes)) {}
  ~Buffer() {
    if (m_ptr != nullptr) {
      VTABufferFree(m_ptr);
    }
  }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  void* get() const { return m_ptr; }
  size_t bytes() const { return m_bytes; }
  template <class T>
  void upload(const std::vector<T>& v) {
    REQUIRE(v.size() * sizeof(T) <= m_bytes);
    VTABufferCopy(v.data(), 0, m_ptr, 0, v.size() * sizeof(T), VTA_MEMCPY_H2D);
  }
  template <class T>
  std::vector<T> download(size_t count) const {
    std::vector<T> v(count);
    VTABufferCopy(m_ptr, 0, v.data(), 0, count * sizeof(T), VTA_MEMCPY_D2H);
    return v;
  }

 private:
  size_t m_bytes;
  void* m_ptr;
};

// Seed of the random tests: $VTA_TEST_SEED or upstream's 0xDEADB.
inline uint32_t test_seed() {
  const char* s = std::getenv("VTA_TEST_SEED");
  return s != nullptr ? static_cast<uint32_t>(std::strtoul(s, nullptr, 0)) : 0xDEADBu;
}

template <class T>
std::vector<T> random_vector(std::mt19937& rng, size_t n, int lo, int hi) {
  std::uniform_int_distribution<int> d(lo, hi - 1);
  std::vector<T> v(n);
  for (auto& x : v) {
    x = static_cast<T>(d(rng));
  }
  return v;
}

// The seven upstream counters (vta-reference.md 5.1), as a test expects them.
struct Counters {
  uint64_t inp = 0, wgt = 0, acc = 0, uop = 0, out = 0, gemm = 0, alu = 0;
};

inline void check_counters(const Counters& e) {
  const Stats& s = runtime_stats();
  CHECK(s.inp_load_nbytes == e.inp);
  CHECK(s.wgt_load_nbytes == e.wgt);
  CHECK(s.acc_load_nbytes == e.acc);
  CHECK(s.uop_load_nbytes == e.uop);
  CHECK(s.out_store_nbytes == e.out);
  CHECK(s.gemm_counter == e.gemm);
  CHECK(s.alu_counter == e.alu);
}

}  // namespace vta::rt_test
