// The interconnect's round robin and the DRAM's out-of-order service seen from several cores
// (docs/multicore.md, sim/DRAM.md): initiators that send bursts at given cycles, the real
// interconnect and memory models, cycles derived by hand from the documented rules.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "burst_reader.h"
#include "interconnect.h"
#include "multicore_test_support.h"
#include "vta/sim/cycle/dram_memory.h"
#include "vta/sim/cycle/dram_target.h"

using namespace vta;
using namespace vta::cycle;
using namespace vta::multicoretest;

namespace {

// Three cores read a 4-beat burst in cycle 10 and again in cycle 40; each burst holds the read
// channel 4 cycles (width one beat). `grants[round][core]` are the expected grant cycles and
// `contention[core]` the cycles each waited behind the others' holds in both rounds.
void check_two_rounds(const std::string& arbitration, const uint64_t (&grants)[2][3],
                      const uint64_t (&contention)[3]) {
  const HwConfig cfg = system_config("pynq_fixed", 3, {{"INTERCONNECT_ARBITRATION", arbitration}});
  Dram dram;
  const uint32_t phys = dram.phys_addr(dram.alloc(8192));
  SharedMemory<DramTarget> shared(cfg, dram);
  const Interconnect& ic = shared.ic;
  const uint32_t bytes = 4 * static_cast<uint32_t>(cfg.bus_bytes);
  std::vector<std::unique_ptr<BurstReader>> cores;
  for (uint32_t k = 0; k < 3; ++k) {
    const uint64_t a = phys + k * 1024;
    cores.push_back(std::make_unique<BurstReader>(
        fmt::format("core{}", k).c_str(),
        std::vector<BurstReader::Read>{{10, a, bytes}, {40, a + 512, bytes}}, static_cast<int>(k)));
    shared.bind(*cores.back());
  }
  shared.run();

  // The fixed memory sees each burst in its grant cycle s (latency 0) and gives its first beat
  // in max(s + R, its read channel free), one beat per cycle (cpb 1 on pynq_fixed).
  const uint64_t R = static_cast<uint64_t>(cfg.dram_read_latency_cycles);
  REQUIRE(cfg.dram_cycles_per_beat == 1);
  for (size_t k = 0; k < 3; ++k) {
    INFO("core " << k);
    REQUIRE(cores[k]->timing.size() == 2);
    for (size_t round = 0; round < 2; ++round) {
      CHECK(cores[k]->timing[round].first == grants[round][k] + R);
      CHECK(cores[k]->timing[round].last == grants[round][k] + R + 3);
    }
    CHECK(ic.core_stats(static_cast<int>(k)).contention_cycles == contention[k]);
    CHECK(ic.core_stats(static_cast<int>(k)).requests == 2);
  }
}

}  // namespace

// Fixed priority (the default): both rounds in core order, 10, 14, 18 and 40, 44, 48.
TEST_CASE("multicore: same-cycle requests are granted in core order by default", "[multicore]") {
  check_two_rounds("fixed", {{10, 14, 18}, {40, 44, 48}}, {0 + 0, 4 + 4, 8 + 8});
}

// Core 0 reads bank 0 row r in cycle 10 and bank 0 row r + 1 in cycle 11 (a row conflict held
// by tRAS and tRC); core 1 reads bank 1 in cycle 12. On the PYNQ-Z1 DDR3 (tCK 1.875 ns) behind
// a 100 MHz core (Tc 10 ns), interconnect latency 0 and DRAM_INTERCONNECT_NS 0, 2-beat bursts
// of 8 bytes (one 16-byte column access), each holding the read channel 2 cycles:
//   grants: core 0 in 10 and 12 (its own first burst held the channel until 12), core 1 in 14
//   (waited 2 cycles behind core 0's second burst: its contention);
//   at the DRAM: arrival(c) = ceil(c * 16 / 3): 54, 64, 75;
//   core 0's first: ACT 54, READ 61, data end 72; its second: PRE max(64, 54 + tRAS) = 74, ACT
//   max(74 + tRP, 54 + tRC) = 81, READ 88, data end 99;
//   core 1, in order: ACT 81 + tRRD = 87, READ 94, data end 105; out of order: ACT 75 (tRRD
//   from 81 both ways), READ 82 (tCCD from 61 and 88), data end 93;
//   back(ck) = ceil(ck * 3 / 16): 72 -> 14, 99 -> 19, 105 -> 20, 93 -> 18; the last beat one
//   cycle after the first, not before grant + 1 nor (in order, one read data channel for
//   all) before the previous burst's last beat + 1.
TEST_CASE("multicore: out of order, the DRAM serves another core's bank first", "[multicore]") {
  for (const bool ooo : {false, true}) {
    INFO((ooo ? "out_of_order" : "in_order"));
    const HwConfig cfg = system_config(
        "pynq", 2,
        {{"DRAM_INTERCONNECT_NS", 0}, {"DRAM_REQUEST_ORDER", ooo ? "out_of_order" : "in_order"}});
    const DramSpec& d = cfg.memory.dram;
    REQUIRE(d.tck_ps == 1875);
    REQUIRE(cfg.clock_mhz == 100);
    REQUIRE(d.rcd == 7);
    REQUIRE(d.cl == 7);
    REQUIRE(d.ras == 20);
    REQUIRE(d.rc == 27);
    REQUIRE(d.rrd == 6);
    REQUIRE(d.atom_bytes() == 16);
    REQUIRE(cfg.bus_bytes == 8);
    Dram dram;
    const uint64_t row_bytes = 2048, all_banks = 8 * row_bytes;  // RoRaBaBgCoCh, 8 banks
    const uint64_t phys = dram.phys_addr(dram.alloc(4 * all_banks));
    const uint64_t base = (phys + all_banks - 1) / all_banks * all_banks;
    SharedMemory<DramMemory> shared(cfg, dram);
    const Interconnect& ic = shared.ic;
    BurstReader a("a", {{10, base, 16}, {11, base + all_banks, 16}}, 0);
    BurstReader b("b", {{12, base + row_bytes, 16}}, 1);
    shared.bind(a);
    shared.bind(b);
    shared.run();
    REQUIRE(a.timing.size() == 2);
    REQUIRE(b.timing.size() == 1);
    CHECK(a.timing[0].last == 15);
    CHECK(a.timing[1].last == 20);
    CHECK(b.timing[0].last == (ooo ? 19 : 22));
    CHECK(ic.core_stats(0).contention_cycles == 0);
    CHECK(ic.core_stats(1).contention_cycles == 2);
  }
}
