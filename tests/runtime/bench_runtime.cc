// Benchmark of the runtime's host-side cost (not a test; prints figures): how fast the command
// queue turns API calls into instructions (dependency folding, kernel cache lookups, overflow
// checks) and how long a synchronisation takes to finish, check and copy a stream, with the
// backend's execution skipped so only the runtime is measured.
//   bench_runtime [iterations]   (default 200000 GEMM steps)
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "vta/runtime.h"
#include "vta/runtime_cpp.h"

namespace {

int gemm_finit(void* sig) {
  const auto k = static_cast<uint32_t>(*static_cast<int*>(sig));
  VTAUopLoopBegin(4, 8, 10, 0);
  VTAUopLoopBegin(2, 32, 0, 9);
  for (uint32_t c = 0; c < 8; ++c) {
    VTAUopPush(0, 0, c, k % 3 + c, k % 9, 0, 0, 0);
  }
  VTAUopLoopEnd();
  VTAUopLoopEnd();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const long steps = argc > 1 ? std::strtol(argv[1], nullptr, 10) : 200000;
  vta::runtime_configure("fsim", vta::HwConfig::default_config());
  vta::runtime_set_skip_execution(true);
  uint64_t insns = 0, programs = 0;
  vta::runtime_set_program_observer([&](const vta::SyncedProgram& p) {
    insns += p.insns.size();
    ++programs;
  });
  const auto& cfg = vta::runtime_config();
  void* inp = VTABufferAlloc(64 * cfg.inp_elem_bytes);
  void* wgt = VTABufferAlloc(64 * cfg.wgt_elem_bytes);
  static void* handle = nullptr;
  VTACommandHandle cmd = VTATLSCommandHandle();
  const auto t0 = std::chrono::steady_clock::now();
  VTADepPush(cmd, 2, 1);
  for (long i = 0; i < steps; ++i) {
    VTADepPop(cmd, 2, 1);
    VTALoadBuffer2D(cmd, inp, 0, 8, 5, 8, 1, 1, 1, 0, 0, 2);
    VTALoadBuffer2D(cmd, wgt, 0, 9, 2, 18, 0, 0, 0, 0, 0, 1);
    VTADepPush(cmd, 1, 2);
    VTADepPop(cmd, 1, 2);
    for (int t = 0; t < 9; ++t) {
      int key = t;
      VTAPushGEMMOp(&handle, gemm_finit, &key, 4);
    }
    VTADepPush(cmd, 2, 1);
    if (i % 1000 == 999) {  // one program per 1000 steps, like a layer per sync
      VTADepPop(cmd, 2, 1);
      VTASynchronize(cmd, 1u << 31);
      VTADepPush(cmd, 2, 1);
    }
  }
  VTADepPop(cmd, 2, 1);
  VTASynchronize(cmd, 1u << 31);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf(
      "runtime stream generation: %ld GEMM steps (%ld API calls), %llu instructions in "
      "%llu programs, %.3f s: %.2f M instructions/s, %.2f M API calls/s\n",
      steps, steps * 15, static_cast<unsigned long long>(insns),
      static_cast<unsigned long long>(programs), s, static_cast<double>(insns) / s / 1e6,
      static_cast<double>(steps * 15) / s / 1e6);
  VTABufferFree(inp);
  VTABufferFree(wgt);
  return 0;
}
