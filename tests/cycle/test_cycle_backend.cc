// Behaviour of the cycle backend as a component: values equal to fsim, reuse across runs,
// several backends per process, deadlock / missing FINISH reports, timeouts, traces.
#include <catch2/catch.hpp>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <tuple>
#include <vector>

#include <tlm_utils/simple_target_socket.h>
#include <nlohmann/json.hpp>
#include <systemc>
#include <tlm>

#include "bench_programs.h"
#include "cycle_test_util.h"
#include "program_builder.h"
#include "software_backends.h"
#include "vcd_check.h"
#include "vta/sim/cycle/cycle_backend.h"
#include "vta/sim/cycle/dram_target.h"

using namespace vta;
using namespace vta::testprog;
using namespace vta::cycletest;

namespace {

// The worked example of sim/README.md with a real uop and data: returns the stored tile.
struct Example {
  DeviceBuffer inp, out;
};
Example build_example(ProgramBuilder& pb, int8_t value) {
  const HwConfig& cfg = pb.cfg();
  Example ex;
  const DeviceBuffer uops = pb.alloc_uops({Uop{0, 0, 0}});
  const DeviceBuffer wgt = pb.alloc(4096);
  ex.inp = pb.alloc(4096);
  ex.out = pb.alloc(4096);
  for (int k = 0; k < cfg.block_in * cfg.batch; ++k) {
    reinterpret_cast<int8_t*>(ex.inp.host)[k] = value;
  }
  for (int k = 0; k < cfg.block_in * cfg.block_out; ++k) {
    reinterpret_cast<int8_t*>(wgt.host)[k] = 1;
  }
  pb.push(make_load_1d(kMemUop, 0, uops.elem(cfg, kMemUop), 1));
  pb.push(make_gemm(UopLoop{}, true));
  pb.push(make_load_1d(kMemWgt, 0, wgt.elem(cfg, kMemWgt), 1));
  pb.push(make_load_1d(kMemInp, 0, ex.inp.elem(cfg, kMemInp), 1, Deps{false, false, false, true}));
  pb.push(make_gemm(UopLoop{}, false, Deps{true, false, false, true}));
  pb.push(make_store_1d(0, ex.out.elem(cfg, kMemOut), 1, Deps{true, false, true, false}));
  pb.push(make_finish(false, true));
  return ex;
}

std::string read_file(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

}  // namespace

TEST_CASE("cycle backend: repeated runs give the same cycles and accumulate stats", "[cycle]") {
  const HwConfig cfg = HwConfig::from_file(config_path("pynq"));
  Dram dram;
  CycleBackend be(cfg, dram);
  ProgramBuilder pb(cfg, dram);
  const Example ex = build_example(pb, 3);
  const DeviceBuffer stream = pb.emit();
  uint64_t first = 0;
  for (int r = 0; r < 5; ++r) {
    reinterpret_cast<int8_t*>(ex.inp.host)[0] = static_cast<int8_t>(r);
    REQUIRE(be.run(stream.phys, static_cast<uint32_t>(pb.insns().size()), 0) == RunStatus::kOk);
    if (r == 0) {
      first = be.last_run_cycles();
    }
    CHECK(be.last_run_cycles() == first);
    // out[oc] = sum_k inp[k] * 1 = r + 3 * (BLOCK_IN - 1)
    const int expect = r + 3 * (cfg.block_in - 1);
    for (int oc = 0; oc < cfg.block_out; ++oc) {
      CHECK(reinterpret_cast<int8_t*>(ex.out.host)[oc] == static_cast<int8_t>(expect));
    }
  }
  CHECK(be.stats().runs == 5);
  CHECK(be.stats().cycles == 5 * first);
  CHECK(be.stats().gemm_counter == 5);
  be.clear_stats();
  REQUIRE(be.run(stream.phys, static_cast<uint32_t>(pb.insns().size()), 0) == RunStatus::kOk);
  CHECK(be.stats().cycles == first);
}

TEST_CASE("cycle backend: several backends in one process, side by side and in turn", "[cycle]") {
  const HwConfig pynq = HwConfig::from_file(config_path("pynq"));
  const HwConfig small = HwConfig::from_file(config_path("small"));
  Dram d1, d2;
  auto a = std::make_unique<CycleBackend>(pynq, d1);
  auto b = std::make_unique<CycleBackend>(small, d2);
  ProgramBuilder pa(pynq, d1), pbb(small, d2);
  const Example ea = build_example(pa, 2), eb = build_example(pbb, 5);
  const DeviceBuffer sa = pa.emit(), sb = pbb.emit();
  for (int r = 0; r < 3; ++r) {
    REQUIRE(a->run(sa.phys, 7, 0) == RunStatus::kOk);
    REQUIRE(b->run(sb.phys, 7, 0) == RunStatus::kOk);
  }
  CHECK(a->stats().cycles == 3 * a->last_run_cycles());
  CHECK(b->stats().cycles == 3 * b->last_run_cycles());
  // out[oc] = sum_k value * 1
  CHECK(reinterpret_cast<int8_t*>(ea.out.host)[0] == 2 * pynq.block_in);
  CHECK(reinterpret_cast<int8_t*>(eb.out.host)[0] == 5 * small.block_in);
  const uint64_t cycles_a = a->last_run_cycles();
  a.reset();
  b.reset();
  // Create and destroy more, one after the other.
  for (int k = 0; k < 3; ++k) {
    Dram d;
    CycleBackend c(pynq, d);
    ProgramBuilder p(pynq, d);
    build_example(p, 1);
    REQUIRE(p.run(c) == RunStatus::kOk);
    CHECK(c.last_run_cycles() == cycles_a);
  }
}

TEST_CASE("cycle backend: values and counters equal fsim on a small convolution", "[cycle]") {
  for (const char* preset : {"pynq", "small", "batch4"}) {
    const HwConfig cfg = HwConfig::from_file(config_path(preset));
    const uint32_t seed = 1234;
    INFO(preset << " seed " << seed);
    std::vector<int8_t> outs[2];
    Stats stats[2];
    for (int which = 0; which < 2; ++which) {
      Dram dram;
      const std::unique_ptr<Backend> be = make_fsim_or_cycle(which == 1, cfg, dram);
      ProgramBuilder pb(cfg, dram);
      std::mt19937 rng(seed);
      ConvSpec spec;
      spec.h = spec.w = 6;
      spec.ic = spec.oc = static_cast<uint32_t>(cfg.block_in * 2);
      const ConvProgram prog = build_conv3x3_program(pb, spec, rng);
      REQUIRE(pb.run(*be) == RunStatus::kOk);
      outs[which].assign(reinterpret_cast<int8_t*>(prog.out.host),
                         reinterpret_cast<int8_t*>(prog.out.host) + prog.out.bytes);
      if (which == 1) {
        CHECK(reference_conv3x3(cfg, prog) ==
              std::vector<int8_t>(outs[1].begin(),
                                  outs[1].begin() + reference_conv3x3(cfg, prog).size()));
      }
      stats[which] = be->stats();
    }
    CHECK(outs[0] == outs[1]);
    CHECK(compare_counters(stats[0], stats[1]) == "");
    CHECK(stats[1].timed);
    CHECK(stats[1].cycles > 0);
  }
}

TEST_CASE("cycle backend: deadlock is reported with every unit's state", "[cycle]") {
  const HwConfig cfg = HwConfig::from_file(config_path("pynq"));
  Dram dram;
  CycleBackend be(cfg, dram);
  ProgramBuilder pb(cfg, dram);
  pb.push(make_gemm(UopLoop{}, false));
  pb.push(make_gemm(UopLoop{}, false, Deps{true, false, false, false}));  // no load ever pushes
  pb.push(make_finish());
  try {
    pb.run(be);
    FAIL("no error");
  } catch (const ProgramError& e) {
    const std::string msg = e.what();
    INFO(msg);
    CHECK(msg.find("deadlock") != std::string::npos);
    CHECK(msg.find(
              "compute unit is blocked at instruction 1 (GEMM): pop_prev_dep waits on queue l2g") !=
          std::string::npos);
    CHECK(msg.find("load unit has no instructions left") != std::string::npos);
    CHECK(msg.find("instruction queues load=0 compute=2 store=0") != std::string::npos);
    CHECK(msg.find("tokens l2g=0 g2l=0 s2g=0 g2s=0") != std::string::npos);
  }
  // The backend recovers: a good program runs next.
  ProgramBuilder ok(cfg, dram);
  build_example(ok, 1);
  CHECK(ok.run(be) == RunStatus::kOk);
  CHECK(be.last_run_cycles() > 0);
}

TEST_CASE("cycle backend: a stream without FINISH is an error", "[cycle]") {
  const HwConfig cfg = HwConfig::from_file(config_path("pynq"));
  Dram dram;
  CycleBackend be(cfg, dram);
  ProgramBuilder pb(cfg, dram);
  pb.push(make_gemm(UopLoop{}, false));
  pb.push(make_alu(kAluAdd, UopLoop{}, true, 1));
  try {
    pb.run(be);
    FAIL("no error");
  } catch (const ProgramError& e) {
    CHECK(std::string(e.what()).find("no FINISH executed within insn_count = 2") !=
          std::string::npos);
  }
}

TEST_CASE("cycle backend: wait_cycles gives a timeout, and the next run starts clean", "[cycle]") {
  const HwConfig cfg = HwConfig::from_file(config_path("pynq_fixed"));
  Dram dram;
  CycleBackend be(cfg, dram);
  ProgramBuilder pb(cfg, dram);
  pb.push(make_gemm(UopLoop{0, 1, 100, 100}, false));
  pb.push(make_finish());
  const DeviceBuffer s = pb.emit();
  // GEMM: S = 20, E = 20 + 10000 + 4; FINISH in 10025 -> 10026 cycles.
  CHECK(be.run(s.phys, 2, 500) == RunStatus::kTimeout);
  CHECK(be.last_run_cycles() == 500);
  CHECK(be.run(s.phys, 2, 10025) == RunStatus::kTimeout);
  CHECK(be.run(s.phys, 2, 10026) == RunStatus::kOk);
  CHECK(be.last_run_cycles() == 10026);
  CHECK(be.run(s.phys, 2, 0) == RunStatus::kOk);
  CHECK(be.last_run_cycles() == 10026);
  CHECK(be.stats().cycles == 500 + 10025 + 10026 + 10026);
}

TEST_CASE("cycle backend: illegal instructions give fsim's errors", "[cycle]") {
  const HwConfig cfg = HwConfig::from_file(config_path("pynq"));
  Dram dram;
  CycleBackend be(cfg, dram);
  ProgramBuilder pb(cfg, dram);
  pb.push(make_load_1d(kMemInp, cfg.inp_buff_depth - 1, 0, 2));  // beyond the inp buffer
  pb.push(make_finish());
  try {
    pb.run(be);
    FAIL("no error");
  } catch (const ProgramError& e) {
    CHECK(std::string(e.what()).find("instruction 0 (LOAD INP, load unit): field 'sram_base'") !=
          std::string::npos);
  }
}

TEST_CASE("cycle backend: Perfetto trace and VCD", "[cycle]") {
  const HwConfig cfg = HwConfig::from_file(config_path("pynq"));
  Dram dram;
  CycleBackend be(cfg, dram);
  const std::string trace = unique_temp_path("cycle_test_trace", ".json"),
                    vcd = unique_temp_path("cycle_test_trace", ".vcd");
  be.enable_trace(trace);
  be.enable_vcd(vcd, 0, 1000);
  ProgramBuilder pb(cfg, dram);
  build_example(pb, 1);
  REQUIRE(pb.run(be) == RunStatus::kOk);
  const nlohmann::json j = nlohmann::json::parse(read_file(trace));
  int spans[7] = {0, 0, 0, 0, 0, 0, 0}, starts = 0, ends = 0;
  std::map<std::string, double> dram_commands;  // on the DRAM track, by command
  for (const auto& e : j["traceEvents"]) {
    const std::string ph = e["ph"];
    if (ph == "X") {
      ++spans[e["tid"].get<int>()];
      CHECK(e["dur"].get<double>() > 0);
      if (e["tid"].get<int>() == 6) {  // "RD bank 0 row 1 x2, ACT bank 1 row 1"
        std::istringstream in(e["name"].get<std::string>());
        std::string command;
        while (std::getline(in, command, ',')) {
          command.erase(0, command.find_first_not_of(' '));
          const size_t times = command.rfind(" x");
          dram_commands[command.substr(0, command.find(' '))] +=
              times != std::string::npos ? std::stod(command.substr(times + 2)) : 1.0;
        }
      }
    }
    starts += ph == "s";
    ends += ph == "f";
  }
  CHECK(spans[0] == 1);                        // one fetch burst
  CHECK(spans[1] + spans[2] + spans[3] == 7);  // one span per instruction
  CHECK(spans[1] == 2);                        // LOAD WGT, LOAD INP
  CHECK(spans[3] == 1);                        // STORE
  CHECK(spans[4] == 4);                        // read bursts: fetch, uop, wgt, inp
  CHECK(spans[5] == 1);                        // write burst
  CHECK(starts == 3);                          // l2g, g2s, s2g
  CHECK(ends == 3);
  // The DRAM track (pynq: the PYNQ-Z1's DDR3) holds every command the counters count.
  const Stats& st = be.stats();
  CHECK(dram_commands["ACT"] == st.find("dram.activates")->value);
  CHECK(dram_commands["RD"] + dram_commands["WR"] == st.find("dram.row_hits")->value +
                                                         st.find("dram.row_misses")->value +
                                                         st.find("dram.row_conflicts")->value);
  CHECK(dram_commands["RD"] > 0);  // (the store's posted writes wait for a later read)
  // A second run appends: the file stays valid JSON and holds both runs.
  REQUIRE(pb.run(be) == RunStatus::kOk);
  const nlohmann::json j2 = nlohmann::json::parse(read_file(trace));
  int spans2 = 0;
  for (const auto& e : j2["traceEvents"]) {
    spans2 += e["ph"] == "X" && e["tid"].get<int>() >= 1 && e["tid"].get<int>() <= 3;
  }
  CHECK(spans2 == 14);
  const std::string v = read_file(vcd);
  CHECK(v.find("$enddefinitions") != std::string::npos);
  CHECK(v.find("queue_compute") != std::string::npos);
  CHECK(v.find("tok_l2g") != std::string::npos);
  CHECK(v.find("#1") != std::string::npos);
  CHECK(v.find("$timescale 10 ns $end") != std::string::npos);  // one cycle at 100 MHz
  CHECK(check_vcd_file(vcd).empty());
  std::remove(trace.c_str());
  std::remove(vcd.c_str());
}

TEST_CASE("cycle backend: the VCD holds only the requested window", "[cycle]") {
  const HwConfig cfg = HwConfig::from_file(config_path("pynq"));
  Dram dram;
  CycleBackend be(cfg, dram);
  const std::string vcd = unique_temp_path("cycle_test_window", ".vcd");
  be.enable_vcd(vcd, 30, 45);
  ProgramBuilder pb(cfg, dram);
  build_example(pb, 1);
  REQUIRE(pb.run(be) == RunStatus::kOk);
  std::istringstream in(read_file(vcd));
  std::string line;
  std::vector<uint64_t> times;
  while (std::getline(in, line)) {
    if (!line.empty() && line[0] == '#') {
      times.push_back(std::stoull(line.substr(1)));
    }
  }
  REQUIRE(times.size() >= 2);
  CHECK(times.front() == 30);  // $dumpvars: the state at the window start
  for (uint64_t t : times) {
    CHECK(t >= 30);
    CHECK(t < 45);
  }
  CHECK(check_vcd_file(vcd).empty());
  CHECK_THROWS_AS(be.enable_vcd(vcd, 10, 10), Error);
  CHECK_THROWS_WITH(be.enable_vcd(vcd, 10, 10), "VCD window [10, 10) is empty");
  std::remove(vcd.c_str());
}

namespace {

// A different memory model for the port: every read burst's last beat comes 50 + beats - 1
// cycles after its grant, every write response beats + 10 cycles after; no shared channel and
// no MemTimingExt (the core then assumes back-to-back beats ending at the returned delay).
struct FixedLatencyMemory : sc_core::sc_module {
  tlm_utils::simple_target_socket<FixedLatencyMemory> socket;
  Dram& dram;
  uint32_t bus;
  int transactions = 0;
  FixedLatencyMemory(sc_core::sc_module_name n, Dram& d, uint32_t bus_bytes)
      : sc_core::sc_module(n), socket("socket"), dram(d), bus(bus_bytes) {
    socket.register_b_transport(this, &FixedLatencyMemory::b_transport);
  }
  void b_transport(tlm::tlm_generic_payload& p, sc_core::sc_time& delay) {
    ++transactions;
    uint8_t* host = dram.checked_ptr(p.get_address(), p.get_data_length());
    const uint64_t a = p.get_address(), e = a + p.get_data_length();
    const uint64_t beats = (e + bus - 1) / bus - a / bus;
    if (p.is_read()) {
      std::memcpy(p.get_data_ptr(), host, p.get_data_length());
      delay += cycle::cycles(50 + beats - 1);
    } else {
      std::memcpy(host, p.get_data_ptr(), p.get_data_length());
      delay += cycle::cycles(beats + 10);
    }
    p.set_response_status(tlm::TLM_OK_RESPONSE);
  }
};

}  // namespace

TEST_CASE("cycle backend: another memory model plugged into the TLM socket", "[cycle]") {
  const HwConfig cfg = HwConfig::from_file(config_path("pynq"));
  Dram dram;
  FixedLatencyMemory* mem = nullptr;
  CycleBackend be(cfg, dram, [&](cycle::MemoryPort& port) {
    mem = new FixedLatencyMemory("fixed_memory", port.dram,
                                 static_cast<uint32_t>(port.cfg.bus_bytes));
    port.socket.bind(mem->socket);
  });
  ProgramBuilder pb(cfg, dram);
  const Example ex = build_example(pb, 2);
  // The worked example without the reset GEMM and the WGT load: run the 5-instruction stream.
  std::vector<Insn>& insns = pb.insns();
  insns.erase(insns.begin() + 1, insns.begin() + 3);
  REQUIRE(pb.run(be) == RunStatus::kOk);
  // Fetch: granted 1, last beat 1 + 50 + 9 = 60, so beats 51..60; instruction i visible at
  // 54 + 2i. LOAD UOP 54: granted 55, last beat 105, E 106. LOAD INP 56: granted 57, last beat
  // 108, E 109. GEMM: S 110, E 115. STORE: S 116, granted 117, response 117 + 2 + 10 = 129.
  // FINISH: S 130 -> 131 cycles.
  CHECK(be.last_run_cycles() == 131);
  CHECK(mem->transactions == 4);
  (void)ex;
}

TEST_CASE("cycle backend: a trace window keeps only the events that overlap it", "[cycle]") {
  // The same program traced whole and through a window of its middle third: every span of the
  // windowed trace overlaps the window, the DRAM track is there too, and both traces agree on
  // what lies inside the window.
  const HwConfig cfg = HwConfig::from_file(config_path("pynq"));
  using Span = std::tuple<int, double, double>;  // track, first and last cycle
  const auto trace_of = [&](uint64_t start, uint64_t end, std::vector<Span>& spans) {
    const std::string path = unique_temp_path("trace_window", ".json");
    Dram dram;
    CycleBackend be(cfg, dram);
    be.enable_trace(path);
    be.set_trace_window(start, end);
    ProgramBuilder pb(cfg, dram);
    build_example(pb, 1);
    REQUIRE(pb.run(be) == RunStatus::kOk);
    const nlohmann::json trace = nlohmann::json::parse(read_file(path));
    for (const auto& e : trace["traceEvents"]) {
      if (e["ph"] == "X" && e["tid"].get<int>() < 7) {           // the core's tracks, not "layers"
        const double s = e["ts"].get<double>() * cfg.clock_mhz;  // microseconds to cycles
        spans.emplace_back(e["tid"].get<int>(), s, s + e["dur"].get<double>() * cfg.clock_mhz - 1);
      }
    }
    std::filesystem::remove(path);
    return be.stats().cycles;
  };
  std::vector<Span> all, inside;
  const uint64_t cycles = trace_of(0, UINT64_MAX, all);
  const uint64_t a = cycles / 3, b = 2 * cycles / 3;
  REQUIRE(trace_of(a, b, inside) == cycles);
  INFO("whole trace " << all.size() << " spans over " << cycles << " cycles, window " << a << ":"
                      << b);
  size_t expected = 0, dram = 0;
  for (const auto& [track, s, e] : all) {
    expected += e + 0.5 >= double(a) && s + 0.5 < double(b);
  }
  for (const auto& [track, s, e] : inside) {
    CHECK(e + 0.5 >= double(a));
    CHECK(s + 0.5 < double(b));
    dram += track == 6;
  }
  CHECK(inside.size() == expected);
  CHECK(inside.size() < all.size());
  CHECK(dram > 0);
}
