// DramController: a DRAM device and its controller, timed from JEDEC parameters (DramSpec), in
// plain C++ so that the memory model "dram" of the cycle and rtl backends and the unit tests use
// the very same code. It is event driven: each column access is scheduled once, from the state
// of its bank, rank and channel (the earliest cycle each command is allowed), in DRAM clock
// cycles (nCK) since the start of the run. No process runs per DRAM cycle.
//
// Requests come in the order the core grants them. Reads must be answered when they are
// granted; writes are posted into the controller's write queue and scheduled later, when a read
// granted after them arrives, together with it: the scheduler (FR-FCFS or FCFS) chooses among
// the oldest DRAM_QUEUE_DEPTH waiting accesses. The result therefore depends only on the
// sequence of (grant, address, size) - which is what keeps cycle = rtl exact. The formulas are
// in sim/DRAM.md.
//
// The request queue (submit / run_until / take_completions) is the controller for several
// streams: requests wait in one queue with their arrival cycles, and the scheduler issues one
// command at a time, in time order, choosing among the oldest DRAM_QUEUE_DEPTH waiting accesses
// (FR-FCFS: row hits first, then the oldest; reads before writes, writes drained in batches
// between watermarks), so that a bank still within tRC holds up only its own accesses. Refresh
// is postponed while the rank has work, at most eight intervals (JEDEC), and pulled in when it
// is idle. A run uses either this queue or read / post_write, not both (reset() between).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <deque>
#include <limits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "vta/sim/dram_spec.h"

namespace vta {

// Where a byte address lives in the DRAM (decoded by the address map).
struct DramLocation {
  int channel = 0, rank = 0, bank_group = 0, bank = 0;
  int64_t row = 0, column = 0;  // column in units of whole bursts (column accesses)
};

// A command the controller issued (for the trace and the tests).
struct DramCommand {
  enum Kind : uint8_t { kAct, kPre, kRead, kWrite, kRefresh };
  Kind kind = kAct;
  int64_t ck = 0;                       // DRAM cycle it is issued in
  int channel = 0, rank = 0, bank = 0;  // bank: flat index (bank_group * banks + bank)
  int64_t row = 0;
};

struct DramCounters {
  uint64_t activates = 0, precharges = 0, refreshes = 0;
  uint64_t reads = 0, writes = 0;    // column accesses
  uint64_t row_hits = 0;             // the bank had the row open
  uint64_t row_misses = 0;           // the bank was closed (precharged)
  uint64_t row_conflicts = 0;        // another row was open: PRE + ACT
  uint64_t bytes = 0;                // bytes moved on the DRAM data bus (whole column accesses)
  uint64_t refreshes_postponed = 0;  // request queue: refresh intervals deferred (busy rank)
};

// A request for the request queue: [addr, addr + bytes) read or written, at the controller
// from DRAM cycle `arrival`. `source` (a core, a stream) comes back in its completion.
struct DramRequest {
  uint64_t addr = 0, bytes = 0;
  bool write = false;
  int64_t arrival = 0;
  int source = 0;
};

// A request the queue has served: the end of its first and last column access's data (nCK).
struct DramCompletion {
  uint64_t id = 0;  // submit()'s answer
  int source = 0;
  bool write = false;
  int64_t arrival = 0, first_end = 0, last_end = 0;
};

// When the data of a read is on the DRAM bus (nCK, end of the data transfer).
struct DramReadTiming {
  int64_t first_end = 0;  // end of the data of the first column access
  int64_t last_end = 0;   // end of the data of the last column access
};

class DramController {
 public:
  explicit DramController(const DramSpec& spec);

  // Start of a run: every bank precharged, buses idle, the first refresh due at tREFI, the write
  // queue empty (cycle 0 = the run's start). Counters are kept (clear_counters()).
  void reset();
  void clear_counters() { m_counters = DramCounters{}; }

  // A read of [addr, addr + bytes) that reaches the controller in DRAM cycle `arrival`; `order`
  // is its grant cycle in the core (writes posted with a smaller order are older).
  DramReadTiming read(uint64_t addr, uint64_t bytes, int64_t arrival, uint64_t order);
  // A write of [addr, addr + bytes) whose data is in the controller in cycle `arrival`.
  void post_write(uint64_t addr, uint64_t bytes, int64_t arrival, uint64_t order);
  // Schedules every posted write (as if a read arrived after all of them).
  void drain_writes();

  // ---- request queue ----
  // Queues a request; returns its id. Arrivals must not decrease and must not precede the
  // cycle run_until has reached (throws std::invalid_argument naming the request).
  uint64_t submit(const DramRequest& q);
  // Issues every command due before cycle `ck` (requests arriving later are not known yet).
  void run_until(int64_t ck);
  // Issues commands until every queued request is served.
  void drain();
  // The earliest cycle at which run_until would issue a command or start a refresh, given the
  // requests queued so far (INT64_MAX: nothing to do): a model can wait until then or until
  // its next request arrives, whichever is first.
  int64_t next_event();
  // Requests served since the last call, in the order their last access was issued.
  std::vector<DramCompletion> take_completions();
  size_t queued_accesses() const { return m_pending.size(); }

  DramLocation decode(uint64_t addr) const;
  const DramSpec& spec() const { return m_spec; }
  const DramCounters& counters() const { return m_counters; }
  // Commands issued from now on are appended to `log` (nullptr: not recorded).
  void set_command_log(std::vector<DramCommand>* log) { m_log = log; }

 private:
  struct Bank {
    int64_t open_row = -1;  // -1: precharged
    int64_t next_act = 0;   // earliest ACT (tRP after PRE, tRC after ACT, tRFC after REF)
    int64_t next_col = 0;   // earliest READ/WRITE (tRCD after ACT)
    int64_t next_pre = 0;   // earliest PRE (tRAS, tRTP, tWR)
  };
  struct Rank {
    std::vector<Bank> banks;       // index bank_group * banks + bank
    std::array<int64_t, 4> faw{};  // the last four ACTs (ring)
    size_t faw_next = 0;
    int64_t acts = 0;                  // ACTs issued (the first four are not limited by tFAW)
    int64_t last_act = -1;             // tRRD
    std::vector<int64_t> last_act_bg;  // tRRD_L, per bank group
    int64_t wr_data_end = -1;          // tWTR: end of the last write's data
    std::vector<int64_t> wr_end_bg;    // tWTR_L: ... per bank group
    int64_t next_ref = 0;              // the next refresh is due
    int64_t ref_done = 0;              // tRFC after the last refresh
    int owed = 0;                      // request queue: refreshes postponed
    // DRAM_REQUEST_ORDER "out_of_order": the ACTs (cycle, bank group) that a later request's
    // ACT may still have to fit between (tRRD, tRRD_L, tFAW on both sides).
    std::vector<std::pair<int64_t, int>> act_log;
  };
  // Out of order: READ commands issued after the channel's last WRITE, as spans of row hits
  // that follow each other at hit_step() (no room for another column command inside).
  struct ColSpan {
    int64_t first = 0, last = 0;
    int bank_group = 0;
  };
  struct Channel {
    std::vector<Rank> ranks;
    int64_t data_free = 0;  // the data bus is free from here
    int64_t last_col = -1;  // last column command, and its bank group (tCCD / tCCD_L)
    int last_col_bg = -1;
    int64_t last_rd = -1;  // last READ command (tRTW)
    // Out of order (last_col, data_free and last_rd are then the latest ones): the reads a
    // later read may fit between, and the last WRITE, which every later read follows.
    std::vector<ColSpan> read_cols;
    int64_t wr_col = -1;
    int wr_bg = -1;
    int64_t wr_data_free = 0;
  };
  // Consecutive column accesses of one request to one row of one bank: they share every
  // timing input, so the scheduler treats them as one entry and serves them in closed form.
  struct Run {
    DramLocation loc;  // of its next access
    int64_t left = 0;  // accesses not yet served
    bool write = false;
    int64_t arrival = 0;
    uint64_t order = 0;  // request queue: the request's id
    uint8_t opened = 0;  // request queue: 1 its row was activated for it, 2 after a PRE
  };
  using RunQueue = std::deque<Run>;
  // Request queue: the next command of a waiting access and the cycle it can issue.
  struct Candidate {
    DramCommand::Kind kind = DramCommand::kAct;
    int64_t ck = std::numeric_limits<int64_t>::max();
    size_t index = 0;  // in m_pending
  };
  struct RequestState {
    DramCompletion done;
    uint64_t left = 0;  // accesses not yet served
  };

  void split(uint64_t addr, uint64_t bytes, bool write, int64_t arrival, uint64_t order,
             RunQueue& out) const;
  struct DataEnds {
    int64_t first = 0, last = 0;  // end of the data of the first and the last access served
  };

  size_t pick(const RunQueue& queue, int64_t& hit_limit) const;
  DataEnds serve(Run& run, int64_t hit_limit);  // serves one access of `run` or more
  int64_t serve_one(const Run& run);            // the first access of `run`
  int64_t serve_hits(const Run& run, int64_t count);
  int64_t column_access(Channel& c, Rank& r, Bank& b, const Run& a, int64_t col);
  int64_t open_row(Rank& r, Bank& b, const Run& a, int64_t t);
  int64_t column_cycle(const Channel& c, const Rank& r, const Bank& b, const Run& a,
                       int64_t t) const;
  void refresh_due(Rank& r, int ch, int rank, int64_t t);
  void issue_refresh(Rank& r, int ch, int rank, int64_t t);
  int64_t act_cycle(const Rank& r, const Bank& b, const DramLocation& l, int64_t t) const;
  void activate(Rank& r, Bank& b, const DramLocation& l, int64_t act);
  // Out of order: the first cycle from `x` at which an ACT (bank group `bg`) or a READ fits
  // between the commands already issued, delaying none of them; forgetting commands too old to
  // constrain a request arriving from `horizon` on.
  int64_t fit_act(const Rank& r, int bg, int64_t x) const;
  int64_t faw_next(const Rank& r, int64_t x) const;
  int64_t fit_read(const Channel& c, int bg, int64_t x) const;
  void record_column(Channel& c, const Run& a, int64_t first, int64_t last);
  void forget_before(int64_t horizon);
  static constexpr int kMaxPostponedRefreshes = 8;  // JEDEC JESD79-3 / JESD79-4
  // Request queue steps (dram_controller.cc, "Request queue").
  bool queue_step(int64_t limit);
  int64_t scan_window(size_t window);
  void choose_direction();
  Candidate next_command(size_t k) const;
  size_t flat_bank(const DramLocation& l) const {
    const int rank = l.channel * m_spec.ranks + l.rank;
    const int group = rank * m_spec.bank_groups + l.bank_group;
    const int index = group * m_spec.banks + l.bank;
    return static_cast<size_t>(index);
  }
  bool pending_hit(const DramLocation& l, int64_t row, size_t window, bool any_dir) const;
  bool refresh_before(int64_t horizon, size_t window);
  int64_t refresh_lead() const;
  bool rank_busy(int ch, int rank, int64_t t, size_t window) const;
  void issue(const Candidate& x);
  void issue_column(size_t k);
  size_t window() const {  // FCFS: the oldest access only
    const int depth = m_spec.frfcfs ? m_spec.queue_depth : 1;
    return std::min(m_pending.size(), static_cast<size_t>(depth));
  }
  void log(DramCommand::Kind k, int64_t ck, const DramLocation& l, int64_t row);
  Bank& bank(const Run& a) {
    return m_channels[static_cast<size_t>(a.loc.channel)]
        .ranks[static_cast<size_t>(a.loc.rank)]
        .banks[static_cast<size_t>(a.loc.bank_group * m_spec.banks + a.loc.bank)];
  }
  const Bank& bank(const Run& a) const { return const_cast<DramController*>(this)->bank(a); }
  int64_t hit_step() const { return std::max(m_spec.ccd_l_ck(), m_spec.burst_ck()); }

  DramSpec m_spec;
  std::array<int, 6> m_field_bits{};   // bits of Ch, Ra, Bg, Ba, Co, Ro
  std::array<int, 6> m_field_order{};  // fields, least significant first
  std::array<int, 6> m_field_shift{};  // per field: its lowest bit in the atom address
  int m_atom_bits = 0;
  int m_row_run_bits = 0;  // column bits below every other field: accesses per row run
  std::vector<Channel> m_channels;
  RunQueue m_writes;  // posted, not yet scheduled (in grant order)
  RunQueue m_queue;   // the waiting accesses of one read (kept to reuse its storage)
  // Request queue state.
  RunQueue m_pending;  // waiting accesses, oldest first (one column access each)
  std::unordered_map<uint64_t, RequestState> m_requests;
  std::vector<DramCompletion> m_completions;
  uint64_t m_next_id = 1;
  int64_t m_now = 0;           // the last command the queue issued
  int64_t m_reached = 0;       // run_until's cycle: no request may arrive before it
  int64_t m_last_arrival = 0;  // arrivals must not decrease
  int64_t m_served_col = 0;    // the column command of the access column_access served last
  int64_t m_own_act = -1;      // out of order: the last ACT and READ of the read being served
  int64_t m_own_col = -1;
  bool m_write_mode = false;  // draining writes
  // Per bank and direction (2 * flat_bank + write): == m_mark if a waiting access hits its
  // open row, and the first such access's arrival.
  std::vector<uint64_t> m_hit_mark;
  std::vector<int64_t> m_hit_arrival;
  std::array<int, 2> m_arrived{};  // reads, writes in the window that have arrived by m_now
  uint64_t m_mark = 0;
  DramCounters m_counters;
  std::vector<DramCommand>* m_log = nullptr;
};

}  // namespace vta
