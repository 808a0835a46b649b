// The DRAM controller's request queue (DramController::submit / run_until / drain): hand-built
// cases whose cycles are written here from the JEDEC timings of the DDR3-1066 part of
// ddr3_test_part.h; an independent checker that replays the command log against every timing
// rule; and the bandwidth targets, with their bounds derived from the parameter sets' values.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <iostream>
#include <map>
#include <random>
#include <stdexcept>

#include "ddr3_test_part.h"
#include "vta/sim/config_source.h"
#include "vta/sim/dram_controller.h"
#include "vta/sim/dram_spec.h"
#include "vta/sim/hw_config.h"

using namespace vta;
using namespace vta::dramtest;

namespace {

DramRequest request(uint64_t a, uint64_t bytes, int64_t arrival, bool write = false) {
  DramRequest q;
  q.addr = a;
  q.bytes = bytes;
  q.arrival = arrival;
  q.write = write;
  return q;
}

// The completions of the controller by request id.
std::map<uint64_t, DramCompletion> by_id(DramController& c) {
  std::map<uint64_t, DramCompletion> out;
  for (const DramCompletion& d : c.take_completions()) {
    out[d.id] = d;
  }
  return out;
}

// Replays a command log (issue order) against the JEDEC rules of `s`, from the commands alone:
// bank state (a column access only to the open row, ACT only to a closed bank), tRCD, tRP,
// tRAS, tRC, tRTP, tWR, tRRD(_S/_L), tFAW, tCCD(_S/_L), tWTR, tRTW, tRFC and a data bus that
// carries one burst at a time (one rank, one channel). Returns the first violation ("" if none).
class ProtocolChecker {
 public:
  explicit ProtocolChecker(const DramSpec& s)
      : m_s(s),
        m_banks(static_cast<size_t>(s.bank_groups * s.banks)),
        m_wr_end_bg(static_cast<size_t>(s.bank_groups), kNever) {}

  std::string check(std::vector<DramCommand> log) {
    std::stable_sort(log.begin(), log.end(),
                     [](const DramCommand& a, const DramCommand& b) { return a.ck < b.ck; });
    for (const DramCommand& c : log) {
      std::string e = c.kind == DramCommand::kAct       ? act(c)
                      : c.kind == DramCommand::kPre     ? pre(c)
                      : c.kind == DramCommand::kRefresh ? ref(c)
                                                        : column(c);
      if (!e.empty()) {
        return e + " at " + std::to_string(c.ck) + " bank " + std::to_string(c.bank);
      }
    }
    return "";
  }

 private:
  static constexpr int64_t kNever = -1000000;
  struct Bank {
    int64_t row = -1, act = kNever, pre = kNever, rd = kNever, wr_end = kNever;
  };
  int bg(int bank) const { return bank / m_s.banks; }

  std::string act(const DramCommand& c) {
    Bank& b = m_banks[static_cast<size_t>(c.bank)];
    if (b.row >= 0) {
      return "ACT to an open bank";
    }
    if (c.ck < b.pre + m_s.rp) {
      return "tRP";
    }
    if (c.ck < b.act + m_s.rc) {
      return "tRC";
    }
    if (c.ck < m_ref + m_s.rfc) {
      return "tRFC";
    }
    for (size_t k = m_acts.size(); k-- > 0 && m_acts[k] + 64 > c.ck;) {  // the recent ones
      const bool same = bg(m_act_banks[k]) == bg(c.bank);
      if (c.ck < m_acts[k] + (same ? m_s.rrd_l_ck() : m_s.rrd)) {
        return "tRRD";
      }
    }
    if (m_acts.size() >= 4 && c.ck < m_acts[m_acts.size() - 4] + m_s.faw) {
      return "tFAW";
    }
    m_acts.push_back(c.ck);
    m_act_banks.push_back(c.bank);
    b.row = c.row;
    b.act = c.ck;
    return "";
  }

  std::string close(Bank& b, int64_t ck) {
    if (b.row < 0) {
      return "";
    }
    if (ck < b.act + m_s.ras) {
      return "tRAS";
    }
    if (ck < b.rd + m_s.rtp) {
      return "tRTP";
    }
    if (ck < b.wr_end + m_s.wr) {
      return "tWR";
    }
    b.row = -1;
    b.pre = ck;
    return "";
  }

  std::string pre(const DramCommand& c) {
    if (c.row >= 0) {
      return close(m_banks[static_cast<size_t>(c.bank)], c.ck);
    }
    for (Bank& b : m_banks) {  // precharge all (before a refresh)
      const std::string e = close(b, c.ck);
      if (!e.empty()) {
        return e;
      }
    }
    return "";
  }

  std::string ref(const DramCommand& c) {
    for (const Bank& b : m_banks) {
      if (b.row >= 0) {
        return "REF with a bank open";
      }
      if (c.ck < b.pre + m_s.rp) {
        return "REF before tRP";
      }
    }
    if (c.ck < m_ref + m_s.rfc) {
      return "REF before tRFC";
    }
    m_ref = c.ck;
    return "";
  }

  std::string column(const DramCommand& c) {
    Bank& b = m_banks[static_cast<size_t>(c.bank)];
    const bool write = c.kind == DramCommand::kWrite;
    if (b.row != c.row) {
      return "column access to a row that is not open";
    }
    if (c.ck < b.act + m_s.rcd) {
      return "tRCD";
    }
    const bool same = bg(c.bank) == m_col_bank_group;
    if (c.ck < m_col + (same ? m_s.ccd_l_ck() : m_s.ccd)) {
      return "tCCD";
    }
    if (!write && c.ck < m_wr_end + m_s.wtr) {
      return "tWTR";
    }
    if (!write && c.ck < m_wr_end_bg[static_cast<size_t>(bg(c.bank))] + m_s.wtr_l_ck()) {
      return "tWTR_L";
    }
    if (write && c.ck < m_rd + m_s.rtw_ck()) {
      return "tRTW";
    }
    const int64_t start = c.ck + (write ? m_s.cwl : m_s.cl);
    if (start < m_data_end) {
      return "data bus overlap";
    }
    m_data_end = start + m_s.burst_ck();
    m_col = c.ck;
    m_col_bank_group = bg(c.bank);
    if (write) {
      b.wr_end = m_wr_end = m_wr_end_bg[static_cast<size_t>(bg(c.bank))] = m_data_end;
    } else {
      b.rd = m_rd = c.ck;
    }
    return "";
  }

  DramSpec m_s;
  std::vector<Bank> m_banks;
  std::vector<int64_t> m_acts, m_wr_end_bg;
  std::vector<int> m_act_banks;
  int64_t m_ref = kNever, m_col = kNever, m_rd = kNever, m_wr_end = kNever, m_data_end = kNever;
  int m_col_bank_group = -1;
};

// Random single-burst reads, injected open loop at the peak rate (one per BL/2); returns the
// bytes per DRAM cycle they achieve.
double random_read_bandwidth(const DramSpec& s, unsigned seed, int n) {
  std::mt19937_64 rng(seed);
  DramController c(s);
  const uint64_t atom = static_cast<uint64_t>(s.atom_bytes());
  const uint64_t capacity = atom * static_cast<uint64_t>(s.rows) * s.columns / s.burst_length *
                            static_cast<uint64_t>(s.banks * s.bank_groups * s.ranks * s.channels);
  for (int k = 0; k < n; ++k) {
    c.submit(request(rng() % capacity / atom * atom, atom, int64_t{k} * s.burst_ck()));
  }
  c.drain();
  int64_t end = 0;
  for (const DramCompletion& d : c.take_completions()) {
    end = std::max(end, d.last_end);
  }
  return static_cast<double>(n) * static_cast<double>(atom) / static_cast<double>(end);
}

// A sequential stream of `bytes` in 2 KB requests, all waiting at cycle 0; its share of the peak.
double sequential_share(const DramSpec& s, bool write, uint64_t bytes) {
  DramController c(s);
  const uint64_t chunk = 2048;
  for (uint64_t a = 0; a < bytes; a += chunk) {
    c.submit(request(a, chunk, 0, write));
  }
  c.drain();
  int64_t end = 0;
  for (const DramCompletion& d : c.take_completions()) {
    end = std::max(end, d.last_end);
  }
  const double peak = 2.0 * s.bus_bytes();  // bytes per nCK: two transfers per clock
  return static_cast<double>(bytes) / static_cast<double>(end) / peak;
}

}  // namespace

TEST_CASE("dram request queue: one read, one write, one row as the formulas", "[dram]") {
  DramController c(ddr3());
  const uint64_t rd = c.submit(request(addr(0, 3, 0), kAtom, 10));
  const uint64_t wr = c.submit(request(addr(1, 3, 0), kAtom, 500, true));
  const uint64_t run = c.submit(request(addr(2, 5, 0), 8 * kAtom, 1000));
  c.drain();
  auto done = by_id(c);
  REQUIRE(done.size() == 3);
  // Row miss: ACT at arrival, READ tRCD later, data CL later for BL/2 clocks.
  CHECK(done[rd].last_end == 10 + kRCD + kCL + kBurst);
  CHECK(done[wr].last_end == 500 + kRCD + kCWL + kBurst);
  CHECK(!done[rd].write);
  CHECK(done[wr].write);
  // Eight bursts of one row: READs tCCD (= BL/2) apart, data back to back.
  CHECK(done[run].first_end == 1000 + kRCD + kCL + kBurst);
  CHECK(done[run].last_end == 1000 + kRCD + kCL + 8 * kBurst);
  CHECK(c.counters().row_hits == 7);
  CHECK(c.counters().row_misses == 3);
}

// Two reads of bank 0 (rows 1, 2) and one of bank 1, all at cycle 0. In arrival order the
// second one's PRE waits tRAS and its ACT tRC, which held up the third; the queue instead
// activates bank 1 tRRD after bank 0 and serves it in between.
TEST_CASE("dram request queue: a bank within tRC holds up only its own accesses", "[dram]") {
  DramController c(ddr3());
  const uint64_t a = c.submit(request(addr(0, 1, 0), kAtom, 0));
  const uint64_t b = c.submit(request(addr(0, 2, 0), kAtom, 0));
  const uint64_t d = c.submit(request(addr(1, 1, 0), kAtom, 0));
  c.drain();
  auto done = by_id(c);
  // a: ACT 0, READ 7. d: ACT at tRRD = 6, READ at 6 + tRCD = 13 (tCCD after 7 and the bus,
  // free from 18 - CL = 11, allow it). b: PRE at max(tRAS, 7 + tRTP) = 20, ACT at
  // max(20 + tRP, tRC) = 27, READ 34.
  CHECK(done[a].last_end == kRCD + kCL + kBurst);
  CHECK(done[d].last_end == 6 + kRCD + kCL + kBurst);
  const int64_t pre = std::max(kRAS, kRCD + kRTP);
  const int64_t act = std::max(pre + kRP, kRC);
  CHECK(done[b].last_end == act + kRCD + kCL + kBurst);
  CHECK(c.counters().row_conflicts == 1);
  // In arrival order (read): b as above, then d's ACT tRRD after b's, READ after b's data.
  DramController in_order(ddr3());
  CHECK(in_order.read(addr(0, 1, 0), kAtom, 0, 1).last_end == kRCD + kCL + kBurst);
  CHECK(in_order.read(addr(0, 2, 0), kAtom, 0, 2).last_end == act + kRCD + kCL + kBurst);
  const int64_t rd_d = std::max(act + 6 + kRCD, act + kRCD + kBurst);
  CHECK(in_order.read(addr(1, 1, 0), kAtom, 0, 3).last_end == rd_d + kCL + kBurst);
}

// Row 1 of bank 0 is open; at 100 an older read of row 2 and a younger one of row 1 arrive.
// FR-FCFS serves the hit first; with a window of one access the older goes first and the
// younger then conflicts back.
TEST_CASE("dram request queue: FR-FCFS serves a younger row hit first", "[dram]") {
  for (const int depth : {32, 1}) {
    DramSpec s = ddr3();
    s.queue_depth = depth;
    DramController c(s);
    c.submit(request(addr(0, 1, 0), kAtom, 0));  // ACT 0, READ 7
    const uint64_t old = c.submit(request(addr(0, 2, 0), kAtom, 100));
    const uint64_t hit = c.submit(request(addr(0, 1, 1), kAtom, 100));
    c.drain();
    auto done = by_id(c);
    if (depth == 32) {
      CHECK(done[hit].last_end == 100 + kCL + kBurst);
      const int64_t pre = 100 + kRTP;  // after the hit's READ
      CHECK(done[old].last_end == pre + kRP + kRCD + kCL + kBurst);
    } else {
      const int64_t act = 100 + kRP;  // PRE at 100 (tRAS long passed)
      CHECK(done[old].last_end == act + kRCD + kCL + kBurst);
      const int64_t pre = std::max(act + kRCD + kRTP, act + kRAS);
      CHECK(done[hit].last_end == pre + kRP + kRCD + kCL + kBurst);
    }
  }
}

TEST_CASE("dram request queue: an idle rank refreshes on time", "[dram]") {
  DramController c(ddr3());
  std::vector<DramCommand> log;
  c.set_command_log(&log);
  // Nothing waits at tREFI: REF then (every bank is closed), the read's ACT tRFC later.
  const uint64_t id = c.submit(request(addr(3, 1, 0), kAtom, kREFI + 1));
  c.drain();
  CHECK(by_id(c)[id].last_end == kREFI + kRFC + kRCD + kCL + kBurst);
  CHECK(c.counters().refreshes == 1);
  CHECK(c.counters().refreshes_postponed == 0);
  // With no request, run_until refreshes every interval that begins before it.
  c.run_until(10 * kREFI + 1);
  CHECK(c.counters().refreshes == 10);
}

// Saturating traffic: the refreshes are postponed, at most eight (JEDEC), so that no two REFs
// are more than 9 tREFI apart; once the queue is empty, the owed ones are pulled in.
TEST_CASE("dram request queue: refresh postponed at most eight intervals", "[dram]") {
  const unsigned seed = 20261126;
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  DramController c(ddr3());
  std::vector<DramCommand> log;
  c.set_command_log(&log);
  for (int k = 0; k < 12000; ++k) {  // ~80000 nCK: ~19 intervals
    c.submit(request(rng() % (uint64_t{1} << 29) / kAtom * kAtom, kAtom, 0));
  }
  c.drain();
  CHECK(c.counters().refreshes_postponed == 8);
  int64_t last = 0, end = 0;
  for (const DramCommand& d : log) {
    end = std::max(end, d.ck);
    if (d.kind == DramCommand::kRefresh) {
      CHECK(d.ck - last <= 9 * kREFI);
      last = d.ck;
    }
  }
  const int64_t until = (end / kREFI + 2) * kREFI;
  c.run_until(until + 1);
  CHECK(static_cast<int64_t>(c.counters().refreshes) == until / kREFI);
  CHECK(ProtocolChecker(ddr3()).check(log) == "");
}

// Seeded random mixes of reads and writes of random sizes, submitted as a SystemC model would
// (run_until each arrival): every request completes once, and the command log obeys every
// timing rule, on the DDR3 part (open and closed page) and on DDR4 with bank groups.
TEST_CASE("dram request queue: random traffic obeys every JEDEC timing", "[dram]") {
  DramSpec ddr4 = dram_preset("ZCU104-DDR4-2400-x64", "test");
  ddr4.address_map = "RoRaBaCoBgCh";
  ddr4.wtr = 3, ddr4.wtr_l = 9;  // JESD79-4 DDR4-2400: tWTR_S 2.5 ns, tWTR_L 7.5 ns
  DramSpec closed = ddr3();
  closed.open_page = false;
  const unsigned seed = 20261127;
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  for (const DramSpec& s : {ddr3(), closed, ddr4}) {
    DramController c(s);
    std::vector<DramCommand> log;
    c.set_command_log(&log);
    int64_t t = 0;
    const int n = 3000;
    for (int k = 0; k < n; ++k) {
      t += static_cast<int64_t>(rng() % 24);
      c.run_until(t);
      const uint64_t a = rng() % 2 == 0 ? rng() % (uint64_t{1} << 26) : uint64_t(k) * 4096;
      const uint64_t bytes = 1 + rng() % 512;
      const bool write = rng() % 3 == 0;
      c.submit(request(a, bytes, t, write));
    }
    c.drain();
    const std::map<uint64_t, DramCompletion> done = by_id(c);
    CHECK(done.size() == static_cast<size_t>(n));
    for (const auto& [id, d] : done) {
      CHECK(d.first_end >= d.arrival + std::min(s.cl, s.cwl) + s.burst_ck());
      CHECK(d.last_end >= d.first_end);
    }
    INFO("spec " << s.preset << (s.open_page ? " open" : " closed"));
    CHECK(ProtocolChecker(s).check(log) == "");
    CHECK(c.queued_accesses() == 0);
  }
}

// The scheduler is causal: a model that submits each request when it arrives and otherwise
// only advances to next_event() (as a SystemC process would) gets exactly the schedule of one
// that submitted everything ahead - nothing is decided from requests that have not arrived.
TEST_CASE("dram request queue: submitting on arrival equals knowing every request ahead",
          "[dram]") {
  const unsigned seed = 20261129;
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  std::vector<DramRequest> reqs;
  int64_t t = 0;
  for (int k = 0; k < 2000; ++k) {
    t += static_cast<int64_t>(rng() % 30);
    const uint64_t a = rng() % 4 == 0 ? uint64_t(k) * 256 : rng() % (uint64_t{1} << 24);
    const uint64_t bytes = 1 + rng() % 300;
    const bool write = rng() % 3 == 0;
    reqs.push_back(request(a, bytes, t, write));
  }
  DramController ahead(ddr3()), live(ddr3());
  std::vector<DramCommand> log_ahead, log_live;
  ahead.set_command_log(&log_ahead);
  live.set_command_log(&log_live);
  for (const DramRequest& q : reqs) {
    ahead.submit(q);
  }
  ahead.drain();
  int64_t wakeups = 0;
  for (const DramRequest& q : reqs) {
    for (int64_t e = live.next_event(); e < q.arrival; e = live.next_event()) {
      live.run_until(e + 1);
      ++wakeups;
    }
    live.run_until(q.arrival);
    live.submit(q);
  }
  live.drain();
  const auto a = by_id(ahead), b = by_id(live);
  REQUIRE(a.size() == reqs.size());
  REQUIRE(b.size() == reqs.size());
  for (const auto& [id, d] : a) {
    INFO("request " << id);
    CHECK(b.at(id).first_end == d.first_end);
    CHECK(b.at(id).last_end == d.last_end);
  }
  REQUIRE(log_live.size() == log_ahead.size());
  for (size_t k = 0; k < log_live.size(); ++k) {
    CHECK((log_live[k].ck == log_ahead[k].ck && log_live[k].kind == log_ahead[k].kind));
  }
  CHECK(wakeups > 0);
}

// DDR4's tWTR_S / tWTR_L (both paths share column_cycle; here read / post_write): a read waits
// tWTR_L after the write data of its own bank group, tWTR_S after another group's.
TEST_CASE("dram controller: a read waits tWTR_L in the write's bank group, tWTR_S outside",
          "[dram]") {
  DramSpec s = ddr3();
  s.bank_groups = 2, s.banks = 4;  // address bits of the bank: Ba Ba Bg
  s.wtr = 2, s.wtr_l = 6;
  for (const uint64_t bank : {1, 2}) {  // bank group 1, bank group 0
    DramController c(s);
    c.post_write(addr(0, 4, 0), kAtom, 0, 1);  // bank group 0: ACT 0, WRITE tRCD = 7
    const DramReadTiming t = c.read(addr(bank, 4, 0), kAtom, 1, 2);
    const int64_t wr = kRCD, wr_end = wr + kCWL + kBurst;
    const int64_t act = 6;  // tRRD after the write's ACT
    const int64_t wtr = bank == 1 ? 2 : 6;
    const int64_t rd = std::max({act + kRCD, wr + 4, wr_end + wtr, wr_end - kCL});
    CHECK(t.last_end == rd + kCL + kBurst);
  }
}

TEST_CASE("dram request queue: a request arriving in the past is an error", "[dram]") {
  DramController c(ddr3());
  c.run_until(100);
  CHECK_THROWS_WITH(c.submit(request(0, kAtom, 99)), Catch::Contains("arrives before cycle 100"));
  CHECK_THROWS_WITH(c.submit(request(0, 0, 100)), Catch::Contains("no bytes"));
  c.submit(request(0, kAtom, 200));
  CHECK_THROWS_WITH(c.submit(request(0, kAtom, 150)), Catch::Contains("arrives before cycle 200"));
}

// Target: random single-burst reads on the PYNQ-Z1's DDR3 reach >= 90 % of the bound that the
// activates set. Each read needs its own ACT: at most one per tRRD and four per tFAW, so an ACT
// (and its one burst) every max(tRRD, tFAW / 4) cycles at best, nor faster than the data bus.
TEST_CASE("dram request queue: random reads reach 90 % of the tFAW / tRRD bound", "[dram]") {
  const unsigned seed = 20261128;
  INFO("seed " << seed);
  const DramSpec s = dram_preset("PYNQ-Z1-DDR3-1066-x16", "test");
  const double per_act = std::max({double(s.rrd), s.faw / 4.0, double(s.burst_ck())});
  const double bound = s.atom_bytes() / per_act;  // bytes per nCK
  const double got = random_read_bandwidth(s, seed, 20000);
  std::cout << "random reads (" << s.preset << "): " << got << " B/nCK, bound " << bound << " ("
            << got / bound * 100 << " %)\n";
  CHECK(got >= 0.9 * bound);
  CHECK(got <= bound);
}

// Target: with bank groups interleaved below the column (consecutive bursts alternate bank
// groups, so tCCD_S rather than tCCD_L spaces them), sequential writes on the ZCU104's DDR4
// reach the share of the peak that sequential reads do; both near what refresh leaves.
TEST_CASE("dram request queue: DDR4 sequential writes match sequential reads", "[dram]") {
  DramSpec s = dram_preset("ZCU104-DDR4-2400-x64", "test");
  s.address_map = "RoRaBaCoBgCh";
  const uint64_t bytes = 4u << 20;
  const double rd = sequential_share(s, false, bytes);
  const double wr = sequential_share(s, true, bytes);
  std::cout << "DDR4 sequential share of peak: reads " << rd << ", writes " << wr << "\n";
  CHECK(wr == Approx(rd).epsilon(0.03));
  CHECK(rd >= 0.97 * dram_stream_efficiency(s, false));
  CHECK(wr >= 0.97 * dram_stream_efficiency(s, true));
}

// ---- DRAM_REQUEST_ORDER "out_of_order": read / post_write answered at the grant, a later
// request's commands fitted between the earlier ones' (sim/DRAM.md, "Out of order") ----

namespace {

DramSpec out_of_order(DramSpec s) {
  s.out_of_order = true;
  return s;
}

}  // namespace

// The queue's worked example answered read by read: the third read (bank 1) no longer waits
// for the second one's PRE / ACT (tRAS, tRC of bank 0) but goes between its commands: the
// queue's own schedule.
TEST_CASE("dram out of order: a later read goes between an earlier one's commands", "[dram]") {
  DramController c(out_of_order(ddr3()));
  std::vector<DramCommand> log;
  c.set_command_log(&log);
  CHECK(c.read(addr(0, 1, 0), kAtom, 0, 1).last_end == kRCD + kCL + kBurst);  // ACT 0, READ 7
  const int64_t pre = std::max(kRAS, kRCD + kRTP);                            // 20
  const int64_t act = std::max(pre + kRP, kRC);                               // 27
  CHECK(c.read(addr(0, 2, 0), kAtom, 0, 2).last_end == act + kRCD + kCL + kBurst);
  // ACT tRRD after the first one (and tRRD before 27), READ tRCD later: 13, after 7 + tCCD
  // and before 34 - tCCD.
  CHECK(c.read(addr(1, 1, 0), kAtom, 0, 3).last_end == 6 + kRCD + kCL + kBurst);
  CHECK(ProtocolChecker(ddr3()).check(log) == "");
  // Banks 2 and 3 fit tRRD apart after 6 and before 27 - tRRD = 21: ACT 12 and 18 (five
  // ACTs 0, 6, 12, 18, 27 span exactly tFAW, which is allowed); bank 4 fits nowhere before
  // bank 0's second ACT (24 is within tRRD of 27, and 0..24 would hold five ACTs in less than
  // tFAW): ACT 27 + tRRD = 33, READ 40 (tCCD after 34).
  CHECK(c.read(addr(2, 1, 0), kAtom, 0, 4).last_end == 12 + kRCD + kCL + kBurst);
  CHECK(c.read(addr(3, 1, 0), kAtom, 0, 5).last_end == 18 + kRCD + kCL + kBurst);
  CHECK(c.read(addr(4, 1, 0), kAtom, 0, 6).last_end == 33 + kRCD + kCL + kBurst);
  CHECK(ProtocolChecker(ddr3()).check(log) == "");
}

// Requests far enough apart that nothing issued before one constrains it: both orders give
// every request the same cycles (the exact-latency formulas hold out of order too).
TEST_CASE("dram out of order: isolated requests keep their in-order cycles", "[dram]") {
  const unsigned seed = 36011;
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  DramController a(ddr3()), b(out_of_order(ddr3()));
  int64_t t = 0;
  for (uint64_t k = 1; k <= 400; ++k) {
    t += 200 + static_cast<int64_t>(rng() % 200);
    const uint64_t at = rng() % (uint64_t{1} << 24);
    const uint64_t bytes = 1 + rng() % 256;
    if (rng() % 3 == 0) {
      a.post_write(at, bytes, t, k);
      b.post_write(at, bytes, t, k);
      continue;
    }
    const DramReadTiming x = a.read(at, bytes, t, k), y = b.read(at, bytes, t, k);
    CHECK(x.first_end == y.first_end);
    CHECK(x.last_end == y.last_end);
  }
  CHECK(a.counters().refreshes == b.counters().refreshes);
}

// Seeded random reads and writes through read / post_write out of order: the log obeys every
// JEDEC timing, each read's answer is what its logged commands give, and random reads get at
// least the bandwidth of in order.
TEST_CASE("dram out of order: random traffic obeys every JEDEC timing", "[dram]") {
  DramSpec ddr4 = dram_preset("ZCU104-DDR4-2400-x64", "test");
  ddr4.wtr = 3, ddr4.wtr_l = 9;
  DramSpec closed = ddr3();
  closed.open_page = false;
  const unsigned seed = 36012;
  INFO("seed " << seed);
  for (const DramSpec& spec : {ddr3(), closed, ddr4}) {
    INFO("spec " << spec.preset << (spec.open_page ? " open" : " closed"));
    std::mt19937_64 rng(seed);
    DramController c(out_of_order(spec));
    std::vector<DramCommand> log;
    c.set_command_log(&log);
    int64_t t = 0;
    for (uint64_t k = 1; k <= 3000; ++k) {
      t += static_cast<int64_t>(rng() % 12);
      const uint64_t at = rng() % 2 == 0 ? rng() % (uint64_t{1} << 26) : k * 4096;
      const uint64_t bytes = 1 + rng() % 512;
      if (rng() % 3 == 0) {
        c.post_write(at, bytes, t, k);
        continue;
      }
      const size_t before = log.size();
      const DramReadTiming r = c.read(at, bytes, t, k);
      int64_t last = 0;  // the end of the data of this read's last READ in the log
      for (size_t j = before; j < log.size(); ++j) {
        if (log[j].kind == DramCommand::kRead) {
          last = std::max(last, log[j].ck + spec.cl + spec.burst_ck());
        }
      }
      CHECK(r.last_end == last);
      CHECK(r.first_end >= t + spec.cl + spec.burst_ck());
    }
    c.drain_writes();
    CHECK(ProtocolChecker(spec).check(log) == "");
  }
}

// Random single-atom reads, one per BL/2 from cycle 0, answered in arrival order: bytes per
// DRAM cycle.
double random_read_rate(const DramSpec& s, unsigned seed, int n) {
  std::mt19937_64 rng(seed);
  DramController c(s);
  const uint64_t atom = static_cast<uint64_t>(s.atom_bytes());
  int64_t end = 0;
  for (int k = 0; k < n; ++k) {
    const uint64_t a = rng() % (uint64_t{1} << 28) / atom * atom;
    const int64_t at = int64_t{k} * s.burst_ck();
    end = std::max(end, c.read(a, atom, at, static_cast<uint64_t>(k + 1)).last_end);
  }
  return static_cast<double>(n) * static_cast<double>(atom) / static_cast<double>(end);
}

TEST_CASE("dram out of order: random reads answered at the grant beat in order", "[dram]") {
  const unsigned seed = 36013;
  INFO("seed " << seed);
  const DramSpec s = ddr3();
  const double in_order = random_read_rate(s, seed, 4000);
  const double ooo = random_read_rate(out_of_order(s), seed, 4000);
  // The tFAW / tRRD bound: one ACT per max(tRRD, tFAW / 4, BL/2) cycles.
  const double bound = double(kAtom) / std::max({6.0, 27.0 / 4.0, double(kBurst)});
  INFO("in order " << in_order / bound << ", out of order " << ooo / bound << " of the bound");
  CHECK(ooo > in_order * 1.2);
  CHECK(ooo <= bound);
}

// The key: a wrong value names the key and the choices; "in_order" (the default) stays out of
// the written config, so configs written before the key keep their hash.
TEST_CASE("dram out of order: DRAM_REQUEST_ORDER is checked and written", "[dram]") {
  nlohmann::json j = resolve_config("pynq", {}).keys;
  const HwConfig plain = HwConfig::from_json(j, "test.json");
  j["DRAM_REQUEST_ORDER"] = "sometimes";
  CHECK_THROWS_WITH(HwConfig::from_json(j, "test.json"),
                    "test.json: key 'DRAM_REQUEST_ORDER' = \"sometimes\" is not one of in_order, "
                    "out_of_order");
  j["DRAM_REQUEST_ORDER"] = "in_order";
  const HwConfig in_order = HwConfig::from_json(j, "test.json");
  CHECK(!in_order.memory.dram.out_of_order);
  CHECK(in_order.to_json() == plain.to_json());
  j["DRAM_REQUEST_ORDER"] = "out_of_order";
  const HwConfig ooo = HwConfig::from_json(j, "test.json");
  CHECK(ooo.memory.dram.out_of_order);
  CHECK(ooo.to_json().value("DRAM_REQUEST_ORDER", "") == "out_of_order");
}
