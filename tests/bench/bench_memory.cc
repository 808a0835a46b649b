// Host memory of the simulators: what a fresh simulated DRAM commits (page faults and resident
// bytes for the runtime's two 32 MiB transfer buffers, which used to be zero-filled by memset),
// and the host memory each created-and-destroyed backend leaves behind, per backend (a sweep
// creates thousands) and the bound a sweep worker's recycling puts on it; then the growth of a
// long-running user of the C API (device runs) and of a sweep worker that runs N jobs in one
// process (recycling off). Usage: bench_memory [calls-per-measure, default 200]. Prints figures;
// asserts nothing about them.
#include <sys/resource.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>

#include <cstring>
#include <vector>

#include <nlohmann/json.hpp>

#include "process_memory.h"
#include "test_paths.h"
#include "vta/backend_factory.h"
#include "vta/driver.h"
#include "vta/explore/sweep_job.h"
#include "vta/explore/sweep_runner.h"
#include "vta/explore/sweep_spec.h"
#include "vta/sim/error.h"
#include "vta/sim/isa.h"

using namespace vta;

namespace {

using vta::testmem::rss_kib;

long minor_faults() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_minflt;
}

// The tiny program (LOAD UOP, an ALU add, FINISH) whose micro-op lies at DRAM word `uop_word`.
std::vector<Insn> tiny_program(uint32_t uop_word) {
  Insn alu;
  alu.opcode = kOpAlu;
  alu.uop_end = 1;
  alu.iter_out = alu.iter_in = 1;
  alu.use_imm = true;
  alu.alu_opcode = kAluAdd;
  alu.imm = 1;
  Insn finish;
  finish.opcode = kOpFinish;
  return {mem_insn(kOpLoad, kMemUop, 0, uop_word, 1, 1, 1), alu, finish};
}

// One tiny program on a fresh backend that is then destroyed.
void create_run_destroy(const std::string& name, const HwConfig& cfg, Dram& dram) {
  std::unique_ptr<Backend> be = make_backend(name, cfg, dram);
  const IsaCodec codec(cfg);
  auto* uop = static_cast<uint8_t*>(dram.alloc(kUopBytes));
  const uint32_t word = codec.encode_uop(Uop{0, 0, 0});
  std::memcpy(uop, &word, kUopBytes);
  const std::vector<Insn> insns = tiny_program(dram.phys_addr(uop) / kUopBytes);
  auto* code = static_cast<uint8_t*>(dram.alloc(insns.size() * kInsnBytes));
  for (size_t k = 0; k < insns.size(); ++k) {
    IsaCodec::store_words(codec.encode(insns[k]), code + k * kInsnBytes);
  }
  be->run(dram.phys_addr(code), static_cast<uint32_t>(insns.size()), 0);
  dram.free(code);
  dram.free(uop);
}

// The tiny program through the C API: VTADeviceAlloc, the program in VTAMemAlloc buffers,
// VTADeviceRun, VTAMemFree, VTADeviceFree (the backend of VTA_BACKEND, default cycle).
void c_api_device_run(const HwConfig& cfg) {
  const IsaCodec codec(cfg);
  VTADeviceHandle dev = VTADeviceAlloc();
  void* uop = VTAMemAlloc(kUopBytes, 0);
  const uint32_t word = codec.encode_uop(Uop{0, 0, 0});
  VTAMemCopyFromHost(uop, &word, kUopBytes);
  const std::vector<Insn> insns =
      tiny_program(static_cast<uint32_t>(VTAMemGetPhyAddr(uop) / kUopBytes));
  std::vector<uint8_t> bytes(insns.size() * kInsnBytes);
  for (size_t k = 0; k < insns.size(); ++k) {
    IsaCodec::store_words(codec.encode(insns[k]), bytes.data() + k * kInsnBytes);
  }
  void* code = VTAMemAlloc(bytes.size(), 0);
  VTAMemCopyFromHost(code, bytes.data(), bytes.size());
  if (VTADeviceRun(dev, VTAMemGetPhyAddr(code), static_cast<uint32_t>(insns.size()), 0) != 0) {
    throw Error("bench_memory: the tiny program timed out");
  }
  VTAMemFree(code);
  VTAMemFree(uop);
  VTADeviceFree(dev);
}

// Calls `call` `warm` times, then `n` times; prints the resident growth of the n calls.
template <class F>
void measure(const char* what, int warm, int n, F call) {
  for (int k = 0; k < warm; ++k) {
    call();
  }
  const long r0 = rss_kib();
  for (int k = 0; k < n; ++k) {
    call();
  }
  const long grown = rss_kib() - r0;
  std::printf("%-44s %5d calls: %+7ld KiB resident, %6.2f KiB per call\n", what, n, grown,
              static_cast<double>(grown) / n);
}

// A sweep worker's loop without recycling: run_job of one cycle design point x a small conv2d,
// as a worker process runs its jobs.
void sweep_worker_jobs(int n) {
  const nlohmann::ordered_json j = {{"name", "bench_memory"},
                                    {"base", "pynq"},
                                    {"workloads", {"conv2d:c=16,hw=4,k=16,kernel=3,pad=1"}},
                                    {"backend", "cycle"}};
  const explore::SweepSpec spec = explore::SweepSpec::from_json(j, "bench_memory", ".");
  const std::vector<explore::DesignPoint> points = explore::expand(spec);
  const explore::SweepJob job{&points.at(0), 0};
  measure("sweep worker: run_job (cycle, conv2d 16x4x4)", 5, n, [&] {
    for (const auto& row : explore::run_job(spec, job)) {
      if (row.value("status", "") != "ok") {
        throw Error("bench_memory: sweep job " + row.dump());
      }
    }
  });
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const int n = argc > 1 ? std::max(1, std::atoi(argv[1])) : 200;
    const HwConfig cfg = HwConfig::from_file(config_path("pynq"));
    {
      const long f0 = minor_faults(), r0 = rss_kib();
      Dram dram;
      dram.alloc(32u << 20);
      dram.alloc(32u << 20);
      std::printf("fresh DRAM + 2 x 32 MiB allocations: %ld page faults, %+ld KiB resident\n",
                  minor_faults() - f0, rss_kib() - r0);
    }
    for (const std::string& name : available_backends()) {
      Dram dram;
      for (int k = 0; k < 5; ++k) {  // warm up allocator pools and lazy statics
        create_run_destroy(name, cfg, dram);
      }
      const long r0 = rss_kib();
      for (int k = 0; k < n; ++k) {
        create_run_destroy(name, cfg, dram);
      }
      const long grown = rss_kib() - r0;
      const double each = static_cast<double>(grown) / n;
      std::printf("%-6s %d backends created, run and destroyed: %+ld KiB resident, %.1f KiB each\n",
                  name.c_str(), n, grown, each);
      // A sweep job creates at most one backend (the runtime keeps it while the config stays),
      // and a worker process is replaced after recycle_after jobs: that bounds what it keeps.
      const size_t jobs = explore::SweepOptions{}.recycle_after;
      std::printf("%-6s a sweep worker (replaced after %zu jobs) keeps at most %.0f KiB of them\n",
                  name.c_str(), jobs, each * static_cast<double>(jobs));
    }
    measure("C API: device alloc, run, free (VTA_BACKEND)", 5, n, [&] { c_api_device_run(cfg); });
    sweep_worker_jobs(n);
  } catch (const Error& e) {
    std::fprintf(stderr, "bench_memory: %s\n", e.what());
    return 1;
  }
  return 0;
}
