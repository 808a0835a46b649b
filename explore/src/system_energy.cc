#include "vta/explore/system_energy.h"

#include <algorithm>
#include <string>

#include <fmt/format.h>

#include "vta/sim/isa.h"

namespace vta::explore {

namespace {

double counter(const Stats& s, const std::string& name) {
  const NamedCounter* c = s.find(name);
  return c != nullptr ? c->value : 0.0;
}

uint64_t count(const Stats& s, const std::string& name) {
  return static_cast<uint64_t>(counter(s, name));
}

// DRAM bytes of a core's counters: its loads, its instructions and its stores.
double dram_bytes(const Stats& s) {
  uint64_t insns = 0;
  for (uint64_t n : s.insn_count) {
    insns += n;
  }
  return static_cast<double>(s.inp_load_nbytes + s.wgt_load_nbytes + s.acc_load_nbytes +
                             s.uop_load_nbytes + s.out_store_nbytes) +
         static_cast<double>(insns) * kInsnBytes;
}

// a - b for the counts the energy model reads (never below 0); the instructions by their total,
// since core k's are known only as a count (its fetch bytes).
uint64_t less(uint64_t a, uint64_t b) {
  return a > b ? a - b : 0;
}

void subtract_counts(Stats& s, const Stats& o) {
  s.inp_load_nbytes = less(s.inp_load_nbytes, o.inp_load_nbytes);
  s.wgt_load_nbytes = less(s.wgt_load_nbytes, o.wgt_load_nbytes);
  s.acc_load_nbytes = less(s.acc_load_nbytes, o.acc_load_nbytes);
  s.uop_load_nbytes = less(s.uop_load_nbytes, o.uop_load_nbytes);
  s.out_store_nbytes = less(s.out_store_nbytes, o.out_store_nbytes);
  s.gemm_counter = less(s.gemm_counter, o.gemm_counter);
  s.alu_counter = less(s.alu_counter, o.alu_counter);
  s.runs = less(s.runs, o.runs);
  uint64_t insns = 0;
  for (uint64_t n : o.insn_count) {
    insns += n;
  }
  for (uint64_t& n : s.insn_count) {
    const uint64_t take = std::min(n, insns);
    n -= take;
    insns -= take;
  }
}

}  // namespace

Stats core_counters(const HwConfig& cfg, const Stats& system, int k, CoreCounts counts) {
  (void)cfg.core_config(k);  // names a core that does not exist
  const NamedCounter* sys_cycles = system.find("system.cycles");
  Stats s;
  if (k == 0) {
    s = system;
    for (int j = 1; counts == CoreCounts::kSummed && j < cfg.num_cores(); ++j) {
      subtract_counts(s, core_counters(cfg, system, j));
    }
  } else {
    const std::string p = fmt::format("core{}.", k);
    s.inp_load_nbytes = count(system, p + "inp_load_nbytes");
    s.wgt_load_nbytes = count(system, p + "wgt_load_nbytes");
    s.acc_load_nbytes = count(system, p + "acc_load_nbytes");
    s.uop_load_nbytes = count(system, p + "uop_load_nbytes");
    s.out_store_nbytes = count(system, p + "out_store_nbytes");
    s.gemm_counter = count(system, p + "gemm_counter");
    s.alu_counter = count(system, p + "alu_counter");
    s.runs = count(system, p + "runs");
    s.timed = system.timed;
    // The instruction fetch: its bytes as instructions (the energy model counts 16 B each).
    s.insn_count[0] = count(system, p + "mem.fetch.read_bytes") / kInsnBytes;
  }
  s.extra.clear();
  if (sys_cycles != nullptr) {
    s.cycles = static_cast<uint64_t>(sys_cycles->value);
  }
  return s;
}

SystemEnergy estimate_system_energy(const HwConfig& cfg, const Stats& s, CoreCounts counts) {
  SystemEnergy out;
  if (cfg.cores == 0) {
    out.total = estimate_energy(cfg, s);
    out.core_joules.push_back(out.total.total_joules());
    return out;
  }
  for (int k = 0; k < cfg.num_cores(); ++k) {
    const Stats c = core_counters(cfg, s, k, counts);
    const EnergyEstimate e = estimate_energy(cfg.core_config(k), c);
    out.core_joules.push_back(e.total_joules());
    out.interconnect_bytes += dram_bytes(c);
    if (k == 0) {
      out.total = e;
      continue;
    }
    for (const EnergyPart& part : e.parts) {
      bool found = false;
      for (EnergyPart& t : out.total.parts) {
        if (t.name == part.name) {
          t.joules += part.joules;
          found = true;
        }
      }
      if (!found) {
        out.total.parts.push_back(part);
      }
    }
    for (const std::string& x : e.extrapolated) {
      out.total.extrapolated.push_back(fmt::format("core {}: {}", k, x));
    }
  }
  out.total.parts.push_back(
      {"interconnect", out.interconnect_bytes * kInterconnectPjPerByte * 1e-12});
  return out;
}

}  // namespace vta::explore
