// Host memory of the simulators: what a fresh simulated DRAM commits (page faults and resident
// bytes for the runtime's two 32 MiB transfer buffers, which used to be zero-filled by memset),
// and the host memory each created-and-destroyed backend leaves behind, per backend (a sweep
// creates thousands) and the bound a sweep worker's recycling puts on it. Usage: bench_memory
// [backends-per-measure]. Prints figures; asserts nothing about them.
#include <sys/resource.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>

#include <cstring>
#include <vector>

#include "test_paths.h"
#include "vta/backend_factory.h"
#include "vta/explore/sweep_runner.h"
#include "vta/sim/error.h"
#include "vta/sim/isa.h"

using namespace vta;

namespace {

long minor_faults() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_minflt;
}

// Resident set size in KiB (/proc/self/status VmRSS).
long rss_kib() {
  std::ifstream f("/proc/self/status");
  std::string key;
  long value = 0;
  while (f >> key) {
    if (key == "VmRSS:") {
      f >> value;
      return value;
    }
    f.ignore(1 << 12, '\n');
  }
  return -1;
}

// One tiny program (LOAD UOP, an ALU add, FINISH) on a fresh backend that is then destroyed.
void create_run_destroy(const std::string& name, const HwConfig& cfg, Dram& dram) {
  std::unique_ptr<Backend> be = make_backend(name, cfg, dram);
  const IsaCodec codec(cfg);
  auto* uop = static_cast<uint8_t*>(dram.alloc(kUopBytes));
  const uint32_t word = codec.encode_uop(Uop{0, 0, 0});
  std::memcpy(uop, &word, kUopBytes);
  Insn alu;
  alu.opcode = kOpAlu;
  alu.uop_end = 1;
  alu.iter_out = alu.iter_in = 1;
  alu.use_imm = true;
  alu.alu_opcode = kAluAdd;
  alu.imm = 1;
  Insn finish;
  finish.opcode = kOpFinish;
  const std::vector<Insn> insns = {
      mem_insn(kOpLoad, kMemUop, 0, dram.phys_addr(uop) / kUopBytes, 1, 1, 1), alu, finish};
  auto* code = static_cast<uint8_t*>(dram.alloc(insns.size() * kInsnBytes));
  for (size_t k = 0; k < insns.size(); ++k) {
    IsaCodec::store_words(codec.encode(insns[k]), code + k * kInsnBytes);
  }
  be->run(dram.phys_addr(code), static_cast<uint32_t>(insns.size()), 0);
  dram.free(code);
  dram.free(uop);
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
  } catch (const Error& e) {
    std::fprintf(stderr, "bench_memory: %s\n", e.what());
    return 1;
  }
  return 0;
}
