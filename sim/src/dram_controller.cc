#include "vta/sim/dram_controller.h"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

#include <fmt/format.h>

namespace vta {

namespace {

enum Field { kCh, kRa, kBg, kBa, kCo, kRo };

int log2i(int v) {
  int n = 0;
  while ((1 << n) < v) {
    ++n;
  }
  return n;
}

int field_of(const std::string& code) {
  const char* const names[] = {"Ch", "Ra", "Bg", "Ba", "Co", "Ro"};
  for (int k = 0; k < 6; ++k) {
    if (code == names[k]) {
      return k;
    }
  }
  return kRo;  // unreachable: check_dram_spec validated the map
}

}  // namespace

DramController::DramController(const DramSpec& spec) : m_spec(spec) {
  m_field_bits = {log2i(spec.channels),
                  log2i(spec.ranks),
                  log2i(spec.bank_groups),
                  log2i(spec.banks),
                  log2i(spec.columns / spec.burst_length),
                  log2i(spec.rows)};
  const size_t n = spec.address_map.size() / 2;  // "RoRaBaBgCoCh": most significant first
  for (size_t k = 0; k < n && k < 6; ++k) {
    m_field_order[k] = field_of(spec.address_map.substr(2 * (n - 1 - k), 2));
  }
  int shift = 0;
  for (int f : m_field_order) {
    m_field_shift[static_cast<size_t>(f)] = shift;
    shift += m_field_bits[static_cast<size_t>(f)];
  }
  m_atom_bits = log2i(spec.atom_bytes());
  // Consecutive accesses stay in one row of one bank while only the column changes: when the
  // lowest field that has bits is the column (the default maps), for a whole row's columns.
  m_row_run_bits = 62;  // no field has bits: every access is in the one row
  for (int f : m_field_order) {
    if (m_field_bits[static_cast<size_t>(f)] > 0) {
      m_row_run_bits = f == kCo ? m_field_bits[kCo] : 0;
      break;
    }
  }
  reset();
}

void DramController::reset() {
  const DramSpec& s = m_spec;
  m_channels.assign(static_cast<size_t>(s.channels), Channel{});
  for (Channel& c : m_channels) {
    c.ranks.assign(static_cast<size_t>(s.ranks), Rank{});
    for (Rank& r : c.ranks) {
      r.banks.assign(static_cast<size_t>(s.bank_groups * s.banks), Bank{});
      r.last_act_bg.assign(static_cast<size_t>(s.bank_groups), -1);
      r.wr_end_bg.assign(static_cast<size_t>(s.bank_groups), -1);
      r.next_ref = s.refi;
    }
  }
  m_writes.clear();
  m_pending.clear();
  m_requests.clear();
  m_completions.clear();
  m_now = m_reached = m_last_arrival = 0;
  m_write_mode = false;
}

DramLocation DramController::decode(uint64_t addr) const {
  // Each field's bits from its precomputed position: independent shifts, no loop-carried chain.
  const uint64_t a = addr >> m_atom_bits;
  std::array<int64_t, 6> v{};
  for (size_t f = 0; f < 6; ++f) {
    const uint64_t mask = (uint64_t{1} << m_field_bits[f]) - 1;
    v[f] = static_cast<int64_t>((a >> m_field_shift[f]) & mask);
  }
  DramLocation l;
  l.channel = static_cast<int>(v[kCh]);
  l.rank = static_cast<int>(v[kRa]);
  l.bank_group = static_cast<int>(v[kBg]);
  l.bank = static_cast<int>(v[kBa]);
  l.column = v[kCo];
  l.row = v[kRo];  // addresses beyond the capacity wrap around
  return l;
}

// The column accesses of [addr, addr + bytes), in address order, as runs that each stay in one
// row of one bank (a run ends where the next access changes anything but the column).
void DramController::split(uint64_t addr, uint64_t bytes, bool write, int64_t arrival,
                           uint64_t order, RunQueue& out) const {
  const uint64_t atom = static_cast<uint64_t>(m_spec.atom_bytes());
  const uint64_t end = (addr + bytes + atom - 1) / atom;  // one past the last access
  for (uint64_t k = addr / atom; k < end;) {
    const uint64_t run_end = std::min(end, ((k >> m_row_run_bits) + 1) << m_row_run_bits);
    Run r;
    r.loc = decode(k * atom);
    r.left = static_cast<int64_t>(run_end - k);
    r.write = write;
    r.arrival = arrival;
    r.order = order;
    out.push_back(r);
    k = run_end;
  }
}

void DramController::post_write(uint64_t addr, uint64_t bytes, int64_t arrival, uint64_t order) {
  split(addr, bytes, true, arrival, order, m_writes);
}

void DramController::drain_writes() {
  while (!m_writes.empty()) {
    int64_t hit_limit = 0;
    const size_t k = pick(m_writes, hit_limit);
    serve(m_writes[k], hit_limit);
    if (m_writes[k].left == 0) {
      m_writes.erase(m_writes.begin() + static_cast<std::ptrdiff_t>(k));
    }
  }
}

DramReadTiming DramController::read(uint64_t addr, uint64_t bytes, int64_t arrival,
                                    uint64_t order) {
  if (m_spec.out_of_order) {
    forget_before(arrival);
    m_own_act = m_own_col = -1;
  }
  // The waiting accesses, oldest first: the writes granted before this read, then its own.
  m_queue.clear();
  while (!m_writes.empty() && m_writes.front().order < order) {
    m_queue.push_back(m_writes.front());
    m_writes.pop_front();
  }
  const size_t n_writes = m_queue.size();
  split(addr, bytes, false, arrival, order, m_queue);
  int64_t reads_left = 0;
  for (size_t k = n_writes; k < m_queue.size(); ++k) {
    reads_left += m_queue[k].left;
  }
  DramReadTiming t;
  bool first = true;
  while (reads_left > 0) {
    int64_t hit_limit = 0;
    const size_t k = pick(m_queue, hit_limit);
    Run& a = m_queue[k];
    const int64_t before = a.left;
    const DataEnds ends = serve(a, hit_limit);
    if (!a.write) {
      t.first_end = first ? ends.first : std::min(t.first_end, ends.first);
      t.last_end = std::max(t.last_end, ends.last);
      first = false;
      reads_left -= before - a.left;
    }
    if (a.left == 0) {
      m_queue.erase(m_queue.begin() + static_cast<std::ptrdiff_t>(k));
    }
  }
  // Writes the scheduler left for later stay queued, ahead of the ones posted after them.
  for (auto it = m_queue.rbegin(); it != m_queue.rend(); ++it) {
    m_writes.push_front(*it);
  }
  return t;
}

// FCFS: the oldest access. FR-FCFS: the oldest row hit among the first DRAM_QUEUE_DEPTH
// accesses that have arrived by the time the oldest could start, else the oldest. All accesses
// of a run are alike, so the first access of the first such run is the one. `hit_limit`: the
// row hits ahead of the chosen run that have not arrived yet would be chosen instead once the
// oldest could start at or after it (the first such arrival; INT64_MAX if none can).
size_t DramController::pick(const RunQueue& queue, int64_t& hit_limit) const {
  hit_limit = std::numeric_limits<int64_t>::max();
  if (!m_spec.frfcfs) {
    return 0;
  }
  const Run& oldest = queue.front();
  const int64_t now =
      std::max(oldest.arrival, m_channels[static_cast<size_t>(oldest.loc.channel)].last_col);
  int64_t ahead = 0;  // accesses ahead of queue[k]
  int64_t limit = hit_limit;
  for (size_t k = 0; k < queue.size() && ahead < m_spec.queue_depth; ++k) {
    const Run& a = queue[k];
    if (bank(a).open_row == a.loc.row) {
      if (a.arrival <= now) {
        // Serving queue[k] moves `now` only when it shares the oldest's channel.
        hit_limit = a.loc.channel == oldest.loc.channel ? limit : hit_limit;
        return k;
      }
      limit = std::min(limit, a.arrival);
    }
    ahead += a.left;
  }
  return 0;
}

void DramController::log(DramCommand::Kind k, int64_t ck, const DramLocation& l, int64_t row) {
  if (m_log != nullptr) {
    m_log->push_back(
        DramCommand{k, ck, l.channel, l.rank, l.bank_group * m_spec.banks + l.bank, row});
  }
}

// All-bank refresh of `rank` for every tREFI interval that began by cycle `t` (read and
// post_write: never postponed).
void DramController::refresh_due(Rank& r, int ch, int rank, int64_t t) {
  while (t >= r.next_ref) {
    issue_refresh(r, ch, rank, r.next_ref);
    r.next_ref += m_spec.refi;
  }
}

// One all-bank refresh from cycle `t`: precharge all (after each open bank's tRAS/tRTP/tWR),
// REF tRP later (once every bank may be activated), no ACT until tRFC after the REF.
void DramController::issue_refresh(Rank& r, int ch, int rank, int64_t t) {
  int64_t pre = t;
  bool any_open = false;
  int64_t ready = t;
  for (const Bank& b : r.banks) {
    // Not before a closed page's auto-precharge either (REF waits for it in any case).
    pre = std::max(pre, b.next_pre);
    if (b.open_row >= 0) {
      any_open = true;
    } else {
      ready = std::max(ready, b.next_act);
    }
  }
  const int64_t ref = std::max(ready, any_open ? pre + m_spec.rp : pre);
  DramLocation l;
  l.channel = ch;
  l.rank = rank;
  if (any_open) {
    log(DramCommand::kPre, pre, l, -1);
    ++m_counters.precharges;
  }
  log(DramCommand::kRefresh, ref, l, -1);
  r.ref_done = ref + m_spec.rfc;
  for (Bank& b : r.banks) {
    b.open_row = -1;
    b.next_act = std::max(b.next_act, r.ref_done);
  }
  ++m_counters.refreshes;
}

// PRE (row conflict) and ACT for access `a` to a bank without its row open; returns the ACT
// cycle.
int64_t DramController::open_row(Rank& r, Bank& b, const Run& a, int64_t t) {
  const DramSpec& s = m_spec;
  if (b.open_row >= 0) {
    const int64_t pre = std::max(t, b.next_pre);
    log(DramCommand::kPre, pre, a.loc, b.open_row);
    ++m_counters.precharges;
    ++m_counters.row_conflicts;
    b.next_act = std::max(b.next_act, pre + s.rp);
  } else {
    ++m_counters.row_misses;
  }
  if (s.out_of_order) {
    // Posted writes go behind every ACT issued so far, a read's after its own previous one.
    t = std::max(t, a.write ? r.last_act : m_own_act);
  }
  const int64_t act = act_cycle(r, b, a.loc, t);
  activate(r, b, a.loc, act);
  m_own_act = a.write ? m_own_act : act;
  return act;
}

// The earliest ACT of bank `b` (location `l`) from cycle `t`: tRP / tRC / tRFC of the bank,
// tRRD(_S) and tRRD_L of the rank, and at most four ACTs in any tFAW.
int64_t DramController::act_cycle(const Rank& r, const Bank& b, const DramLocation& l,
                                  int64_t t) const {
  const DramSpec& s = m_spec;
  const size_t bg = static_cast<size_t>(l.bank_group);
  int64_t act = std::max(t, b.next_act);
  if (s.out_of_order) {
    return fit_act(r, l.bank_group, act);
  }
  if (r.last_act >= 0) {
    act = std::max(act, r.last_act + s.rrd);
  }
  if (r.last_act_bg[bg] >= 0) {
    act = std::max(act, r.last_act_bg[bg] + s.rrd_l_ck());
  }
  if (r.acts >= 4) {
    act = std::max(act, r.faw[r.faw_next] + s.faw);  // the fourth ACT back
  }
  return act;
}

void DramController::activate(Rank& r, Bank& b, const DramLocation& l, int64_t act) {
  const DramSpec& s = m_spec;
  log(DramCommand::kAct, act, l, l.row);
  ++m_counters.activates;
  r.faw[r.faw_next] = act;
  r.faw_next = (r.faw_next + 1) % r.faw.size();
  ++r.acts;
  int64_t& last_bg = r.last_act_bg[static_cast<size_t>(l.bank_group)];
  r.last_act = std::max(r.last_act, act);  // out of order an ACT may go before the latest
  last_bg = std::max(last_bg, act);
  if (s.out_of_order) {
    const auto at =
        std::upper_bound(r.act_log.begin(), r.act_log.end(), std::make_pair(act, l.bank_group));
    r.act_log.insert(at, {act, l.bank_group});
  }
  b.open_row = l.row;
  b.next_col = act + s.rcd;
  b.next_pre = act + s.ras;
  b.next_act = act + s.rc;
}

// ---- Out of order (DRAM_REQUEST_ORDER "out_of_order", sim/DRAM.md) ----

// The first ACT cycle from `x` that keeps tRRD / tRRD_L to every ACT of the rank, before and
// after it, and at most four ACTs in any tFAW window.
int64_t DramController::fit_act(const Rank& r, int bg, int64_t x) const {
  const DramSpec& s = m_spec;
  const int64_t reach = std::max(s.rrd, s.rrd_l_ck());
  // A controller queue of DRAM_QUEUE_DEPTH: at most that many of the latest ACTs can be passed.
  const auto depth = static_cast<size_t>(s.queue_depth);
  if (r.act_log.size() > depth) {
    x = std::max(x, r.act_log[r.act_log.size() - depth - 1].first);
  }
  for (;;) {
    bool moved = false;
    // The log is sorted: only the ACTs within tRRD of x can be in the way.
    auto it = std::lower_bound(r.act_log.begin(), r.act_log.end(), std::make_pair(x - reach, 0));
    for (; it != r.act_log.end() && it->first < x + reach; ++it) {
      const int64_t d = it->second == bg ? s.rrd_l_ck() : s.rrd;
      if (x > it->first - d && x < it->first + d) {
        x = it->first + d;
        moved = true;
      }
    }
    if (!moved) {
      const int64_t next = faw_next(r, x);
      if (next == x) {
        return x;
      }
      x = next;
    }
  }
}

// The first cycle from `x` at which an ACT leaves every five consecutive ACTs of the rank
// tFAW apart, as far as the windows around x go: x if allowed, else a later cycle no allowed
// one precedes (fit_act checks it again).
int64_t DramController::faw_next(const Rank& r, int64_t x) const {
  const int64_t faw = m_spec.faw;
  std::array<int64_t, 9> near{};  // the four ACTs before x, x, the four after
  size_t n = 0;
  const auto lo = std::lower_bound(r.act_log.begin(), r.act_log.end(), std::make_pair(x, 0));
  for (auto it = lo - std::min<std::ptrdiff_t>(4, lo - r.act_log.begin()); it != lo; ++it) {
    near[n++] = it->first;
  }
  const size_t at = n;
  near[n++] = x;
  for (auto it = lo; it != r.act_log.end() && n < near.size(); ++it) {
    near[n++] = it->first;
  }
  for (size_t i = at >= 4 ? at - 4 : 0; i <= at && i + 4 < n; ++i) {
    if (near[i + 4] - near[i] < faw) {
      // x last in the window: not before its first + tFAW, unless the next ACT changes the
      // window first; x inside it: not before the window's last.
      const int64_t past = at + 1 < n ? near[at + 1] + 1 : near[i] + faw;
      return i + 4 == at ? std::min(near[i] + faw, past) : near[i + 4] + 1;
    }
  }
  return x;
}

// The first READ cycle from `x` that keeps tCCD / tCCD_L and the data bus (BL/2) to every READ
// issued since the channel's last WRITE, before and after it.
int64_t DramController::fit_read(const Channel& c, int bg, int64_t x) const {
  const DramSpec& s = m_spec;
  const int64_t same = std::max<int64_t>(s.ccd_l_ck(), s.burst_ck());
  const int64_t other = std::max<int64_t>(s.ccd, s.burst_ck());
  const int64_t reach = std::max(same, other);
  const auto& cols = c.read_cols;  // sorted, disjoint: by first and by last alike
  // At most DRAM_QUEUE_DEPTH of the latest READs can be passed (the controller's queue).
  int64_t passed = 0;
  for (auto y = cols.rbegin(); y != cols.rend(); ++y) {
    const int64_t n = (y->last - y->first) / hit_step() + 1;
    if (passed + n > s.queue_depth) {
      x = std::max(x, y->last - (s.queue_depth - passed) * hit_step());
      break;
    }
    passed += n;
  }
  for (bool moved = true; moved;) {
    moved = false;
    auto it = std::lower_bound(cols.begin(), cols.end(), x - reach,
                               [](const ColSpan& y, int64_t v) { return y.last < v; });
    for (; it != cols.end() && it->first < x + reach; ++it) {
      const int64_t d = it->bank_group == bg ? same : other;
      if (x > it->first - d && x < it->last + d) {
        x = it->last + d;
        moved = true;
      }
    }
  }
  return x;
}

// Column commands first..last of `a` (row hits hit_step() apart), for the later fits.
void DramController::record_column(Channel& c, const Run& a, int64_t first, int64_t last) {
  if (a.write) {  // every later read follows it; the reads before it constrain none
    c.read_cols.clear();
    c.wr_col = last;
    c.wr_bg = a.loc.bank_group;
    c.wr_data_free = last + m_spec.cwl + m_spec.burst_ck();
    return;
  }
  const auto at = std::lower_bound(c.read_cols.begin(), c.read_cols.end(), first,
                                   [](const ColSpan& y, int64_t v) { return y.first < v; });
  c.read_cols.insert(at, ColSpan{first, last, a.loc.bank_group});
}

// Commands that no later request can go before or meet a constraint of: those that end their
// constraints before `horizon` (a read's arrival: reads arrive in grant order, and writes only
// go behind everything), and those older than the DRAM_QUEUE_DEPTH + 1 latest ACTs / READs
// the fits start from (keeping the four ACTs before for tFAW, the span before for tCCD).
void DramController::forget_before(int64_t horizon) {
  const DramSpec& s = m_spec;
  const int64_t act_reach = std::max<int64_t>({s.faw, s.rrd, s.rrd_l_ck()});
  const int64_t col_reach = std::max<int64_t>({s.ccd, s.ccd_l_ck(), s.burst_ck()});
  const auto depth = static_cast<std::ptrdiff_t>(s.queue_depth);
  for (Channel& c : m_channels) {
    auto& cols = c.read_cols;
    auto keep = std::lower_bound(cols.begin(), cols.end(), horizon - col_reach,
                                 [](const ColSpan& y, int64_t v) { return y.last < v; });
    int64_t accesses = 0;
    for (auto y = cols.end(); y != keep && accesses <= depth;) {
      --y;
      accesses += (y->last - y->first) / hit_step() + 1;
      if (accesses > depth && y != keep) {
        keep = y - 1;
      }
    }
    cols.erase(cols.begin(), keep);
    for (Rank& r : c.ranks) {
      auto& acts = r.act_log;
      const auto old =
          std::lower_bound(acts.begin(), acts.end(), std::make_pair(horizon - act_reach, 0));
      const std::ptrdiff_t by_time = (old - acts.begin()) - 4;
      const std::ptrdiff_t by_depth = static_cast<std::ptrdiff_t>(acts.size()) - depth - 5;
      acts.erase(acts.begin(), acts.begin() + std::max<std::ptrdiff_t>({0, by_time, by_depth}));
    }
  }
}

// The earliest READ/WRITE of `a` from cycle `t` on: tRCD, tCCD(_L), tWTR, tRTW, and a data
// bus that is free when its data would start (CL / CWL later).
int64_t DramController::column_cycle(const Channel& c, const Rank& r, const Bank& b, const Run& a,
                                     int64_t t) const {
  const DramSpec& s = m_spec;
  int64_t col = std::max(t, b.next_col);
  if (s.out_of_order && !a.write) {
    // Behind the channel's last WRITE (tCCD, the data bus) and the rank's tWTR; between the
    // reads issued since.
    const int bg = a.loc.bank_group;
    if (c.wr_col >= 0) {
      col = std::max(col, c.wr_col + (c.wr_bg == bg ? s.ccd_l_ck() : s.ccd));
      col = std::max(col, c.wr_data_free - s.cl);
    }
    if (r.wr_data_end >= 0) {
      col = std::max(col, r.wr_data_end + s.wtr);
      const int64_t same = r.wr_end_bg[static_cast<size_t>(bg)];
      col = same >= 0 ? std::max(col, same + s.wtr_l_ck()) : col;
    }
    return fit_read(c, bg, col);
  }
  if (c.last_col >= 0) {
    col = std::max(col, c.last_col + (c.last_col_bg == a.loc.bank_group ? s.ccd_l_ck() : s.ccd));
  }
  if (a.write) {
    if (c.last_rd >= 0) {
      col = std::max(col, c.last_rd + s.rtw_ck());
    }
    col = std::max(col, c.data_free - s.cwl);
  } else {
    if (r.wr_data_end >= 0) {  // tWTR(_S) after any write, tWTR_L after one to this group
      col = std::max(col, r.wr_data_end + s.wtr);
      const int64_t same = r.wr_end_bg[static_cast<size_t>(a.loc.bank_group)];
      col = same >= 0 ? std::max(col, same + s.wtr_l_ck()) : col;
    }
    col = std::max(col, c.data_free - s.cl);
  }
  return col;
}

// The first access of `a`, then as many of its next ones as are certain to follow it at once
// (see serve_hits).
DramController::DataEnds DramController::serve(Run& a, int64_t hit_limit) {
  DataEnds ends;
  ends.first = ends.last = serve_one(a);
  --a.left;
  int64_t count = m_spec.open_page ? a.left : a.left - 1;  // closed page: the last one closes
  if (count <= 0) {
    return ends;
  }
  // Access j >= 1 of the batch follows READ/WRITE j - 1 at `col0 + (j - 1) * step` only if no
  // refresh is due there and no earlier row hit has arrived by then.
  const Channel& c = m_channels[static_cast<size_t>(a.loc.channel)];
  const Rank& r = c.ranks[static_cast<size_t>(a.loc.rank)];
  const int64_t bound = std::min(r.next_ref, hit_limit);
  const int64_t col0 = c.last_col;
  if (col0 >= bound || m_served_col != col0) {  // out of order: it went before a later one
    return ends;
  }
  count = std::min(count, (bound - 1 - col0) / hit_step() + 1);
  ends.last = serve_hits(a, count);
  a.left -= count;
  return ends;
}

// `count` further accesses of the run whose access was just served: row hits in the same bank
// group and direction, so each READ/WRITE follows the previous by max(tCCD_L, BL/2) (the data
// bus); tRCD, tWTR and tRTW were met by the first. Returns the end of the last one's data.
int64_t DramController::serve_hits(const Run& a, int64_t count) {
  const DramSpec& s = m_spec;
  Channel& c = m_channels[static_cast<size_t>(a.loc.channel)];
  Rank& r = c.ranks[static_cast<size_t>(a.loc.rank)];
  Bank& b = bank(a);
  const int64_t step = hit_step();
  if (m_log != nullptr) {
    for (int64_t j = 1; j <= count; ++j) {
      log(a.write ? DramCommand::kWrite : DramCommand::kRead, c.last_col + j * step, a.loc,
          a.loc.row);
    }
  }
  const int64_t col = c.last_col + count * step;
  const int64_t data_end = col + (a.write ? s.cwl : s.cl) + s.burst_ck();
  if (s.out_of_order) {
    record_column(c, a, c.last_col + step, col);
    m_own_col = a.write ? m_own_col : col;
  }
  c.data_free = data_end;
  c.last_col = col;
  const auto n = static_cast<uint64_t>(count);
  if (a.write) {
    r.wr_data_end = r.wr_end_bg[static_cast<size_t>(a.loc.bank_group)] = data_end;
    b.next_pre = std::max(b.next_pre, data_end + s.wr);
    m_counters.writes += n;
  } else {
    c.last_rd = col;
    b.next_pre = std::max(b.next_pre, col + s.rtp);
    m_counters.reads += n;
  }
  m_counters.row_hits += n;
  m_counters.bytes += n * static_cast<uint64_t>(s.atom_bytes());
  return data_end;
}

// READ or WRITE of access `a` in cycle `col`; returns the end of its data.
int64_t DramController::column_access(Channel& c, Rank& r, Bank& b, const Run& a, int64_t col) {
  const DramSpec& s = m_spec;
  const int64_t data_end = col + (a.write ? s.cwl : s.cl) + s.burst_ck();
  log(a.write ? DramCommand::kWrite : DramCommand::kRead, col, a.loc, a.loc.row);
  m_served_col = col;
  if (s.out_of_order) {
    record_column(c, a, col, col);
    if (col < c.last_col) {  // it went before a later read: the latest stay the latest
      c.last_rd = std::max(c.last_rd, col);
      b.next_pre = std::max(b.next_pre, col + s.rtp);
      ++m_counters.reads;
      m_counters.bytes += static_cast<uint64_t>(s.atom_bytes());
      return data_end;
    }
  }
  c.data_free = data_end;
  c.last_col = col;
  c.last_col_bg = a.loc.bank_group;
  if (a.write) {
    r.wr_data_end = r.wr_end_bg[static_cast<size_t>(a.loc.bank_group)] = data_end;
    b.next_pre = std::max(b.next_pre, data_end + s.wr);
    ++m_counters.writes;
  } else {
    c.last_rd = col;
    b.next_pre = std::max(b.next_pre, col + s.rtp);
    ++m_counters.reads;
  }
  m_counters.bytes += static_cast<uint64_t>(s.atom_bytes());
  return data_end;
}

// One access, the first of run `a`, from the state of its bank, rank and channel (DRAM.md).
int64_t DramController::serve_one(const Run& a) {
  const DramSpec& s = m_spec;
  Channel& c = m_channels[static_cast<size_t>(a.loc.channel)];
  Rank& r = c.ranks[static_cast<size_t>(a.loc.rank)];
  Bank& b = bank(a);
  int64_t t = a.arrival;
  if (!s.frfcfs) {
    t = std::max(t, c.last_col);  // in order: nothing before the previous column command
  }
  // A refresh due before this access can start (its arrival, or the channel's last column
  // command when the queue is backed up) comes first.
  refresh_due(r, a.loc.channel, a.loc.rank, std::max(t, c.last_col));
  t = std::max(t, r.ref_done);
  const bool own = s.out_of_order && !a.write;  // a read's accesses stay in order
  if (b.open_row == a.loc.row) {
    ++m_counters.row_hits;
  } else {
    open_row(r, b, a, t);
  }
  const int64_t col = column_cycle(c, r, b, a, own ? std::max(t, m_own_col) : t);
  m_own_col = own ? col : m_own_col;
  const int64_t data_end = column_access(c, r, b, a, col);
  if (!s.open_page && a.left == 1) {  // closed page: the run's last access closes the row
    log(DramCommand::kPre, b.next_pre, a.loc, b.open_row);
    ++m_counters.precharges;
    b.next_act = std::max(b.next_act, b.next_pre + s.rp);
    b.open_row = -1;
  }
  return data_end;
}

// ---- Request queue (sim/DRAM.md, "Request queue") ----

uint64_t DramController::submit(const DramRequest& q) {
  const uint64_t id = m_next_id;
  if (q.bytes == 0 || q.arrival < std::max(m_reached, m_last_arrival)) {
    throw std::invalid_argument(fmt::format(
        "DRAM request {} (address {:#x}, {} bytes, arrival {}): {}", id, q.addr, q.bytes, q.arrival,
        q.bytes == 0 ? "no bytes"
                     : fmt::format("arrives before cycle {}, which the controller has reached",
                                   std::max(m_reached, m_last_arrival))));
  }
  ++m_next_id;
  m_last_arrival = q.arrival;
  RunQueue runs;
  split(q.addr, q.bytes, q.write, q.arrival, id, runs);
  RequestState st;
  st.done =
      DramCompletion{id, q.source, q.write, q.arrival, std::numeric_limits<int64_t>::max(), 0};
  for (Run r : runs) {  // one entry per column access: the run's columns, in order
    const int64_t n = r.left;
    st.left += static_cast<uint64_t>(n);
    r.left = 1;
    for (int64_t j = 0; j < n; ++j, ++r.loc.column) {
      m_pending.push_back(r);
    }
  }
  m_requests.emplace(id, st);
  return id;
}

void DramController::run_until(int64_t ck) {
  while (queue_step(ck)) {
  }
  m_reached = std::max(m_reached, ck);
}

void DramController::drain() {
  while (!m_pending.empty()) {
    queue_step(std::numeric_limits<int64_t>::max());
  }
}

std::vector<DramCompletion> DramController::take_completions() {
  std::vector<DramCompletion> out;
  out.swap(m_completions);
  return out;
}

int64_t DramController::next_event() {
  int64_t t = std::numeric_limits<int64_t>::max();
  for (const Channel& c : m_channels) {
    for (const Rank& r : c.ranks) {
      t = std::min(t, r.next_ref - (r.owed >= kMaxPostponedRefreshes ? refresh_lead() : 0));
    }
  }
  const size_t w = window();
  const int64_t first = scan_window(w);
  if (w == 0 || first > m_now) {
    return std::min(t, first);
  }
  choose_direction();
  for (size_t k = 0; k < w; ++k) {
    if (m_pending[k].write == m_write_mode) {
      t = std::min(t, next_command(k).ck);
    }
  }
  return t;
}

// One decision: a refresh interval that begins before the next command, the clock moved to
// the first arrival, or the command that can issue first (row hits before others, then the
// oldest) among the window's accesses of the current direction. False: nothing before `limit`.
bool DramController::queue_step(int64_t limit) {
  const size_t w = window();
  const int64_t first = scan_window(w);
  if (w == 0 || first > m_now) {  // nothing has arrived: refreshes, then the next arrival
    const int64_t until = std::min(first, limit);
    if (refresh_before(until, w)) {
      return true;
    }
    m_now = w == 0 || first >= limit ? m_now : first;
    return w != 0 && first < limit;
  }
  choose_direction();
  Candidate best;
  for (size_t k = 0; k < w; ++k) {
    if (m_pending[k].write != m_write_mode) {
      continue;
    }
    const Candidate c = next_command(k);
    const bool column = c.kind == DramCommand::kRead || c.kind == DramCommand::kWrite;
    const bool best_column = best.kind == DramCommand::kRead || best.kind == DramCommand::kWrite;
    if (c.ck < best.ck || (c.ck == best.ck && column && !best_column)) {
      best = c;
    }
  }
  if (best.ck == std::numeric_limits<int64_t>::max()) {
    throw std::logic_error("DRAM request queue: no command can issue");  // a scheduler bug
  }
  if (refresh_before(std::min(best.ck + 1, limit), w)) {
    return true;
  }
  if (best.ck >= limit) {
    return false;
  }
  issue(best);
  return true;
}

// Reads first; writes are drained once half the window holds writes (or no read waits) until
// at most an eighth does (or no write waits) and a read waits. Only what has arrived by now
// counts as waiting (queue_step has made sure something has; scan_window counted them).
void DramController::choose_direction() {
  const int reads = m_arrived[0], writes = m_arrived[1];
  const bool read_here = reads > 0, write_here = writes > 0;
  const int high = std::max(1, m_spec.queue_depth / 2);
  const int low = m_spec.queue_depth / 8;
  // Stable: deciding twice at the same cycle gives the same direction.
  if (m_write_mode) {
    m_write_mode = !(read_here && (!write_here || writes <= low));
  } else {
    m_write_mode = write_here && (!read_here || writes >= high);
  }
}

// The next command of access m_pending[k] and its earliest cycle: READ/WRITE on a row hit,
// ACT on a precharged bank, PRE on another open row - unless an access of the current
// direction in the window that has arrived by then hits that row (it goes first: no cycle).
DramController::Candidate DramController::next_command(size_t k) const {
  const Run& a = m_pending[k];
  const Channel& c = m_channels[static_cast<size_t>(a.loc.channel)];
  const Rank& r = c.ranks[static_cast<size_t>(a.loc.rank)];
  const Bank& b = bank(a);
  const int64_t t = std::max(a.arrival, m_now);
  Candidate x;
  x.index = k;
  if (b.open_row == a.loc.row) {
    x.kind = a.write ? DramCommand::kWrite : DramCommand::kRead;
    x.ck = column_cycle(c, r, b, a, t);
  } else if (b.open_row >= 0) {
    const size_t f = 2 * flat_bank(a.loc) + (m_write_mode ? 1 : 0);
    const int64_t pre = std::max(t, b.next_pre);
    if (m_hit_mark[f] != m_mark || m_hit_arrival[f] > pre) {
      x.kind = DramCommand::kPre;
      x.ck = pre;
    }
  } else {
    x.kind = DramCommand::kAct;
    x.ck = act_cycle(r, b, a.loc, t);
  }
  return x;
}

// One pass over the window: its first arrival (returned), the reads and writes that have
// arrived by now, and per bank and direction the first arrival of an access that hits its open
// row (a PRE from then on would close it under that access).
int64_t DramController::scan_window(size_t window) {
  ++m_mark;
  const int count = m_spec.channels * m_spec.ranks * m_spec.bank_groups * m_spec.banks;
  const auto banks = static_cast<size_t>(count);
  m_hit_mark.resize(2 * banks);
  m_hit_arrival.resize(2 * banks);
  m_arrived = {0, 0};
  int64_t first = std::numeric_limits<int64_t>::max();
  for (size_t k = 0; k < window; ++k) {
    const Run& a = m_pending[k];
    first = std::min(first, a.arrival);
    m_arrived[a.write ? 1 : 0] += a.arrival <= m_now ? 1 : 0;
    if (bank(a).open_row == a.loc.row) {
      const size_t f = 2 * flat_bank(a.loc) + (a.write ? 1 : 0);
      m_hit_arrival[f] =
          m_hit_mark[f] == m_mark ? std::min(m_hit_arrival[f], a.arrival) : a.arrival;
      m_hit_mark[f] = m_mark;
    }
  }
  return first;
}

// Some access among the first `window` (of the current direction unless `any_dir`) is to
// row `row` of the bank of `l`.
bool DramController::pending_hit(const DramLocation& l, int64_t row, size_t window,
                                 bool any_dir) const {
  for (size_t k = 0; k < window; ++k) {
    const Run& a = m_pending[k];
    if (a.loc.row == row && a.loc.bank == l.bank && a.loc.bank_group == l.bank_group &&
        a.loc.rank == l.rank && a.loc.channel == l.channel &&
        (any_dir || a.write == m_write_mode)) {
      return true;
    }
  }
  return false;
}

// Every refresh interval of every rank that begins before `horizon`: postponed while the rank
// has arrived work and fewer than eight are owed; otherwise one REF (busy, eight owed) or all
// owed ones (idle). With eight owed the next one is due without fail: it starts early enough
// (refresh_lead) for its REF to be on time, 9 tREFI after the last. True if there was one.
bool DramController::refresh_before(int64_t horizon, size_t window) {
  bool any = false;
  for (size_t ch = 0; ch < m_channels.size(); ++ch) {
    for (size_t ra = 0; ra < m_channels[ch].ranks.size(); ++ra) {
      Rank& r = m_channels[ch].ranks[ra];
      for (;;) {
        const int64_t lead = r.owed >= kMaxPostponedRefreshes ? refresh_lead() : 0;
        const int64_t start = r.next_ref - lead;
        if (start >= horizon) {
          break;
        }
        r.next_ref += m_spec.refi;
        any = true;
        const bool busy = rank_busy(static_cast<int>(ch), static_cast<int>(ra), start, window);
        if (busy && r.owed < kMaxPostponedRefreshes) {
          ++r.owed;
          ++m_counters.refreshes_postponed;
          continue;
        }
        const int n = busy ? 1 : r.owed + 1;
        r.owed = busy ? r.owed : 0;
        for (int j = 0; j < n; ++j) {
          issue_refresh(r, static_cast<int>(ch), static_cast<int>(ra), std::max(start, m_now));
        }
      }
    }
  }
  return any;
}

// The longest a refresh may wait from its start for its REF: an ACT or a WRITE just before
// (tRAS, or the write data and tWR), then tRP; or tRC after an ACT.
int64_t DramController::refresh_lead() const {
  const DramSpec& s = m_spec;
  const int64_t close = std::max({s.ras, s.cwl + s.burst_ck() + s.wr, s.rtp});
  return std::max(close + s.rp, int64_t{s.rc});
}

bool DramController::rank_busy(int ch, int rank, int64_t t, size_t window) const {
  for (size_t k = 0; k < window; ++k) {
    const Run& a = m_pending[k];
    if (a.loc.channel == ch && a.loc.rank == rank && a.arrival <= t) {
      return true;
    }
  }
  return false;
}

void DramController::issue(const Candidate& x) {
  Run& a = m_pending[x.index];
  Channel& c = m_channels[static_cast<size_t>(a.loc.channel)];
  Rank& r = c.ranks[static_cast<size_t>(a.loc.rank)];
  Bank& b = bank(a);
  m_now = x.ck;
  if (x.kind == DramCommand::kPre) {
    log(DramCommand::kPre, x.ck, a.loc, b.open_row);
    ++m_counters.precharges;
    b.open_row = -1;
    b.next_act = std::max(b.next_act, x.ck + m_spec.rp);
    a.opened = 2;
  } else if (x.kind == DramCommand::kAct) {
    activate(r, b, a.loc, x.ck);
    a.opened = std::max<uint8_t>(a.opened, 1);
  } else {
    issue_column(x.index);
  }
}

// The READ/WRITE of m_pending[k] at the clock: the access is served (its request completes
// with its last one); closed page: the row closes unless another waiting access hits it.
void DramController::issue_column(size_t k) {
  const Run a = m_pending[k];
  Channel& c = m_channels[static_cast<size_t>(a.loc.channel)];
  Rank& r = c.ranks[static_cast<size_t>(a.loc.rank)];
  Bank& b = bank(a);
  const int64_t end = column_access(c, r, b, a, m_now);
  uint64_t& kind = a.opened == 0   ? m_counters.row_hits
                   : a.opened == 1 ? m_counters.row_misses
                                   : m_counters.row_conflicts;
  ++kind;
  m_pending.erase(m_pending.begin() + static_cast<std::ptrdiff_t>(k));
  if (!m_spec.open_page && !pending_hit(a.loc, a.loc.row, window(), true)) {
    log(DramCommand::kPre, b.next_pre, a.loc, b.open_row);  // auto-precharge
    ++m_counters.precharges;
    b.next_act = std::max(b.next_act, b.next_pre + m_spec.rp);
    b.open_row = -1;
  }
  const auto it = m_requests.find(a.order);
  RequestState& q = it->second;
  q.done.first_end = std::min(q.done.first_end, end);
  q.done.last_end = std::max(q.done.last_end, end);
  if (--q.left == 0) {
    m_completions.push_back(q.done);
    m_requests.erase(it);
  }
}

}  // namespace vta
