// Host-side buffer calls of the C API: a round of VTABufferAlloc, a copy in, a copy out and
// VTABufferFree, against malloc / memcpy / memcpy / free of the same size, with the page faults
// per round (getrusage) once the pages of a freed buffer are being reused; and a copy into a
// buffer that stays allocated. Medians of 7 repetitions.
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "vta/runtime.h"

namespace {

using Clock = std::chrono::steady_clock;

// Keeps the compiler from dropping stores into memory nobody reads.
void clobber(void* p) {
  asm volatile("" : : "g"(p) : "memory");
}

long minor_faults() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_minflt;
}

struct Figure {
  double ns_per_round = 0;
  double faults_per_round = 0;
};

// Median over 7 repetitions of `rounds` calls of `round`, after one warm-up repetition.
template <class F>
Figure measure(int rounds, F&& round) {
  for (int i = 0; i < rounds; ++i) {
    round();
  }
  std::vector<double> ns;
  std::vector<double> faults;
  for (int rep = 0; rep < 7; ++rep) {
    const long f0 = minor_faults();
    const auto t0 = Clock::now();
    for (int i = 0; i < rounds; ++i) {
      round();
    }
    const auto t1 = Clock::now();
    ns.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() / rounds);
    faults.push_back(double(minor_faults() - f0) / rounds);
  }
  std::sort(ns.begin(), ns.end());
  std::sort(faults.begin(), faults.end());
  return {ns[3], faults[3]};
}

void compare(size_t bytes, int rounds) {
  std::vector<char> in(bytes, 1), out(bytes);
  const Figure vta = measure(rounds, [&] {
    void* buf = VTABufferAlloc(bytes);
    VTABufferCopy(in.data(), 0, buf, 0, bytes, VTA_MEMCPY_H2D);
    VTABufferCopy(buf, 0, out.data(), 0, bytes, VTA_MEMCPY_D2H);
    VTABufferFree(buf);
  });
  const Figure libc = measure(rounds, [&] {
    void* buf = std::malloc(bytes);
    clobber(buf);
    std::memcpy(buf, in.data(), bytes);
    clobber(buf);
    std::memcpy(out.data(), buf, bytes);
    clobber(out.data());
    std::free(buf);
  });
  std::printf(
      "round of alloc, copy in, copy out, free, %7zu bytes: VTA %8.0f ns (%.2f page faults), "
      "malloc/memcpy/free %7.0f ns (%.2f page faults): %.2fx\n",
      bytes, vta.ns_per_round, vta.faults_per_round, libc.ns_per_round, libc.faults_per_round,
      vta.ns_per_round / libc.ns_per_round);
}

void copy_into_live_buffer(size_t bytes, int rounds) {
  std::vector<char> in(bytes, 1);
  void* buf = VTABufferAlloc(bytes);
  const Figure f =
      measure(rounds, [&] { VTABufferCopy(in.data(), 0, buf, 0, bytes, VTA_MEMCPY_H2D); });
  VTABufferFree(buf);
  std::printf("copy into a buffer that stays allocated, %zu bytes: %.0f ns\n", bytes,
              f.ns_per_round);
}

}  // namespace

int main() {
  compare(256, 20000);
  compare(4096, 20000);
  compare(64 * 1024, 4000);
  compare(1024 * 1024, 300);
  copy_into_live_buffer(256, 200000);
  return 0;
}
