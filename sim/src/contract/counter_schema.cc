#include "vta/sim/contract/counter_schema.h"

#include <algorithm>

#include <fmt/format.h>

#include "vta/sim/insn_check.h"
#include "vta/sim/token_queues.h"

namespace vta {

namespace {

double num(uint64_t v) {
  return static_cast<double>(v);
}

// Sets a named counter to `value` (ratios do not add up over runs).
void set_counter(Stats& stats, const std::string& name, double value, const std::string& unit,
                 const std::string& description) {
  for (NamedCounter& c : stats.extra) {
    if (c.name == name) {
      c.value = value;
      return;
    }
  }
  stats.add(name, value, unit, description);
}

double counter_value(const Stats& stats, const std::string& name) {
  const NamedCounter* c = stats.find(name);
  return c != nullptr ? c->value : 0.0;
}

void publish_unit(Stats& st, Stage s, const TimedCounters::Unit& u) {
  const std::string n = stage_unit_name(s);
  st.add(n + ".busy_cycles", num(u.busy), "cycles", "cycles executing instructions");
  // Not under "<unit>.": the unit's counters there are cycles that partition the run.
  st.add("insns." + n, num(u.insns), "instructions", "instructions executed by the unit");
  st.add(n + ".idle_cycles", num(u.idle), "cycles", "cycles with no instruction in the queue");
  for (int q : {kPopPrev[s], kPopNext[s]}) {
    if (q >= 0) {
      st.add(fmt::format("{}.stall_{}_cycles", n, kTokenQueueName[q]),
             num(u.stall_token[static_cast<size_t>(q)]), "cycles",
             fmt::format("cycles waiting for a token on {}", kTokenQueueName[q]));
    }
  }
  for (int q : {kPushPrev[s], kPushNext[s]}) {
    if (q >= 0) {
      st.add(fmt::format("{}.stall_{}_full_cycles", n, kTokenQueueName[q]),
             num(u.stall_full[static_cast<size_t>(q)]), "cycles",
             fmt::format("cycles waiting for room in the full queue {}", kTokenQueueName[q]));
    }
  }
  st.add(n + ".mem_stall_cycles", num(u.mem_stall), "cycles",
         "busy cycles of DMA instructions spent waiting on memory");
}

// Latency of a client's bursts: the total adds up over runs; the mean and the maximum are over
// everything since the last clear.
void publish_latency(Stats& st, const std::string& prefix, const TimedCounters::Traffic& m,
                     const std::string& what) {
  st.add(prefix + "_latency_total_cycles", num(m.latency_sum), "cycles",
         fmt::format("{}, summed", what));
  const NamedCounter* max = st.find(prefix + "_latency_max_cycles");
  set_counter(st, prefix + "_latency_max_cycles",
              std::max(max != nullptr ? max->value : 0.0, num(m.latency_max)), "cycles",
              fmt::format("longest: {}", what));
  const std::string bursts = prefix.substr(0, prefix.rfind('.')) + ".bursts";
  const double n = counter_value(st, bursts);
  set_counter(st, prefix + "_latency_avg_cycles",
              n > 0 ? counter_value(st, prefix + "_latency_total_cycles") / n : 0.0, "cycles",
              fmt::format("mean: {}", what));
}

void publish_traffic(Stats& st, const TimedCounters& c) {
  uint64_t read_beats = 0, read_bytes = 0;
  for (int k = 0; k < kNumReadClients; ++k) {
    const TimedCounters::Traffic& m = c.read[static_cast<size_t>(k)];
    if (c.exact_bytes) {
      st.add(fmt::format("mem.{}.read_bytes", kReadClientName[k]), num(m.bytes), "bytes",
             fmt::format("bytes read by the {} client", kReadClientName[k]));
    }
    st.add(fmt::format("mem.{}.bursts", kReadClientName[k]), num(m.bursts), "bursts",
           fmt::format("read bursts granted to the {} client", kReadClientName[k]));
    publish_latency(
        st, fmt::format("mem.{}.read", kReadClientName[k]), m,
        fmt::format("{} read bursts, cycles from grant to the last beat", kReadClientName[k]));
    read_beats += m.beats;
    read_bytes += m.bytes;
  }
  if (c.exact_bytes) {
    st.add("mem.store.write_bytes", num(c.write.bytes), "bytes", "bytes written by STORE");
  }
  st.add("mem.store.bursts", num(c.write.bursts), "bursts", "write bursts");
  publish_latency(st, "mem.store.write", c.write,
                  "write bursts, cycles from grant to the write response");
  st.add("mem.read_beats", num(read_beats), "beats", "read data beats");
  st.add("mem.write_beats", num(c.write.beats), "beats", "write data beats");
  if (c.exact_bytes) {
    st.add("mem.read_bytes", num(read_bytes), "bytes", "bytes read, all clients");
  }
}

// The DRAM device's counters (memory model "dram"); latency and bandwidth share are ratios
// over everything since the last clear.
void publish_dram(Stats& st, const TimedCounters::Dram& d) {
  st.add("dram.activates", num(d.activates), "commands", "DRAM row activations (ACT)");
  st.add("dram.refreshes", num(d.refreshes), "commands", "DRAM all-bank refreshes (REF)");
  st.add("dram.row_hits", num(d.row_hits), "accesses", "column accesses to an open row");
  st.add("dram.row_misses", num(d.row_misses), "accesses",
         "column accesses to a precharged bank (ACT)");
  st.add("dram.row_conflicts", num(d.row_conflicts), "accesses",
         "column accesses to a bank with another row open (PRE + ACT)");
  st.add("dram.bus_bytes", num(d.bytes), "bytes", "bytes moved on the DRAM data bus");
  st.add("dram.read_bursts", num(d.read_bursts), "bursts", "core read bursts served by DRAM");
  st.add("dram.read_latency_total_cycles", num(d.read_latency_sum), "cycles",
         "read bursts: cycles from grant to the last data beat, summed");
  const NamedCounter* max = st.find("dram.read_latency_max_cycles");
  set_counter(st, "dram.read_latency_max_cycles",
              std::max(max != nullptr ? max->value : 0.0, num(d.read_latency_max)), "cycles",
              "longest read burst, grant to last data beat");
  const double bursts = counter_value(st, "dram.read_bursts");
  set_counter(st, "dram.read_latency_avg_cycles",
              bursts > 0 ? counter_value(st, "dram.read_latency_total_cycles") / bursts : 0.0,
              "cycles", "mean read burst latency, grant to last data beat");
  const double peak = d.peak_bytes_per_cycle * (st.cycles > 0 ? num(st.cycles) : 1.0);
  set_counter(st, "dram.bandwidth_utilization", counter_value(st, "dram.bus_bytes") / peak, "ratio",
              "dram.bus_bytes / (cycles * peak DRAM bytes per cycle)");
}

}  // namespace

void publish_counters(Stats& st, const TimedCounters& c) {
  st.add("fetch.active_cycles", num(c.fetch_active), "cycles",
         "cycles from run start to the last instruction dispatch");
  st.add("fetch.stall_queue_full_cycles", num(c.fetch_stall_queue_full), "cycles",
         "cycles an instruction waited for room in its unit's instruction queue");
  for (int s = kStageLoad; s <= kStageStore; ++s) {
    publish_unit(st, static_cast<Stage>(s), c.unit[static_cast<size_t>(s - 1)]);
  }
  publish_traffic(st, c);
  if (c.dram.present) {
    publish_dram(st, c.dram);
  }
  st.add("gemm.active_cycles", num(c.gemm_active), "cycles",
         "uop iterations issued by non-reset GEMMs");
  st.add("alu.active_cycles", num(c.alu_active), "cycles", "ALU issue cycles");
  // Ratios over everything run since the last clear.
  const double total = st.cycles > 0 ? num(st.cycles) : 1.0;
  set_counter(st, "gemm.utilization", counter_value(st, "gemm.active_cycles") / total, "ratio",
              "gemm.active_cycles / cycles");
  if (c.exact_bytes) {
    set_counter(st, "mem.read_bandwidth", counter_value(st, "mem.read_bytes") / total,
                "bytes/cycle", "bytes read per cycle");
    set_counter(st, "mem.write_bandwidth", counter_value(st, "mem.store.write_bytes") / total,
                "bytes/cycle", "bytes written per cycle");
  }
}

}  // namespace vta
