// DRAM controller bandwidth: what the request queue (FR-FCFS over DRAM_QUEUE_DEPTH waiting
// accesses) achieves on random reads, sequential reads and writes and a read/write mix, next to
// the bound the parameter set allows and to the same requests answered one at a time in
// arrival order (DramController::read / post_write, what the cycle and rtl models use), with
// DRAM_REQUEST_ORDER "in_order" (the default) and "out_of_order" (a later request's commands
// fitted between the earlier ones').
// Requests are injected open loop at the peak rate (one burst per BL/2 DRAM cycles).
// Usage: bench_dram [requests, default 200000] [queue depth, default the spec's]. Prints
// figures; asserts nothing about them.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <random>
#include <string>
#include <vector>

#include "vta/sim/dram_controller.h"
#include "vta/sim/dram_spec.h"

using namespace vta;

namespace {

struct Access {
  uint64_t addr = 0, bytes = 0;
  bool write = false;
  int64_t arrival = 0;
};

struct Result {
  double bytes_per_ck = 0;
  double seconds = 0;
};

uint64_t capacity(const DramSpec& s) {
  return static_cast<uint64_t>(s.atom_bytes()) * s.rows * (s.columns / s.burst_length) *
         static_cast<uint64_t>(s.banks * s.bank_groups * s.ranks * s.channels);
}

// `n` requests of `bytes` each: random addresses, or sequential from 0; writes with
// probability `write_share` (sequential: every 1/write_share-th request, in its own region).
std::vector<Access> traffic(const DramSpec& s, int n, uint64_t bytes, bool random,
                            double write_share, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::bernoulli_distribution is_write(write_share);
  std::vector<Access> out;
  uint64_t next_read = 0, next_write = capacity(s) / 2;
  const int64_t gap = s.burst_ck() * static_cast<int64_t>(bytes / s.atom_bytes());
  for (int k = 0; k < n; ++k) {
    Access a;
    a.write = is_write(rng);
    a.bytes = bytes;
    a.arrival = int64_t{k} * gap;
    if (random) {
      a.addr = rng() % capacity(s) / bytes * bytes;
    } else {
      uint64_t& next = a.write ? next_write : next_read;
      a.addr = next;
      next += bytes;
    }
    out.push_back(a);
  }
  return out;
}

Result run_queue(const DramSpec& s, const std::vector<Access>& as) {
  const std::clock_t t0 = std::clock();
  DramController c(s);
  for (const Access& a : as) {
    DramRequest q;
    q.addr = a.addr, q.bytes = a.bytes, q.write = a.write, q.arrival = a.arrival;
    c.submit(q);
  }
  c.drain();
  int64_t end = 0;
  for (const DramCompletion& d : c.take_completions()) {
    end = std::max(end, d.last_end);
  }
  const double secs = double(std::clock() - t0) / CLOCKS_PER_SEC;  // CPU time
  return {double(c.counters().bytes) / double(end), secs};
}

// The same requests through read / post_write, in arrival order (a final one-burst read at the
// end orders every posted write before it).
Result run_in_order(const DramSpec& s, const std::vector<Access>& as) {
  const std::clock_t t0 = std::clock();
  DramController c(s);
  int64_t end = 0;
  uint64_t order = 0;
  for (const Access& a : as) {
    if (a.write) {
      c.post_write(a.addr, a.bytes, a.arrival, ++order);
    } else {
      end = std::max(end, c.read(a.addr, a.bytes, a.arrival, ++order).last_end);
    }
  }
  end = std::max(end, c.read(0, 1, as.back().arrival, ++order).last_end);
  const double secs = double(std::clock() - t0) / CLOCKS_PER_SEC;  // CPU time
  return {double(c.counters().bytes) / double(end), secs};
}

double gb_per_s(const DramSpec& s, double bytes_per_ck) {
  return bytes_per_ck * 1000.0 / s.tck_ps;
}

void row(const DramSpec& s, const char* what, const std::vector<Access>& as, double bound,
         const char* bound_name) {
  const Result q = run_queue(s, as);
  const Result o = run_in_order(s, as);
  DramSpec reorder = s;
  reorder.out_of_order = true;
  const Result r = run_in_order(reorder, as);
  const double n = double(as.size());
  std::printf(
      "  %-22s queue %6.2f GB/s (%5.1f %% of %s %.2f)  in order %6.2f GB/s (%5.1f %%)"
      "  out of order %6.2f GB/s (%5.1f %%)  [CPU %.0f / %.0f / %.0f ns per request]\n",
      what, gb_per_s(s, q.bytes_per_ck), 100 * q.bytes_per_ck / bound, bound_name,
      gb_per_s(s, bound), gb_per_s(s, o.bytes_per_ck), 100 * o.bytes_per_ck / bound,
      gb_per_s(s, r.bytes_per_ck), 100 * r.bytes_per_ck / bound, 1e9 * q.seconds / n,
      1e9 * o.seconds / n, 1e9 * r.seconds / n);
}

void bench(DramSpec s, const std::string& map, int n, int depth) {
  if (!map.empty()) {
    s.address_map = map;
  }
  if (depth > 0) {
    s.queue_depth = depth;
  }
  const double peak = 2.0 * s.bus_bytes();  // bytes per nCK
  const double per_act = std::max({double(s.rrd), s.faw / 4.0, double(s.burst_ck())});
  const double act_bound = s.atom_bytes() / per_act;
  const double rd_bound = peak * dram_stream_efficiency(s, false);
  const double wr_bound = peak * dram_stream_efficiency(s, true);
  std::printf("%s (%s, map %s, queue depth %d): peak %.2f GB/s\n", s.preset.c_str(),
              s.standard.c_str(), s.address_map.c_str(), s.queue_depth, gb_per_s(s, peak));
  const uint64_t atom = static_cast<uint64_t>(s.atom_bytes());
  row(s, "random reads", traffic(s, n, atom, true, 0, 1), act_bound, "tFAW/tRRD bound");
  row(s, "random 2:1 read/write", traffic(s, n, atom, true, 1.0 / 3, 2), act_bound,
      "tFAW/tRRD bound");
  const int n_seq = std::max(1, n * static_cast<int>(atom) / 2048);
  row(s, "sequential reads", traffic(s, n_seq, 2048, false, 0, 3), rd_bound, "peak x refresh");
  row(s, "sequential writes", traffic(s, n_seq, 2048, false, 1, 4), wr_bound, "peak x refresh");
  row(s, "sequential 2:1 mix", traffic(s, n_seq, 2048, false, 1.0 / 3, 5), rd_bound,
      "peak x refresh");
}

}  // namespace

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 200000;
  const int depth = argc > 2 ? std::atoi(argv[2]) : 0;
  if (n < 1 || depth < 0) {
    std::fprintf(stderr, "usage: bench_dram [requests >= 1] [queue depth >= 1]\n");
    return 2;
  }
  bench(dram_preset("PYNQ-Z1-DDR3-1066-x16", "bench_dram"), "", n, depth);
  bench(dram_preset("ZCU104-DDR4-2400-x64", "bench_dram"), "", n, depth);
  bench(dram_preset("ZCU104-DDR4-2400-x64", "bench_dram"), "RoRaBaCoBgCh", n, depth);
  return 0;
}
