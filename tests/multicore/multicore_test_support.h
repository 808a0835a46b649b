// What the multicore tests share (test_multicore_system.cc, test_multicore_arbitration.cc,
// test_multicore_rtl.cc, test_multicore_trace.cc): systems of a preset with CORES, the timing
// contract's worked example, the cycles of the memory-bound bench program alone and on a
// one-core system, and the ISA-suite case of a name.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "bench_programs.h"
#include "isa_programs.h"
#include "program_builder.h"
#include "vta/sim/backend.h"
#include "vta/sim/config_source.h"

namespace vta::multicoretest {

// `preset` with CORES = `cores`, interconnect latency 0 and the keys of `set` on top.
inline HwConfig system_config(const std::string& preset, int cores, const nlohmann::json& set) {
  nlohmann::json j = resolve_config(preset, {}).keys;
  j["CORES"] = cores;
  j["INTERCONNECT_LATENCY_CYCLES"] = 0;
  for (const auto& [k, v] : set.items()) {
    j[k] = v;
  }
  return HwConfig::from_json(j, preset + " with CORES");
}

// pynq_fixed (the contract's memory: Lr 16, Lw 8, one beat per cycle, 8-byte bus) with CORES and
// an interconnect latency of `latency` cycles.
inline HwConfig system_config(int cores, int latency) {
  return system_config("pynq_fixed", cores, {{"INTERCONNECT_LATENCY_CYCLES", latency}});
}

// The 5 instructions of sim/README.md section 5: LOAD UOP, LOAD INP (push_next), GEMM (pop_prev,
// push_next), STORE (pop_prev, push_prev), FINISH (pop_next); 80 bytes = one 10-beat fetch burst.
inline CoreProgram worked_example(testprog::ProgramBuilder& pb) {
  using namespace testprog;
  const HwConfig& cfg = pb.cfg();
  const DeviceBuffer inp = pb.alloc(static_cast<size_t>(cfg.inp_elem_bytes));
  const DeviceBuffer out = pb.alloc(static_cast<size_t>(cfg.out_elem_bytes));
  const DeviceBuffer uops = pb.alloc_uops({Uop{0, 0, 0}});
  pb.push(make_load_1d(kMemUop, 0, uops.elem(cfg, kMemUop), 1));
  Deps load;
  load.push_next = true;
  pb.push(make_load_1d(kMemInp, 0, inp.elem(cfg, kMemInp), 1, load));
  Deps gemm;
  gemm.pop_prev = gemm.push_next = true;
  pb.push(make_gemm(UopLoop{}, false, gemm));
  Deps store;
  store.pop_prev = store.push_prev = true;
  pb.push(make_store_1d(0, out.elem(cfg, kMemOut), 1, store));
  pb.push(make_finish(false, true));
  const DeviceBuffer insns = pb.emit();
  return CoreProgram{insns.phys, static_cast<uint32_t>(pb.insns().size())};
}

// The memory-bound bench program's cycles (2 rounds) on `preset` alone and on `preset` as a
// system of one core behind an interconnect 4096 bytes wide (a hold of one cycle per burst),
// each on a fresh backend `make_backend(cfg, dram)`.
struct AloneAndOneCore {
  uint64_t alone = 0, one_core = 0;
};

template <class MakeBackend>
AloneAndOneCore memory_bound_cycles(const std::string& preset, MakeBackend make_backend) {
  nlohmann::json keys = resolve_config(preset, {}).keys;
  const HwConfig single = HwConfig::from_json(keys, preset);
  keys["CORES"] = 1;
  keys["INTERCONNECT_BYTES_PER_CYCLE"] = 4096;
  const HwConfig system = HwConfig::from_json(keys, preset);
  uint64_t cycles[2] = {0, 0};
  for (int k = 0; k < 2; ++k) {
    const HwConfig& cfg = k == 0 ? single : system;
    Dram dram;
    std::unique_ptr<Backend> be = make_backend(cfg, dram);
    testprog::ProgramBuilder pb(cfg, dram);
    testprog::build_memory_bound_program(pb, 2);
    REQUIRE(pb.run(*be) == RunStatus::kOk);
    cycles[k] = be->stats().cycles;
  }
  return AloneAndOneCore{cycles[0], cycles[1]};
}

// The ISA-suite case `name` of `v`; fails the test when there is none.
inline const testprog::IsaTestCase& find_case(const std::vector<testprog::IsaTestCase>& v,
                                              const std::string& name) {
  for (const auto& c : v) {
    if (c.name == name) {
      return c;
    }
  }
  FAIL("no ISA case " << name);
  return v.front();
}

}  // namespace vta::multicoretest
