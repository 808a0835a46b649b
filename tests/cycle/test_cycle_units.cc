// Unit tests of the cycle model's units in isolation: ONE load or compute unit built with its
// own ports (instruction queue, token queues, memory interface with the "fixed" DRAM target in
// front of a Dram) in a SystemC kernel of its own. The test dispatches instructions into the
// unit's queue, pushes and pops tokens around it, runs the kernel and checks the start cycle S,
// the end cycle E (= the cycle of the unit's token pushes) and the unit's counters against the
// formulas of the timing contract (sim/README.md sections 1 and 4), written out in each test.
//
// The last case builds whole backends: the memory model behind the port is chosen by name.
//
// Observed: S = the cycle the unit popped its instruction (InsnQueue::last_pop); E = the cycle
// of its token push (a token pushed in E is visible from E + 1).
#include <algorithm>
#include <array>
#include <cstdint>
#include <exception>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>
#include <systemc>

#include "compute_unit.h"
#include "cycle_test_util.h"
#include "load_unit.h"
#include "program_builder.h"
#include "test_paths.h"
#include "vta/sim/contract/timing_constants.h"
#include "vta/sim/cycle/cycle_backend.h"
#include "vta/sim/cycle/dram_target.h"
#include "vta/sim/cycle/memory_target.h"
#include "vta/sim/cycle/sim_context.h"

using namespace vta;
using namespace vta::cycle;
using namespace vta::testprog;

namespace {

// The run begins in absolute cycle 1 (as the backend's first run: now + 1).
constexpr uint64_t kBase = 1;

// Does things at given absolute cycles inside the simulation: the producer or consumer on the
// other side of the unit's token queues.
class Driver : public sc_core::sc_module {
 public:
  explicit Driver(sc_core::sc_module_name name) : sc_core::sc_module(name) {
    SC_HAS_PROCESS(Driver);
    SC_THREAD(main);
  }
  // Call before the kernel runs, in cycle order.
  void at(uint64_t cycle, std::function<void()> action) {
    m_actions.emplace_back(cycle, std::move(action));
  }

 private:
  void main() {
    for (auto& [cycle, action] : m_actions) {
      if (cycle > now_cycle()) {
        sc_core::wait(cycles(cycle - now_cycle()));
      }
      action();
    }
  }
  std::vector<std::pair<uint64_t, std::function<void()>>> m_actions;
};

// Everything around one unit. The kernel is never torn down (SystemC cannot destroy modules
// with processes), so rigs are created with `new` and kept, as CycleBackend keeps its core.
struct Rig {
  Rig(const HwConfig& c, Dram& d)
      : cfg(c),
        dram(d),
        functional(cfg, dram, stats),
        insns(static_cast<uint32_t>(cfg.insn_queue_depth)),
        tokens{TokenQueue(kL2G, depth()), TokenQueue(kG2L, depth()), TokenQueue(kS2G, depth()),
               TokenQueue(kG2S, depth())},
        mem("mem"),
        memory("dram", cfg, dram),
        driver("driver") {
    mem.socket.bind(memory.socket);
    mem.set_error_handler([this](std::exception_ptr e) { run.fail(e); });
    program.set(&loaded);
  }

  SimContext ctx;  // first: the kernel every SystemC object below belongs to
  const HwConfig cfg;
  Dram& dram;
  Stats stats;
  StatsPort stats_port{stats};
  FunctionalCore functional;
  RunControl run;
  TraceRecorder trace;
  LoadedProgram loaded;
  RunProgram program;
  InsnQueue insns;
  std::array<TokenQueue, 4> tokens;
  MemoryInterface mem;
  DramTarget memory;
  Driver driver;

  uint32_t depth() const { return static_cast<uint32_t>(cfg.dep_queue_depth); }
  TokenQueue& q(TokenQueueId id) { return tokens[static_cast<size_t>(id)]; }

  PipelinePorts ports(TokenPorts t) {
    return PipelinePorts{insns, t, functional, run, trace, program, stats_port, cfg};
  }

  // Appends `insn` to the program and dispatches it in cycle `c`: visible from c + 1.
  void dispatch(const Insn& insn, uint64_t c) {
    loaded.insns.push_back(insn);
    insns.push(static_cast<uint32_t>(loaded.insns.size() - 1), c);
  }

  // Begins the run in cycle kBase and simulates until no event is left (or FINISH).
  void simulate() {
    memory.reset(kBase);
    run.begin(kBase);
    vta::cycle::SimContext::start();
    if (run.error()) {
      std::rethrow_exception(run.error());
    }
  }

  // The cycles in which the tokens still in queue `id` were pushed, oldest first.
  std::vector<uint64_t> push_cycles(TokenQueueId id) {
    std::vector<uint64_t> out;
    for (TokenQueue& t = q(id); !t.empty(); t.pop(kNever)) {
      out.push_back(t.front().visible - 1);
    }
    return out;
  }
};

struct LoadRig : Rig {
  LoadRig(const HwConfig& c, Dram& d)
      : Rig(c, d),
        unit("load", LoadPorts{ports(TokenPorts{nullptr, &q(kG2L), nullptr, &q(kL2G)}),
                               ReadPort(mem, kClientInp), ReadPort(mem, kClientWgt)}) {}
  LoadUnit unit;
};

struct ComputeRig : Rig {
  ComputeRig(const HwConfig& c, Dram& d)
      : Rig(c, d),
        unit("compute", ComputePorts{ports(TokenPorts{&q(kL2G), &q(kS2G), &q(kG2L), &q(kG2S)}),
                                     ReadPort(mem, kClientUop), ReadPort(mem, kClientAcc)}) {}
  ComputeUnit unit;
};

template <class R>
R& make_rig(const HwConfig& cfg, Dram& dram) {
  return *new R(cfg, dram);  // kept with its kernel
}

HwConfig pynq() {  // on the contract's fixed-latency memory, whose formulas the tests follow
  return HwConfig::from_file(config_path("pynq_fixed"));
}

// pynq: bus 8 B, Lr 16, CPB 1, bursts of up to 256 beats within 2 KiB. INP element 16 B (2
// beats), WGT element 256 B (32 beats), uop 4 B.
uint64_t lr(const HwConfig& cfg) {
  return static_cast<uint64_t>(cfg.dram_read_latency_cycles);
}
uint64_t cpb(const HwConfig& cfg) {
  return static_cast<uint64_t>(cfg.dram_cycles_per_beat);
}

}  // namespace

TEST_CASE("cycle units: a lone LOAD INP, one burst: E = S + P + 1 + Lr + beats * CPB", "[cycle]") {
  const HwConfig cfg = pynq();
  Dram dram;
  ProgramBuilder pb(cfg, dram);
  const DeviceBuffer inp = pb.alloc(4096);
  LoadRig& rig = make_rig<LoadRig>(cfg, dram);
  // 4 elements of 16 B = 64 B = 8 beats in one burst; pushes l2g at E.
  rig.dispatch(make_load_1d(kMemInp, 0, inp.elem(cfg, kMemInp), 4, Deps{0, 0, 0, 1}), 0);
  rig.simulate();

  const uint64_t s = 1;  // dispatched in 0, visible from 1
  const uint64_t p = 0, beats = 8;
  // Burst eligible and granted in S + P + 1, beats from grant + Lr; E = last beat + 1.
  const uint64_t e = s + p + 1 + lr(cfg) + (beats - 1) * cpb(cfg) + 1;
  CHECK(e == 26);
  CHECK(rig.insns.last_pop() == s);
  CHECK(rig.push_cycles(kL2G) == std::vector<uint64_t>{e});
  const UnitStats& st = rig.unit.stats();
  CHECK(st.busy_cycles == e - s + 1);
  CHECK(st.mem_stall_cycles == e - s - p - beats);  // 1 + Lr: grant and latency
  CHECK(rig.mem.read_stats(kClientInp).bursts == 1);
  CHECK(rig.mem.read_stats(kClientInp).bytes == 64);
  CHECK(rig.stats.insn_count[kOpLoad] == 1);
  rig.functional.release_storage();
}

TEST_CASE("cycle units: LOAD WGT with padding, two rows through the wgt client", "[cycle]") {
  const HwConfig cfg = pynq();
  Dram dram;
  ProgramBuilder pb(cfg, dram);
  const DeviceBuffer wgt = pb.alloc(4096);
  LoadRig& rig = make_rig<LoadRig>(cfg, dram);
  // y 2, x 3, stride 5, pads y (1, 0), x (1, 1): rows [0, 768) and [1280, 2048) of the buffer,
  // 3 x 256 B = 96 beats each, one burst per row (neither crosses 2 KiB).
  rig.dispatch(make_load_store(kOpLoad, kMemWgt, 0, wgt.elem(cfg, kMemWgt), 2, 3, 5,
                               Deps{0, 0, 0, 1}, 1, 0, 1, 1),
               0);
  rig.simulate();

  const uint64_t s = 1;
  const uint64_t w = 1 + 3 + 1;
  const uint64_t p =
      (1 + 0) * w + 2 * (1 + 1);  // P = (y_pad_0 + y_pad_1) W + y (x_pad_0 + x_pad_1)
  CHECK(p == 9);
  // Zero fill in S+1..S+P; burst 0 granted S+P+1, burst 1 the cycle after; the read data
  // channel is shared, so the 2 x 96 beats come back to back from S + P + 1 + Lr.
  const uint64_t beats = 2 * 96;
  const uint64_t e = s + p + 1 + lr(cfg) + (beats - 1) * cpb(cfg) + 1;
  CHECK(e == 219);
  CHECK(rig.insns.last_pop() == s);
  CHECK(rig.push_cycles(kL2G) == std::vector<uint64_t>{e});
  CHECK(rig.unit.stats().mem_stall_cycles == e - s - p - beats);
  CHECK(rig.mem.read_stats(kClientWgt).bursts == 2);
  CHECK(rig.mem.read_stats(kClientInp).bursts == 0);
  rig.functional.release_storage();
}

TEST_CASE("cycle units: a LOAD waits for its g2l token and starts when it is visible", "[cycle]") {
  const HwConfig cfg = pynq();
  Dram dram;
  ProgramBuilder pb(cfg, dram);
  const DeviceBuffer inp = pb.alloc(4096);
  LoadRig& rig = make_rig<LoadRig>(cfg, dram);
  // Visible from 1, pops g2l; the compute side pushes the token in cycle 40.
  rig.dispatch(make_load_1d(kMemInp, 0, inp.elem(cfg, kMemInp), 1, Deps{0, 1, 0, 1}), 0);
  const uint64_t t = 40;
  rig.driver.at(t, [&] { rig.q(kG2L).push(t, 0); });
  rig.simulate();

  const uint64_t s = t + 1;  // a token pushed in t is visible from t + 1
  const uint64_t e = s + 0 + 1 + lr(cfg) + (2 - 1) * cpb(cfg) + 1;  // 1 element = 2 beats
  CHECK(e == 60);
  CHECK(rig.insns.last_pop() == s);
  CHECK(rig.q(kG2L).last_pop() == s);  // the token is popped in S
  CHECK(rig.push_cycles(kL2G) == std::vector<uint64_t>{e});
  const UnitStats& st = rig.unit.stats();
  CHECK(st.stall_token_cycles[kG2L] == s - 1);  // cycles 1..40
  CHECK(st.idle_cycles == 0);
  rig.functional.release_storage();
}

TEST_CASE("cycle units: a LOAD whose l2g queue is full starts the cycle after a pop", "[cycle]") {
  const HwConfig cfg = cycletest::config_with("pynq", {{"DEP_QUEUE_DEPTH", 2}});
  Dram dram;
  ProgramBuilder pb(cfg, dram);
  const DeviceBuffer inp = pb.alloc(4096);
  LoadRig& rig = make_rig<LoadRig>(cfg, dram);
  // l2g already holds DEP_QUEUE_DEPTH = 2 tokens; the compute side pops one in cycle 30.
  rig.q(kL2G).push(0, 0);
  rig.q(kL2G).push(0, 0);
  rig.dispatch(make_load_1d(kMemInp, 0, inp.elem(cfg, kMemInp), 1, Deps{0, 0, 0, 1}), 0);
  const uint64_t t = 30;
  rig.driver.at(t, [&] { rig.q(kL2G).pop(t); });
  rig.simulate();

  const uint64_t s = t + 1;  // a slot freed in t is visible to the producer from t + 1
  const uint64_t e = s + 0 + 1 + lr(cfg) + (2 - 1) * cpb(cfg) + 1;
  CHECK(e == 50);
  CHECK(rig.insns.last_pop() == s);
  CHECK(rig.push_cycles(kL2G) == std::vector<uint64_t>{0, e});  // the one left, then ours
  CHECK(rig.unit.stats().stall_full_cycles[kL2G] == s - 1);     // cycles 1..30
  rig.functional.release_storage();
}

TEST_CASE("cycle units: back-to-back LOADs and a NOP: the next starts in E + 1", "[cycle]") {
  const HwConfig cfg = pynq();
  Dram dram;
  ProgramBuilder pb(cfg, dram);
  const DeviceBuffer inp = pb.alloc(4096);
  LoadRig& rig = make_rig<LoadRig>(cfg, dram);
  const uint32_t base = inp.elem(cfg, kMemInp);
  rig.dispatch(make_load_1d(kMemInp, 0, base, 4, Deps{0, 0, 0, 1}), 0);      // 8 beats
  rig.dispatch(make_load_1d(kMemInp, 4, base + 4, 4, Deps{0, 0, 0, 1}), 1);  // 8 beats
  rig.dispatch(make_load_1d(kMemInp, 8, base, 0, Deps{0, 0, 0, 1}), 2);      // x_size 0: NOP
  rig.simulate();

  const uint64_t s1 = 1;
  const uint64_t e1 = s1 + 1 + lr(cfg) + (8 - 1) * cpb(cfg) + 1;  // 26
  // The read data channel is free from e1 (last beat + 1), before the second grant + Lr.
  const uint64_t s2 = e1 + 1;
  const uint64_t e2 = s2 + 1 + lr(cfg) + (8 - 1) * cpb(cfg) + 1;  // 52
  const uint64_t s3 = e2 + 1, e3 = s3;                            // NOP: E = S
  CHECK(rig.insns.last_pop() == s3);
  CHECK(rig.push_cycles(kL2G) == std::vector<uint64_t>{e1, e2, e3});
  CHECK(e3 == 53);
  CHECK(rig.unit.stats().busy_cycles == (e1 - s1 + 1) + (e2 - s2 + 1) + (e3 - s3 + 1));
  CHECK(rig.unit.stats().idle_cycles == 0);
  rig.functional.release_storage();
}

TEST_CASE("cycle units: GEMM of N iterations: E = S + N + kComputePipelineDepth", "[cycle]") {
  const HwConfig cfg = pynq();
  Dram dram;
  ComputeRig& rig = make_rig<ComputeRig>(cfg, dram);
  // N = iter_out x iter_in x (uop_end - uop_bgn) = 2 x 3 x 1 = 6, pushes g2s; then FINISH.
  rig.dispatch(make_gemm(UopLoop{0, 1, 2, 3}, false, Deps{0, 0, 0, 1}), 0);
  rig.dispatch(make_finish(), 0);
  rig.simulate();

  const uint64_t s = 1, n = 6;
  const uint64_t e = s + n + kComputePipelineDepth;  // issue S+1..S+N, result 4 cycles later
  CHECK(e == 11);
  CHECK(rig.push_cycles(kG2S) == std::vector<uint64_t>{e});
  // FINISH starts in E + 1 and ends in its start cycle.
  CHECK(rig.run.finished());
  CHECK(rig.run.finish_cycle() == e + 1);
  CHECK(rig.insns.last_pop() == e + 1);
  CHECK(rig.unit.compute_stats().gemm_active_cycles == n);
  CHECK(rig.stats.gemm_counter == n);
  rig.functional.release_storage();
}

TEST_CASE("cycle units: ALU with a vector operand after an l2g token, then with an immediate",
          "[cycle]") {
  const HwConfig cfg = pynq();
  Dram dram;
  ComputeRig& rig = make_rig<ComputeRig>(cfg, dram);
  // Vector ALU over uops 0..4 (N = 5), pops l2g, pushes g2l; then ALU with an immediate over
  // uops 0..2 (N = 3), pushes g2l. The load side pushes the token in cycle 20.
  rig.dispatch(make_alu(kAluMax, UopLoop{0, 5, 1, 1}, false, 0, Deps{1, 0, 1, 0}), 0);
  rig.dispatch(make_alu(kAluAdd, UopLoop{0, 3, 1, 1}, true, 7, Deps{0, 0, 1, 0}), 1);
  const uint64_t t = 20;
  rig.driver.at(t, [&] { rig.q(kL2G).push(t, 0); });
  rig.simulate();

  const uint64_t s1 = t + 1, n1 = 5;
  // One issue every two cycles (two acc reads on one port): S+1, S+3, ..., S+2N-1.
  const uint64_t e1 = s1 + 2 * (n1 - 1) + 1 + kComputePipelineDepth;
  CHECK(e1 == 34);
  const uint64_t s2 = e1 + 1, n2 = 3;
  const uint64_t e2 = s2 + n2 + kComputePipelineDepth;
  CHECK(e2 == 42);
  CHECK(rig.q(kL2G).last_pop() == s1);
  CHECK(rig.insns.last_pop() == s2);
  CHECK(rig.push_cycles(kG2L) == std::vector<uint64_t>{e1, e2});
  const UnitStats& st = rig.unit.stats();
  CHECK(st.stall_token_cycles[kL2G] == s1 - 1);
  CHECK(st.busy_cycles == (e1 - s1 + 1) + (e2 - s2 + 1));
  CHECK(rig.unit.compute_stats().alu_active_cycles == 2 * n1 + n2);
  rig.functional.release_storage();
}

TEST_CASE("cycle units: LOAD UOP goes through the compute unit's uop client", "[cycle]") {
  const HwConfig cfg = pynq();
  Dram dram;
  ProgramBuilder pb(cfg, dram);
  const DeviceBuffer uops = pb.alloc_uops({Uop{0, 0, 0}, Uop{1, 1, 1}, Uop{2, 2, 2}});
  ComputeRig& rig = make_rig<ComputeRig>(cfg, dram);
  // 3 uops = 12 B = 2 beats; the instruction is visible from 6.
  rig.dispatch(make_load_1d(kMemUop, 0, uops.elem(cfg, kMemUop), 3, Deps{0, 0, 0, 1}), 5);
  rig.simulate();

  const uint64_t s = 6;
  const uint64_t e = s + 0 + 1 + lr(cfg) + (2 - 1) * cpb(cfg) + 1;
  CHECK(e == 25);
  CHECK(rig.insns.last_pop() == s);
  CHECK(rig.push_cycles(kG2S) == std::vector<uint64_t>{e});
  CHECK(rig.unit.stats().idle_cycles == s - 1);  // cycles 1..5: nothing visible
  CHECK(rig.mem.read_stats(kClientUop).bursts == 1);
  CHECK(rig.mem.read_stats(kClientUop).bytes == 12);
  rig.functional.release_storage();
}

TEST_CASE("cycle units: every memory model described has a timed implementation, and no other",
          "[cycle]") {
  // find_memory_model links every timed registration (vta/sim/memory_models.inc).
  for (const std::string& name : memory_model_names()) {
    INFO(name);
    CHECK(find_memory_model(name).name == name);
  }
  const auto& timed = MemoryModelRegistry::instance().entries();
  CHECK(timed.size() == memory_model_names().size());
  for (const MemoryModelEntry& e : timed) {
    INFO(e.name);
    CHECK(find_memory_model_description(e.name) != nullptr);
    CHECK(e.make != nullptr);
  }
}

TEST_CASE("cycle units: the memory model is chosen by name", "[cycle]") {
  const HwConfig cfg = pynq();
  const std::vector<std::string> names = MemoryModelRegistry::instance().names();
  CHECK(std::find(names.begin(), names.end(), "fixed") != names.end());
  CHECK(std::string(kDefaultMemoryModel) == "fixed");
  Dram dram;
  {
    CycleBackend be(cfg, dram);
    CHECK(be.memory_model() == "fixed");
  }
  CycleBackend be(cfg, dram, std::string("fixed"));
  CHECK(be.memory_model() == "fixed");
  // The worked example of sim/README.md section 5 on the model chosen by name: 61 cycles.
  ProgramBuilder pb(cfg, dram);
  const DeviceBuffer uops = pb.alloc_uops({Uop{0, 0, 0}});
  const DeviceBuffer inp = pb.alloc(4096);
  const DeviceBuffer out = pb.alloc(4096);
  pb.push(make_load_1d(kMemUop, 0, uops.elem(cfg, kMemUop), 1));
  pb.push(make_load_1d(kMemInp, 0, inp.elem(cfg, kMemInp), 1, Deps{false, false, false, true}));
  pb.push(make_gemm(UopLoop{}, false, Deps{true, false, false, true}));
  pb.push(make_store_1d(0, out.elem(cfg, kMemOut), 1, Deps{true, false, true, false}));
  pb.push(make_finish(false, true));
  REQUIRE(pb.run(be) == RunStatus::kOk);
  CHECK(be.last_run_cycles() == 61);
  try {
    CycleBackend bad(cfg, dram, std::string("no-such-model"));
    FAIL("no error");
  } catch (const Error& e) {
    const std::string msg = e.what();
    INFO(msg);
    CHECK(msg.find("no memory model named 'no-such-model'") != std::string::npos);
    CHECK(msg.find("registered: fixed") != std::string::npos);
  }
}
