// The program verifier against the run it guards: check_stream (the path `vtasim run` takes) and
// an fsim run of the same generated program, at 10 k, 100 k and 1 M instructions. The program
// is a pipeline of LOAD INP, LOAD WGT, GEMM and STORE steps with the tokens that order them, so
// every load overlaps every GEMM and every GEMM every STORE: the pairwise check this verifier
// replaced compared all of those pairs (it is timed too, as the oracle, up to 100 k).
// Usage: bench_verifier [config-name-or-path] [largest program for the oracle, default 100002;
// 0: none] [program image ...: timed the same way, with the config it names].
// Prints this thread's CPU time; asserts nothing.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "../compiler/pairwise_race_oracle.h"
#include "bench_timer.h"
#include "program_builder.h"
#include "test_paths.h"
#include "vta/compiler/check/program_check.h"
#include "vta/runtime_cpp.h"
#include "vta/sim/error.h"
#include "vta/sim/fsim.h"
#include "vta/sim/program_image.h"

using namespace vta;
using namespace vta::testprog;

namespace {

constexpr uint32_t kUops = 8;  // micro-ops of each GEMM's kernel

// `steps` steps of four instructions after one LOAD UOP, and a FINISH: 4 steps + 2.
void build_pipeline(ProgramBuilder& pb, uint32_t steps) {
  const HwConfig& cfg = pb.cfg();
  const DeviceBuffer inp = pb.alloc(kUops * static_cast<size_t>(cfg.inp_elem_bytes));
  const DeviceBuffer wgt = pb.alloc(kUops * static_cast<size_t>(cfg.wgt_elem_bytes));
  const DeviceBuffer out = pb.alloc(kUops * static_cast<size_t>(cfg.out_elem_bytes));
  std::vector<Uop> kernel;
  for (uint32_t u = 0; u < kUops; ++u) {
    kernel.push_back(Uop{u, u, u});
  }
  const DeviceBuffer uops = pb.alloc_uops(kernel);
  pb.push(make_load_1d(kMemUop, 0, uops.elem(cfg, kMemUop), kUops));
  for (uint32_t k = 0; k < steps; ++k) {
    const bool first = k == 0, last = k + 1 == steps;
    pb.push(make_load_1d(kMemInp, 0, inp.elem(cfg, kMemInp), kUops, Deps{false, !first}));
    pb.push(
        make_load_1d(kMemWgt, 0, wgt.elem(cfg, kMemWgt), kUops, Deps{false, false, false, true}));
    UopLoop loop;
    loop.uop_end = kUops;
    loop.iter_in = 2;
    pb.push(make_gemm(loop, false, Deps{true, !first, !last, true}));
    pb.push(make_store_1d(0, out.elem(cfg, kMemOut), kUops, Deps{true, false, true, false}));
  }
  pb.push(make_finish(false, true));
}

// One row: the verifier, an fsim run and (up to `oracle_limit` instructions) the oracle.
void time_program(const char* name, const HwConfig& cfg, Dram& dram, uint32_t phys, uint32_t count,
                  long oracle_limit) {
  const BenchTimer tv;
  const compiler::ProgramCheck check = compiler::check_stream(cfg, dram, phys, count);
  const double verifier = tv.cpu();
  if (!check.ok()) {
    throw Error(std::string(name) + " does not verify: " + compiler::describe_problem(check));
  }
  FsimBackend fsim(cfg, dram);
  const BenchTimer tf;
  fsim.run(phys, count, 0);
  const double run = tf.cpu();
  std::string pairwise = "-";
  if (count <= oracle_limit) {
    const SyncedProgram p = compiler::oracle::stream_program(cfg, dram, phys, count);
    const BenchTimer to;
    const compiler::ProgramCheck o = compiler::oracle::pairwise_check_program(p, cfg);
    pairwise = std::to_string(to.cpu()) + (o.ok() ? "" : " (!)");
  }
  std::printf("%-14s %10u %12.4f %12.4f %10.2f %14.1f %16s\n", name, count, verifier, run,
              verifier / run, verifier / count * 1e9, pairwise.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const std::string config = argc > 1 ? argv[1] : "pynq";
    const HwConfig cfg = HwConfig::from_file(config_arg_path(config));
    const long oracle_limit = argc > 2 ? std::atol(argv[2]) : 100'002;
    std::printf("config %s; CPU seconds of one verifier pass and one fsim run\n", config.c_str());
    std::printf("%-14s %10s %12s %12s %10s %14s %16s\n", "program", "insns", "verifier s", "fsim s",
                "ver/fsim", "verifier ns/i", "pairwise s");
    for (const uint32_t steps : {2'500u, 25'000u, 250'000u}) {
      Dram dram;
      ProgramBuilder pb(cfg, dram);
      build_pipeline(pb, steps);
      const DeviceBuffer insns = pb.emit();
      time_program("pipeline", cfg, dram, insns.phys, static_cast<uint32_t>(pb.insns().size()),
                   oracle_limit);
    }
    for (int k = 3; k < argc; ++k) {
      const ProgramImage img = ProgramImage::load(argv[k]);
      const HwConfig image_cfg = HwConfig::from_json_text(img.config_json, argv[k]);
      Dram dram;
      img.load_into(dram);
      time_program("image", image_cfg, dram, img.insn_phys, img.insn_count, oracle_limit);
    }
    return 0;
  } catch (const Error& e) {
    std::fprintf(stderr, "bench_verifier: error: %s\n", e.what());
    return 1;
  }
}
