#include "vta/sim/dram_controller.h"

#include <algorithm>
#include <string>

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
  m_atom_bits = log2i(spec.atom_bytes());
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
      r.next_ref = s.refi;
    }
  }
  m_writes.clear();
}

DramLocation DramController::decode(uint64_t addr) const {
  uint64_t a = addr >> m_atom_bits;
  std::array<int64_t, 6> v{};
  for (int f : m_field_order) {
    const int bits = m_field_bits[static_cast<size_t>(f)];
    v[static_cast<size_t>(f)] = static_cast<int64_t>(a & ((uint64_t{1} << bits) - 1));
    a >>= bits;
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

// The column accesses of [addr, addr + bytes), in address order.
void DramController::split(uint64_t addr, uint64_t bytes, bool write, int64_t arrival,
                           uint64_t order, std::deque<Access>& out) const {
  const uint64_t atom = static_cast<uint64_t>(m_spec.atom_bytes());
  const size_t first = out.size();
  for (uint64_t a = addr / atom * atom; a < addr + bytes; a += atom) {
    Access x;
    x.loc = decode(a);
    x.write = write;
    x.arrival = arrival;
    x.order = order;
    out.push_back(x);
  }
  // Closed page keeps a row open while the next access of the same request needs it.
  for (size_t k = first; k + 1 < out.size(); ++k) {
    const DramLocation& p = out[k].loc;
    const DramLocation& q = out[k + 1].loc;
    out[k].close_after = !(p.channel == q.channel && p.rank == q.rank &&
                           p.bank_group == q.bank_group && p.bank == q.bank && p.row == q.row);
  }
}

void DramController::post_write(uint64_t addr, uint64_t bytes, int64_t arrival, uint64_t order) {
  split(addr, bytes, true, arrival, order, m_writes);
}

void DramController::drain_writes() {
  while (!m_writes.empty()) {
    const size_t k = pick(m_writes);
    const Access a = m_writes[k];
    m_writes.erase(m_writes.begin() + static_cast<std::ptrdiff_t>(k));
    serve(a);
  }
}

DramReadTiming DramController::read(uint64_t addr, uint64_t bytes, int64_t arrival,
                                    uint64_t order) {
  const bool writes_waiting = !m_writes.empty() && m_writes.front().order < order;
  if (!writes_waiting && m_log == nullptr && bytes > 0) {
    DramReadTiming fast;
    if (read_one_row(addr, bytes, arrival, order, fast)) {
      return fast;
    }
  }
  // The waiting accesses, oldest first: the writes granted before this read, then its own.
  std::deque<Access> queue;
  while (!m_writes.empty() && m_writes.front().order < order) {
    queue.push_back(m_writes.front());
    m_writes.pop_front();
  }
  const size_t n_writes = queue.size();
  split(addr, bytes, false, arrival, order, queue);
  size_t reads_left = queue.size() - n_writes;
  DramReadTiming t;
  bool first = true;
  while (reads_left > 0) {
    const size_t k = pick(queue);
    const Access a = queue[k];
    queue.erase(queue.begin() + static_cast<std::ptrdiff_t>(k));
    const int64_t end = serve(a);
    if (!a.write) {
      t.first_end = first ? end : std::min(t.first_end, end);
      t.last_end = std::max(t.last_end, end);
      first = false;
      --reads_left;
    }
  }
  // Writes the scheduler left for later stay queued, ahead of the ones posted after them.
  for (auto it = queue.rbegin(); it != queue.rend(); ++it) {
    m_writes.push_front(*it);
  }
  return t;
}

// The common case of streaming DMA, in closed form: a read whose accesses all fall in one row
// of one bank, with no write waiting. The first access is served as usual; every next one is a
// row hit whose READ follows the previous by max(tCCD_L, BL/2) (the data bus). Returns false,
// having changed nothing, when the read is not such a case or a refresh falls due on the way.
bool DramController::read_one_row(uint64_t addr, uint64_t bytes, int64_t arrival, uint64_t order,
                                  DramReadTiming& out) {
  const DramSpec& s = m_spec;
  const uint64_t atom = static_cast<uint64_t>(s.atom_bytes());
  const uint64_t a0 = addr / atom * atom;
  const auto n = static_cast<int64_t>((addr + bytes - a0 + atom - 1) / atom);
  Access first;
  first.loc = decode(a0);
  first.arrival = arrival;
  first.order = order;
  first.close_after = n == 1;
  const DramLocation& f = first.loc;
  const DramLocation l = decode(a0 + static_cast<uint64_t>(n - 1) * atom);
  if (!s.open_page || f.channel != l.channel || f.rank != l.rank || f.bank_group != l.bank_group ||
      f.bank != l.bank || f.row != l.row || l.column - f.column != n - 1) {
    return false;
  }
  Channel& c = m_channels[static_cast<size_t>(f.channel)];
  Rank& r = c.ranks[static_cast<size_t>(f.rank)];
  const int64_t step = std::max(s.ccd_l_ck(), s.burst_ck());
  out.first_end = serve(first);
  const int64_t col0 = c.last_col;
  // Access k >= 1 probes for a refresh at the previous READ, col0 + (k - 1) * step.
  if (n > 1 && col0 + (n - 2) * step >= r.next_ref) {
    // Rare: a refresh falls inside the read. The rest as the general path serves them.
    for (int64_t k = 1; k < n; ++k) {
      Access x = first;
      x.loc = decode(a0 + static_cast<uint64_t>(k) * atom);
      x.close_after = k == n - 1;
      out.last_end = serve(x);
    }
    return true;
  }
  out.last_end = out.first_end;
  if (n == 1) {
    return true;
  }
  Bank& b = r.banks[static_cast<size_t>(f.bank_group * s.banks + f.bank)];
  const int64_t col = col0 + (n - 1) * step;
  out.last_end = col + s.cl + s.burst_ck();
  c.data_free = out.last_end;
  c.last_col = c.last_rd = col;
  b.next_pre = std::max(b.next_pre, col + s.rtp);
  const auto more = static_cast<uint64_t>(n - 1);
  m_counters.reads += more;
  m_counters.row_hits += more;
  m_counters.bytes += more * static_cast<uint64_t>(s.atom_bytes());
  return true;
}

// FCFS: the oldest access. FR-FCFS: the oldest row hit among the first DRAM_QUEUE_DEPTH
// accesses that have arrived by the time the oldest could start, else the oldest.
size_t DramController::pick(const std::deque<Access>& queue) const {
  if (!m_spec.frfcfs) {
    return 0;
  }
  const Access& oldest = queue.front();
  const int64_t now =
      std::max(oldest.arrival, m_channels[static_cast<size_t>(oldest.loc.channel)].last_col);
  const size_t window = std::min(queue.size(), static_cast<size_t>(m_spec.queue_depth));
  for (size_t k = 0; k < window; ++k) {
    const Access& a = queue[k];
    const Rank& r =
        m_channels[static_cast<size_t>(a.loc.channel)].ranks[static_cast<size_t>(a.loc.rank)];
    const Bank& b = r.banks[static_cast<size_t>(a.loc.bank_group * m_spec.banks + a.loc.bank)];
    if (a.arrival <= now && b.open_row == a.loc.row) {
      return k;
    }
  }
  return 0;
}

void DramController::log(DramCommand::Kind k, int64_t ck, const DramLocation& l, int64_t row) {
  if (m_log != nullptr) {
    m_log->push_back(
        DramCommand{k, ck, l.channel, l.rank, l.bank_group * m_spec.banks + l.bank, row});
  }
}

// All-bank refresh of `rank` for every tREFI interval that began by cycle `t`: precharge all
// (after each open bank's tRAS/tRTP/tWR), REF tRP later (once every bank may be activated),
// no ACT until tRFC after the REF.
void DramController::refresh_due(Channel& /*c*/, Rank& r, int ch, int rank, int64_t t) {
  while (t >= r.next_ref) {
    int64_t pre = r.next_ref;
    bool any_open = false;
    int64_t ready = r.next_ref;
    for (const Bank& b : r.banks) {
      if (b.open_row >= 0) {
        pre = std::max(pre, b.next_pre);
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
    r.next_ref += m_spec.refi;
    ++m_counters.refreshes;
  }
}

// PRE (row conflict) and ACT for access `a` to a bank without its row open; returns the ACT
// cycle.
int64_t DramController::open_row(Rank& r, Bank& b, const Access& a, int64_t t) {
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
  const size_t bg = static_cast<size_t>(a.loc.bank_group);
  int64_t act = std::max(t, b.next_act);
  if (r.last_act >= 0) {
    act = std::max(act, r.last_act + s.rrd);
  }
  if (r.last_act_bg[bg] >= 0) {
    act = std::max(act, r.last_act_bg[bg] + s.rrd_l_ck());
  }
  if (r.acts >= 4) {
    act = std::max(act, r.faw[r.faw_next] + s.faw);  // the fourth ACT back
  }
  log(DramCommand::kAct, act, a.loc, a.loc.row);
  ++m_counters.activates;
  r.faw[r.faw_next] = act;
  r.faw_next = (r.faw_next + 1) % r.faw.size();
  ++r.acts;
  r.last_act = r.last_act_bg[bg] = act;
  b.open_row = a.loc.row;
  b.next_col = act + s.rcd;
  b.next_pre = act + s.ras;
  b.next_act = act + s.rc;
  return act;
}

// The earliest READ/WRITE of `a` from cycle `t` on: tRCD, tCCD(_L), tWTR, tRTW, and a data
// bus that is free when its data would start (CL / CWL later).
int64_t DramController::column_cycle(const Channel& c, const Rank& r, const Bank& b,
                                     const Access& a, int64_t t) const {
  const DramSpec& s = m_spec;
  int64_t col = std::max(t, b.next_col);
  if (c.last_col >= 0) {
    col = std::max(col, c.last_col + (c.last_col_bg == a.loc.bank_group ? s.ccd_l_ck() : s.ccd));
  }
  if (a.write) {
    if (c.last_rd >= 0) {
      col = std::max(col, c.last_rd + s.rtw_ck());
    }
    col = std::max(col, c.data_free - s.cwl);
  } else {
    if (r.wr_data_end >= 0) {
      col = std::max(col, r.wr_data_end + s.wtr);
    }
    col = std::max(col, c.data_free - s.cl);
  }
  return col;
}

int64_t DramController::serve(const Access& a) {
  const DramSpec& s = m_spec;
  Channel& c = m_channels[static_cast<size_t>(a.loc.channel)];
  Rank& r = c.ranks[static_cast<size_t>(a.loc.rank)];
  Bank& b = r.banks[static_cast<size_t>(a.loc.bank_group * s.banks + a.loc.bank)];
  int64_t t = a.arrival;
  if (!s.frfcfs) {
    t = std::max(t, c.last_col);  // in order: nothing before the previous column command
  }
  // A refresh due before this access can start (its arrival, or the channel's last column
  // command when the queue is backed up) comes first.
  refresh_due(c, r, a.loc.channel, a.loc.rank, std::max(t, c.last_col));
  t = std::max(t, r.ref_done);
  if (b.open_row == a.loc.row) {
    ++m_counters.row_hits;
  } else {
    open_row(r, b, a, t);
  }
  const int64_t col = column_cycle(c, r, b, a, t);
  const int64_t data_start = col + (a.write ? s.cwl : s.cl);
  const int64_t data_end = data_start + s.burst_ck();
  log(a.write ? DramCommand::kWrite : DramCommand::kRead, col, a.loc, a.loc.row);
  c.data_free = data_end;
  c.last_col = col;
  c.last_col_bg = a.loc.bank_group;
  if (a.write) {
    r.wr_data_end = data_end;
    b.next_pre = std::max(b.next_pre, data_end + s.wr);
    ++m_counters.writes;
  } else {
    c.last_rd = col;
    b.next_pre = std::max(b.next_pre, col + s.rtp);
    ++m_counters.reads;
  }
  m_counters.bytes += static_cast<uint64_t>(s.atom_bytes());
  if (!s.open_page && a.close_after) {
    log(DramCommand::kPre, b.next_pre, a.loc, b.open_row);
    ++m_counters.precharges;
    b.next_act = std::max(b.next_act, b.next_pre + s.rp);
    b.open_row = -1;
  }
  return data_end;
}

}  // namespace vta
