// The DRAM device + controller of the memory model "dram" (DramController), to the DRAM cycle:
// hand-built request sequences whose expected cycles are written here from the formulas of
// sim/README.md section 7, on the DDR3-1066 part of ddr3_test_part.h (its parameters spelled
// out there, not read from the preset table), and sustained bandwidths against the efficiency
// the parameters predict.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <iostream>
#include <random>

#include "ddr3_test_part.h"
#include "vta/sim/dram_controller.h"

using namespace vta;
using namespace vta::dramtest;

TEST_CASE("dram controller: address map decodes row, bank and column", "[dram]") {
  DramController c(ddr3());
  const DramLocation l = c.decode(addr(5, 1234, 77) + 3);
  CHECK(l.bank == 5);
  CHECK(l.row == 1234);
  CHECK(l.column == 77);
  DramSpec s = ddr3();
  s.address_map = "RoRaCoBgBaCh";  // banks interleaved below the column
  DramController c2(s);
  const DramLocation m = c2.decode(kAtom * 3);
  CHECK(m.bank == 3);
  CHECK(m.column == 0);
}

TEST_CASE("dram controller: row miss, row hit, row conflict", "[dram]") {
  DramController c(ddr3());
  std::vector<DramCommand> log;
  c.set_command_log(&log);
  // Row miss at cycle 10: ACT 10, READ 10 + tRCD, data ends CL + BL/2 later.
  const int64_t act = 10;
  DramReadTiming t = c.read(addr(0, 3, 0), kAtom, act, 1);
  const int64_t rd0 = act + kRCD;
  CHECK(t.last_end == rd0 + kCL + kBurst);
  // Row hit arriving at 12: READ at max(arrival, tRCD, last READ + tCCD).
  t = c.read(addr(0, 3, 1), kAtom, 12, 2);
  const int64_t rd1 = std::max<int64_t>(12, rd0 + kCCD);
  CHECK(t.last_end == rd1 + kCL + kBurst);
  // Row conflict arriving at 20: PRE at max(20, ACT + tRAS, READ + tRTP), ACT at
  // max(PRE + tRP, ACT + tRC), READ tRCD later.
  t = c.read(addr(0, 9, 0), kAtom, 20, 3);
  const int64_t pre = std::max({int64_t{20}, act + kRAS, rd1 + kRTP});
  const int64_t act2 = std::max(pre + kRP, act + kRC);
  CHECK(t.last_end == act2 + kRCD + kCL + kBurst);
  CHECK(c.counters().row_misses == 1);
  CHECK(c.counters().row_hits == 1);
  CHECK(c.counters().row_conflicts == 1);
  CHECK(c.counters().activates == 2);
  REQUIRE(log.size() == 6);  // ACT RD RD PRE ACT RD
  CHECK(log[3].kind == DramCommand::kPre);
  CHECK(log[3].ck == pre);
  CHECK(log[4].kind == DramCommand::kAct);
  CHECK(log[4].ck == act2);
}

TEST_CASE("dram controller: back-to-back reads in one row are tCCD apart", "[dram]") {
  DramController c(ddr3());
  // 8 bursts of one row in one request: READs at tRCD + k * tCCD; data back to back.
  const DramReadTiming t = c.read(addr(1, 0, 0), 8 * kAtom, 0, 1);
  CHECK(t.first_end == kRCD + kCL + kBurst);
  CHECK(t.last_end == kRCD + 7 * kCCD + kCL + kBurst);
  CHECK(c.counters().row_hits == 7);
}

TEST_CASE("dram controller: activates across banks obey tRRD and tFAW", "[dram]") {
  DramController c(ddr3());
  std::vector<DramCommand> log;
  c.set_command_log(&log);
  // Five banks at once: ACT k at k * tRRD, but the fifth at least tFAW after the first.
  for (uint64_t b = 0; b < 5; ++b) {
    c.read(addr(b, 1, 0), kAtom, 0, b + 1);
  }
  std::vector<int64_t> acts;
  for (const DramCommand& d : log) {
    if (d.kind == DramCommand::kAct) {
      acts.push_back(d.ck);
    }
  }
  REQUIRE(acts.size() == 5);
  for (int64_t k = 0; k < 4; ++k) {
    CHECK(acts[static_cast<size_t>(k)] == k * kRRD);
  }
  CHECK(acts[4] == std::max(4 * kRRD, acts[0] + kFAW));
  CHECK(acts[4] == kFAW);  // tFAW (27) binds over 4 tRRD (24)
}

TEST_CASE("dram controller: a read after a write waits tWTR", "[dram]") {
  DramController c(ddr3());
  // A write to an idle bank posted at 0 (order 1), then a read of the same row (order 2).
  c.post_write(addr(2, 4, 0), kAtom, 0, 1);
  const DramReadTiming t = c.read(addr(2, 4, 1), kAtom, 1, 2);
  const int64_t wr = kRCD;                    // ACT 0, WRITE tRCD later
  const int64_t wr_end = wr + kCWL + kBurst;  // end of the write data
  const int64_t rd = std::max(wr + kCCD, wr_end + kWTR);
  CHECK(t.last_end == rd + kCL + kBurst);
  CHECK(c.counters().writes == 1);
}

TEST_CASE("dram controller: FR-FCFS serves a row hit before older writes, FCFS does not",
          "[dram]") {
  for (const bool frfcfs : {true, false}) {
    DramSpec s = ddr3();
    s.frfcfs = frfcfs;
    DramController c(s);
    c.read(addr(0, 1, 0), kAtom, 0, 1);                            // opens row 1 of bank 0
    c.post_write(addr(0, 2, 0), kAtom, 30, 2);                     // conflicts with it
    const DramReadTiming t = c.read(addr(0, 1, 1), kAtom, 30, 3);  // hits row 1
    if (frfcfs) {
      // The hit goes first: READ at 30 (tCCD and the bus are long free).
      CHECK(t.last_end == 30 + kCL + kBurst);
    } else {
      // The write first: PRE 30 (tRAS = 20 passed), ACT +tRP, WRITE +tRCD; then the read
      // conflicts back: PRE at WRITE data end + tWR, ACT +tRP, READ +tRCD.
      const int64_t act_w = 30 + kRP;
      const int64_t wr = act_w + kRCD;
      const int64_t pre = std::max(wr + kCWL + kBurst + kWR, act_w + kRAS);
      const int64_t act_r = std::max(pre + kRP, act_w + kRC);
      CHECK(t.last_end == act_r + kRCD + kCL + kBurst);
    }
  }
}

TEST_CASE("dram controller: a request that meets a refresh waits tRFC", "[dram]") {
  DramController c(ddr3());
  std::vector<DramCommand> log;
  c.set_command_log(&log);
  // A row open since 4000; a read of another bank at tREFI + 5: the refresh first closes all
  // banks (PRE at tREFI: tRAS long passed), REF tRP later, ACT tRFC after the REF.
  c.read(addr(0, 1, 0), kAtom, 4000, 1);
  const DramReadTiming t = c.read(addr(3, 1, 0), kAtom, kREFI + 5, 2);
  const int64_t ref = kREFI + kRP;
  CHECK(t.last_end == ref + kRFC + kRCD + kCL + kBurst);
  CHECK(c.counters().refreshes == 1);
  // The old row was closed by the refresh: reading it again is a miss, not a hit.
  c.read(addr(0, 1, 1), kAtom, ref + kRFC + 100, 3);
  CHECK(c.counters().row_hits == 0);
  CHECK(c.counters().row_misses == 3);
  // An idle period of three intervals: three more refreshes, each on time.
  c.read(addr(0, 1, 2), kAtom, 4 * kREFI + 10, 4);
  CHECK(c.counters().refreshes == 4);
}

TEST_CASE("dram controller: closed page precharges after each request", "[dram]") {
  DramSpec s = ddr3();
  s.open_page = false;
  DramController c(s);
  c.read(addr(0, 1, 0), 2 * kAtom, 0, 1);  // two bursts of one row: one ACT, then PRE
  const DramReadTiming t = c.read(addr(0, 1, 2), kAtom, 100, 2);
  CHECK(c.counters().row_hits == 1);  // the second burst of the first request
  CHECK(c.counters().row_misses == 2);
  CHECK(t.last_end == 100 + kRCD + kCL + kBurst);
}

// Sustained bandwidth: a long sequential stream keeps the data bus busy except around each
// refresh: PRE (after tRTP / tWR), tRP, REF, tRFC, ACT, tRCD, then CL (CWL) before data flows
// again. Efficiency ~ 1 - (tRP + tRFC + tRCD + CL) / tREFI = 0.963 for reads.
TEST_CASE("dram controller: sustained sequential bandwidth is close to the peak", "[dram]") {
  const uint64_t bytes = 16u << 20;  // 16 MiB: ~1.0 M bursts, ~250 refresh intervals
  {
    DramController c(ddr3());
    const uint64_t chunk = 2048;
    int64_t end = 0;
    for (uint64_t a = 0; a < bytes; a += chunk) {
      end = c.read(a, chunk, 0, a / chunk + 1).last_end;
    }
    const double busy = static_cast<double>(bytes / kAtom * kBurst);
    const double eff = busy / static_cast<double>(end);
    const double expect =
        1.0 - static_cast<double>(kRP + kRFC + kRCD + kCL) / static_cast<double>(kREFI);
    std::cout << "sequential read efficiency " << eff << " (expected " << expect << ")\n";
    CHECK(eff == Approx(expect).epsilon(0.02));
  }
  {
    DramController c(ddr3());
    const uint64_t chunk = 2048;
    for (uint64_t a = 0; a < bytes; a += chunk) {
      c.post_write(a, chunk, 0, a / chunk + 1);
    }
    // A last read orders every write before it; the read itself is one burst.
    const int64_t end = c.read(bytes, kAtom, 0, bytes).last_end;
    const double busy = static_cast<double>((bytes / kAtom + 1) * kBurst);
    const double eff = busy / static_cast<double>(end);
    const double expect =
        1.0 - static_cast<double>(kWR + kRP + kRFC + kRCD + kCWL) / static_cast<double>(kREFI);
    std::cout << "sequential write efficiency " << eff << " (expected " << expect << ")\n";
    CHECK(eff == Approx(expect).epsilon(0.02));
  }
}

// Random single-burst reads: nearly every access opens a row, and at most four ACTs fit in a
// tFAW window, so the data bus is busy at most 4 * BL/2 of every tFAW cycles: 16 / 27 = 0.59.
// Reads are answered in order, so two in a row to one bank (1 in 8) pay PRE + ACT + tRCD in
// series: the result lies well below that bound, and above the one-bank floor BL/2 / tRC.
TEST_CASE("dram controller: random accesses reach a lower, tFAW-bound bandwidth", "[dram]") {
  const unsigned seed = 20261124;
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  DramController c(ddr3());
  const int n = 100000;
  int64_t end = 0;
  for (int k = 0; k < n; ++k) {
    const uint64_t a = (rng() % (uint64_t{1} << 29)) / kAtom * kAtom;  // the 512 MiB part
    end = std::max(end, c.read(a, kAtom, 0, static_cast<uint64_t>(k) + 1).last_end);
  }
  const double eff = static_cast<double>(n * kBurst) / static_cast<double>(end);
  const double bound = static_cast<double>(4 * kBurst) / static_cast<double>(kFAW);
  std::cout << "random read efficiency " << eff << " (tFAW bound " << bound << ")\n";
  CHECK(eff <= bound);
  CHECK(eff >= static_cast<double>(kBurst) / static_cast<double>(kRC));
  CHECK(c.counters().row_hits < static_cast<uint64_t>(n / 100));
}

// A request of many column accesses is served in closed form (row runs, DRAM.md); the same
// accesses sent as one request each go through the access-by-access formulas. With FCFS and an
// open page both must give the same data times, command counts and refreshes, here over seeded
// random reads and posted writes (sequential and scattered, crossing rows and refreshes).
TEST_CASE("dram controller: row runs in closed form equal access by access", "[dram]") {
  const unsigned seed = 20261125;
  INFO("seed " << seed);
  std::mt19937 rng(seed);
  DramSpec s = ddr3();
  s.frfcfs = false;
  s.refi = 600;  // many refreshes inside the requests
  DramController whole(s), single(s);
  int64_t arrival = 0;
  uint64_t order = 0, next = 0;
  for (int k = 0; k < 3000; ++k) {
    arrival += std::uniform_int_distribution<int64_t>(0, 40)(rng);
    const uint64_t atoms = std::uniform_int_distribution<uint64_t>(1, 200)(rng);
    const uint64_t a = std::uniform_int_distribution<int>(0, 3)(rng) == 0
                           ? std::uniform_int_distribution<uint64_t>(0, 1u << 20)(rng) * kAtom
                           : next;
    next = a + atoms * kAtom;
    order += 1000;
    if (std::uniform_int_distribution<int>(0, 4)(rng) == 0) {
      whole.post_write(a, atoms * kAtom, arrival, order);
      for (uint64_t j = 0; j < atoms; ++j) {
        single.post_write(a + j * kAtom, kAtom, arrival, order + j);
      }
      continue;
    }
    const DramReadTiming w = whole.read(a, atoms * kAtom, arrival, order);
    int64_t first = 0, last = 0;
    for (uint64_t j = 0; j < atoms; ++j) {
      const DramReadTiming t = single.read(a + j * kAtom, kAtom, arrival, order + j);
      first = j == 0 ? t.first_end : first;
      last = std::max(last, t.last_end);
    }
    INFO("request " << k);
    REQUIRE(w.first_end == first);
    REQUIRE(w.last_end == last);
  }
  const DramCounters& x = whole.counters();
  const DramCounters& y = single.counters();
  CHECK(x.reads == y.reads);
  CHECK(x.writes == y.writes);
  CHECK(x.activates == y.activates);
  CHECK(x.row_hits == y.row_hits);
  CHECK(x.row_conflicts == y.row_conflicts);
  CHECK(x.refreshes == y.refreshes);
  CHECK(x.refreshes > 100);
}
