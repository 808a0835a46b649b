// bench_multicore: the same work on 1, 2 and 4 cores sharing one DRAM (docs/multicore.md). Every
// core runs its own copy of a program (a 3x3 convolution shaped like ResNet-18's C8 layer, or
// a memory-bound stream) with its own data; all start in the same cycle. Prints the system's
// cycles, the speed-up over running the copies one after the other on one core, and each
// core's cycles and DRAM contention; checks every convolution's output against the plain
// reference. Usage: bench_multicore [preset ...] (default: pynq zcu104).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "bench_programs.h"
#include "vta/sim/config_source.h"
#include "vta/sim/cycle/cycle_backend.h"

using namespace vta;
using namespace vta::testprog;

namespace {

HwConfig with_cores(const std::string& preset, int cores) {
  nlohmann::json j = resolve_config(preset, {}).keys;
  if (cores > 0) {
    j["CORES"] = cores;
  }
  return HwConfig::from_json(j, preset + " with CORES");
}

double counter(const Stats& s, const std::string& name) {
  const NamedCounter* c = s.find(name);
  return c != nullptr ? c->value : 0.0;
}

// Runs `cores` copies of the program together; returns the system's cycles.
uint64_t run_copies(const std::string& preset, int cores, bool conv, std::string& detail) {
  const HwConfig cfg = with_cores(preset, cores);
  Dram dram;
  CycleBackend be(cfg, dram);
  std::vector<std::unique_ptr<ProgramBuilder>> pbs;
  std::vector<ConvProgram> convs;
  std::vector<CoreProgram> programs;
  for (int k = 0; k < cfg.num_cores(); ++k) {
    std::mt19937 rng(1234u + static_cast<uint32_t>(k));
    pbs.push_back(std::make_unique<ProgramBuilder>(cfg.core_config(k), dram));
    if (conv) {
      convs.push_back(build_conv3x3_program(*pbs.back(), ConvSpec{}, rng));
    } else {
      build_memory_bound_program(*pbs.back(), 16);
    }
    const DeviceBuffer insns = pbs.back()->emit();
    programs.push_back({insns.phys, static_cast<uint32_t>(pbs.back()->insns().size())});
  }
  be.run_cores(programs, 0);
  for (size_t k = 0; k < convs.size(); ++k) {
    const std::vector<int8_t> want = reference_conv3x3(cfg, convs[k]);
    if (std::memcmp(want.data(), convs[k].out.host, want.size()) != 0) {
      std::fprintf(stderr, "core %zu: output differs from the reference\n", k);
      std::exit(1);
    }
  }
  const auto system = static_cast<uint64_t>(counter(be.stats(), "system.cycles"));
  if (cores == 0) {
    return be.stats().cycles;  // no CORES: the single core, no interconnect
  }
  for (int k = 0; k < cores; ++k) {
    detail += fmt::format("    core {}: {:.0f} cycles, {:.0f} contention cycles, {:.0f} bursts\n",
                          k, counter(be.stats(), fmt::format("core{}.cycles", k)),
                          counter(be.stats(), fmt::format("core{}.dram_contention_cycles", k)),
                          counter(be.stats(), fmt::format("core{}.interconnect_bursts", k)));
  }
  return system;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> presets(argv + 1, argv + argc);
  if (presets.empty()) {
    presets = {"pynq", "zcu104"};
  }
  for (const std::string& preset : presets) {
    for (bool conv : {true, false}) {
      std::string detail;
      const uint64_t one = run_copies(preset, 1, conv, detail);
      const uint64_t single = run_copies(preset, 0, conv, detail);
      std::printf("%s, %s: one copy on one core %llu cycles (without CORES: %llu)\n",
                  preset.c_str(),
                  conv ? "conv3x3 C8 (115.6 M MACs)" : "memory-bound stream (16 rounds)",
                  static_cast<unsigned long long>(one), static_cast<unsigned long long>(single));
      for (int cores : {2, 4}) {
        detail.clear();
        const uint64_t sys = run_copies(preset, cores, conv, detail);
        std::printf(
            "  %d cores, one copy each: %llu cycles, speed-up %.2f over %d copies on one "
            "core\n",
            cores, static_cast<unsigned long long>(sys),
            static_cast<double>(one) * cores / static_cast<double>(sys), cores);
        std::printf("%s", detail.c_str());
      }
    }
  }
  return 0;
}
