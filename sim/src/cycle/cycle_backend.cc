#include "vta/sim/cycle/cycle_backend.h"

#include <map>
#include <mutex>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "interconnect.h"
#include "vta/sim/cycle/memory_target.h"
#include "vta/sim/cycle/sim_context.h"
#include "vta_core.h"

namespace vta {

using namespace vta::cycle;

// SystemC can free neither a kernel nor its modules, so a destroyed backend's core is parked in a
// pool under its hardware (the config's keys and the memory model) and the next backend of the
// same hardware takes it instead of building one: a process holds at most as many cores per
// hardware as it ever had backends of it alive at once, however many it creates one after the
// other. A core taken from the pool is rebound to its new backend's Dram and Stats and gets
// fresh SRAMs; every run starts from a reset core anyway (sim/README.md section 1), so results
// and cycles are those of a new core. Cores with a MemoryBinder's model are not pooled.
struct CycleBackend::Impl {
  // `model` null: `bind` supplies the memory model. `core_stats(k)`: the Stats of core k.
  Impl(const HwConfig& c, Dram& dram, const std::function<Stats&(int)>& core_stats,
       const MemoryModelEntry* model, const MemoryBinder& bind, std::string key)
      : cfg(c), memory_model(model != nullptr ? model->name : ""), pool_key(std::move(key)) {
    const SimContext::Lock lock = ctx.activate();
    if (cfg.cores == 0) {
      core = std::make_unique<VtaCore>("vta", cfg, dram, core_stats(0), model, bind);
      return;
    }
    build_system(dram, core_stats, model, bind);
  }

  const HwConfig cfg;  // the core's own copy: it outlives the backend that built it
  std::string memory_model;
  std::string pool_key;  // "" = not pooled
  SimContext ctx;
  std::unique_ptr<VtaCore> core;  // core 0
  // CORES (docs/multicore.md): cores 1..N-1, the interconnect and the one memory model.
  std::vector<std::unique_ptr<VtaCore>> more;
  std::unique_ptr<Interconnect> interconnect;
  std::unique_ptr<MemoryTarget> shared_memory;
  int running = 0;  // cores whose run has not ended yet
  uint64_t last_cycles = 0;
  bool idle = true;  // no run inside the kernel (false while one runs or after it broke off)

  // A parked core of this hardware rebound to `dram` and `s`, else a new one.
  static std::unique_ptr<Impl> acquire(const HwConfig& cfg, Dram& dram,
                                       const std::function<Stats&(int)>& core_stats,
                                       const MemoryModelEntry* model, const MemoryBinder& bind);
  // Frees what is big and parks the core (or, if it cannot be reused, leaves it to its kernel).
  static void release(std::unique_ptr<Impl> impl);

  void build_system(Dram& dram, const std::function<Stats&(int)>& core_stats,
                    const MemoryModelEntry* model, const MemoryBinder& bind);
  VtaCore& core_at(size_t k) const { return k == 0 ? *core : *more[k - 1]; }
  size_t num_cores() const { return 1 + more.size(); }
  MemoryTarget* memory() const { return core->memory ? core->memory.get() : shared_memory.get(); }

  std::vector<RunOutcome> run(const std::vector<const LoadedProgram*>& programs,
                              uint64_t wait_cycles, uint64_t& makespan);
  uint64_t begin_run(const std::vector<const LoadedProgram*>& programs);
  void begin_core(VtaCore& c, const LoadedProgram& program, uint64_t base);
  void unwind();
  void end_run(uint64_t run_cycles);
  void rethrow_error(const std::vector<const LoadedProgram*>& programs);
  RunOutcome outcome(size_t k, uint64_t base, uint64_t wait_cycles);
  RunOutcome stuck(const VtaCore& c) const;
  static TimedCounters counters(const VtaCore& c, const MemoryTarget* memory);
};

// The system of docs/multicore.md: the memory model behind the interconnect, each core's memory
// interface bound to one of its target sockets. A core's run ends without pausing the kernel;
// the last one to end (or the first error) pauses it.
void CycleBackend::Impl::build_system(Dram& dram, const std::function<Stats&(int)>& core_stats,
                                      const MemoryModelEntry* model, const MemoryBinder& bind) {
  interconnect = std::make_unique<Interconnect>("interconnect", cfg);
  if (model != nullptr) {
    shared_memory = model->make("dram", cfg, dram);
    interconnect->memory.bind(shared_memory->target_socket());
  } else {
    MemoryPort port{interconnect->memory, cfg, dram};
    bind(port);
  }
  const auto to_interconnect = [this](MemoryPort& port) { port.socket.bind(interconnect->cores); };
  for (int k = 0; k < cfg.cores; ++k) {
    const std::string name = k == 0 ? "vta" : fmt::format("vta{}", k);
    auto c = std::make_unique<VtaCore>(name.c_str(), cfg.core_config(k), dram, core_stats(k),
                                       nullptr, to_interconnect);
    c->mem.set_core_rank(k);
    c->run.set_end_hook([this, raw = c.get()] {
      running -= 1;
      if (running <= 0 || raw->run.error()) {
        sc_core::sc_pause();
      }
    });
    if (k == 0) {
      core = std::move(c);
    } else {
      core->trace.attach_core(c->trace, k);  // one trace and one VCD, on core 0's time
      more.push_back(std::move(c));
    }
  }
}

namespace {

// The parked cores by hardware; never destroyed (destroying a core aborts SystemC).
template <class Core>
std::map<std::string, std::vector<std::unique_ptr<Core>>>& parked_cores() {
  static auto* pool = new std::map<std::string, std::vector<std::unique_ptr<Core>>>;
  return *pool;
}
std::mutex& pool_lock() {
  static std::mutex m;
  return m;
}

// A kernel that has simulated this many cycles is not reused: SystemC time (1 ps resolution,
// 64 bits) ends after 1.8e10 cycles of 1 ns, and a reused core must leave its next backend
// most of that.
constexpr uint64_t kMaxReuseCycles = uint64_t{1} << 33;

}  // namespace

std::unique_ptr<CycleBackend::Impl> CycleBackend::Impl::acquire(
    const HwConfig& cfg, Dram& dram, const std::function<Stats&(int)>& core_stats,
    const MemoryModelEntry* model, const MemoryBinder& bind) {
  if (model == nullptr || cfg.cores != 0) {
    return std::make_unique<Impl>(cfg, dram, core_stats, model, bind, "");
  }
  Stats& s = core_stats(0);
  std::string key = model->name + "\n" + cfg.to_json().dump();
  std::unique_ptr<Impl> impl;
  {
    const std::lock_guard<std::mutex> guard(pool_lock());
    auto& pool = parked_cores<Impl>();
    const auto it = pool.find(key);
    if (it != pool.end() && !it->second.empty()) {
      impl = std::move(it->second.back());
      it->second.pop_back();
    }
  }
  if (!impl) {
    return std::make_unique<Impl>(cfg, dram, core_stats, model, bind, std::move(key));
  }
  const SimContext::Lock lock = impl->ctx.activate();
  VtaCore& c = *impl->core;
  c.stats_port.rebind(s);
  c.functional.rebind(dram, s);
  c.functional.allocate_storage();
  c.memory->rebind_dram(dram);
  impl->last_cycles = 0;
  return impl;
}

void CycleBackend::Impl::release(std::unique_ptr<Impl> impl) {
  const SimContext::Lock lock = impl->ctx.activate();
  VtaCore& c = *impl->core;
  c.functional.release_storage();
  c.fetch.release_storage();
  c.trace = TraceRecorder();
  if (c.memory) {
    c.memory->record_trace_events(false);
  }
  if (impl->pool_key.empty() || !impl->idle || now_cycle() >= kMaxReuseCycles) {
    // The modules are left to the kernel (SystemC cannot destroy a module with processes).
    (void)impl->core.release();
    for (auto& m : impl->more) {
      m->functional.release_storage();
      m->fetch.release_storage();
      (void)m.release();
    }
    (void)impl->interconnect.release();
    (void)impl->shared_memory.release();
    return;
  }
  const std::lock_guard<std::mutex> guard(pool_lock());
  std::string key = impl->pool_key;
  parked_cores<Impl>()[key].push_back(std::move(impl));
}

CycleBackend::CycleBackend(const HwConfig& cfg, Dram& dram)
    : CycleBackend(cfg, dram, cfg.memory.model) {}

CycleBackend::CycleBackend(const HwConfig& cfg, Dram& dram, const std::string& memory_model)
    : ContractBackend(cfg, dram),
      m_impl(Impl::acquire(
          m_cfg, m_dram, [this](int k) -> Stats& { return core_stats_mut(k); },
          &find_memory_model(memory_model), MemoryBinder{})) {
  mark_timed();
}

CycleBackend::CycleBackend(const HwConfig& cfg, Dram& dram, const MemoryBinder& bind_memory)
    : ContractBackend(cfg, dram),
      m_impl(Impl::acquire(
          m_cfg, m_dram, [this](int k) -> Stats& { return core_stats_mut(k); },
          bind_memory ? nullptr : &find_memory_model(cfg.memory.model), bind_memory)) {
  mark_timed();
}

void CycleBackend::mark_timed() {
  for (int k = 0; k < cores(); ++k) {
    core_stats_mut(k).timed = true;
  }
}

CycleBackend::~CycleBackend() {
  // The kernel itself is never deleted (SimContext), nor its modules, since SystemC cannot
  // destroy a module with processes (it aborts): the core goes back to the pool.
  Impl::release(std::move(m_impl));
}

RunOutcome CycleBackend::execute(const LoadedProgram& program, uint64_t wait_cycles) {
  mark_timed();
  uint64_t makespan = 0;
  return m_impl->run({&program}, wait_cycles, makespan).front();
}

std::vector<RunOutcome> CycleBackend::execute_cores(
    const std::vector<const LoadedProgram*>& programs, uint64_t wait_cycles, uint64_t& makespan) {
  mark_timed();
  std::vector<RunOutcome> outs = m_impl->run(programs, wait_cycles, makespan);
  if (m_impl->interconnect) {
    std::vector<double> cycles(programs.size(), 0.0);
    for (size_t k = 0; k < programs.size(); ++k) {
      cycles[k] = programs[k] != nullptr ? static_cast<double>(outs[k].cycles) : 0.0;
    }
    add_system_counters(m_stats, *m_impl->interconnect, cycles);
  }
  return outs;
}

void CycleBackend::enable_trace(const std::string& path) {
  m_impl->core->trace.enable_trace(path, m_cfg.clock_mhz);  // a system: a process per core
  if (m_impl->memory() != nullptr) {
    m_impl->memory()->record_trace_events(true);
  }
}

void CycleBackend::set_trace_window(uint64_t start, uint64_t end) {
  m_impl->core->trace.set_trace_window(start, end);
}

void CycleBackend::enable_vcd(const std::string& path, uint64_t start, uint64_t end) {
  // A system: every core's signals under a scope of its own (docs/multicore.md, "Traces").
  m_impl->core->trace.enable_vcd(path, start, end, m_cfg.clock_mhz, m_vcd_limit, m_cfg.cores);
}

void CycleBackend::begin_trace_slice(const std::string& track, const std::string& name) {
  m_impl->core->trace.begin_slice(track, name);
}

void CycleBackend::end_trace_slice(const std::string& track, const Stats& counters) {
  m_impl->core->trace.end_slice(track, counters);
}

void CycleBackend::add_trace_slice(const std::string& track, const std::string& name,
                                   uint64_t cycles, const std::map<std::string, uint64_t>& args) {
  m_impl->core->trace.add_slice(track, name, cycles, nlohmann::json(args));
}

const std::string& CycleBackend::memory_model() const {
  return m_impl->memory_model;
}

uint64_t CycleBackend::last_run_cycles() const {
  return m_impl->last_cycles;
}

int32_t CycleBackend::acc_lane(uint32_t index, uint32_t lane) const {
  return m_impl->core->functional.acc_lane(index, lane);
}

int32_t CycleBackend::out_lane(uint32_t index, uint32_t lane) const {
  return m_impl->core->functional.out_lane(index, lane);
}

// Resets core `c` (sim/README.md section 1: only the SRAMs persist) and begins its run in
// absolute cycle `base`.
void CycleBackend::Impl::begin_core(VtaCore& c, const LoadedProgram& program, uint64_t base) {
  c.program.set(&program);
  for (int s = kStageLoad; s <= kStageStore; ++s) {
    c.insn_q[s]->reset();
  }
  for (TokenQueue& t : c.tokens) {
    t.reset();
  }
  c.mem.reset();
  c.fetch.clear_stats();
  c.load.clear_stats();
  c.compute.clear_stats();
  c.compute.clear_compute_stats();
  c.store.clear_stats();
  c.mem.clear_stats();
  c.run.begin(base);
}

// Resets the memory model (and interconnect) and begins every core that has a program; returns
// the run's cycle 0 as an absolute cycle.
uint64_t CycleBackend::Impl::begin_run(const std::vector<const LoadedProgram*>& programs) {
  const uint64_t base = now_cycle() + 1;
  if (MemoryTarget* m = memory()) {
    m->reset(base);
    m->reset_counters();
  }
  if (interconnect) {
    interconnect->reset(base);
    interconnect->clear_stats();
  }
  core->trace.begin_run(base);  // every core's, also when core 0 has no program
  running = 0;
  for (size_t k = 0; k < programs.size(); ++k) {
    if (programs[k] != nullptr) {
      ++running;
      begin_core(core_at(k), *programs[k], base);
    }
  }
  return base;
}

// Lets every thread still inside the run unwind to its idle state.
void CycleBackend::Impl::unwind() {
  for (size_t k = 0; k < num_cores(); ++k) {
    core_at(k).run.abort_all();
  }
  for (int k = 0; k < 4 && sc_core::sc_pending_activity_at_current_time(); ++k) {
    SimContext::start(sc_core::SC_ZERO_TIME);
  }
}

// Unwinds the threads and writes the trace up to here (after an error or a deadlock, it shows
// who waited on whom); the run took `run_cycles` (later runs are traced after them).
void CycleBackend::Impl::end_run(uint64_t run_cycles) {
  unwind();
  MemoryTarget* m = memory();
  if (m != nullptr && core->trace.tracing()) {
    std::vector<MemoryTraceEvent> events;
    m->take_trace_events(events, [this](uint64_t c) { return core->trace.in_window(c, c); });
    for (MemoryTraceEvent& e : events) {
      core->trace.span_named(TraceRecorder::kDramTrack, e.cycle, e.cycle, std::move(e.name));
    }
  }
  for (size_t k = 0; k < num_cores(); ++k) {
    core_at(k).program.set(nullptr);
  }
  idle = true;
  const uint64_t now = now_cycle();
  core->trace.end_run(run_cycles);  // every core's time
  core->trace.flush(now);           // last: it throws when the VCD passed its size limit
}

// After an error: ends the run and rethrows the first core's error (naming the core when there
// are several).
void CycleBackend::Impl::rethrow_error(const std::vector<const LoadedProgram*>& programs) {
  for (size_t k = 0; k < programs.size(); ++k) {
    const std::exception_ptr e = core_at(k).run.error();
    if (programs[k] == nullptr || !e) {
      continue;
    }
    end_run(now_cycle() + 1 - core_at(k).run.base());
    if (cfg.cores == 0) {
      std::rethrow_exception(e);
    }
    try {
      std::rethrow_exception(e);
    } catch (const ProgramError& pe) {
      throw ProgramError(fmt::format("core {}: {}", k, pe.what()));
    }
  }
}

// Core k's outcome once the kernel stopped.
RunOutcome CycleBackend::Impl::outcome(size_t k, uint64_t base, uint64_t wait_cycles) {
  const VtaCore& c = core_at(k);
  RunOutcome out;
  if (c.run.finished()) {
    out.cycles = c.run.finish_cycle() + 1 - base;
    if (wait_cycles != 0 && out.cycles > wait_cycles) {
      out.kind = RunOutcome::kTimeout;
      out.cycles = wait_cycles;
    }
  } else if (sc_core::sc_pending_activity()) {
    // sc_start returns early once nothing is left before the limit: activity beyond it means
    // the run is still going (a deadlock leaves nothing at all).
    out.kind = RunOutcome::kTimeout;
    out.cycles = wait_cycles;
  } else {
    out = stuck(c);
  }
  return out;
}

std::vector<RunOutcome> CycleBackend::Impl::run(const std::vector<const LoadedProgram*>& programs,
                                                uint64_t wait_cycles, uint64_t& makespan) {
  const SimContext::Lock lock = ctx.activate();  // one thread at a time in SystemC
  std::vector<RunOutcome> outs(programs.size());
  idle = false;
  const uint64_t base = begin_run(programs);
  if (running == 0) {
    idle = true;
    return outs;
  }
  for (size_t k = 0; k < programs.size(); ++k) {
    core_at(k).run.set_budget_end(wait_cycles != 0 ? base + wait_cycles : UINT64_MAX);
  }
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  const sc_core::sc_time limit = wait_cycles != 0 ? cycles(base + wait_cycles - now_cycle())
                                                  : sc_core::sc_max_time() - now - cycles(1u << 20);
  SimContext::start(limit, sc_core::SC_EXIT_ON_STARVATION);
  rethrow_error(programs);
  makespan = 0;
  bool any_stuck = false;
  for (size_t k = 0; k < programs.size(); ++k) {
    if (programs[k] != nullptr) {
      outs[k] = outcome(k, base, wait_cycles);
      makespan = std::max(makespan, outs[k].cycles);
      any_stuck = any_stuck || outs[k].kind == RunOutcome::kStuck;
    }
  }
  // A deadlock is traced up to where the kernel stopped; else up to the last FINISH / timeout.
  end_run(any_stuck ? now_cycle() + 1 - base : makespan);
  if (!any_stuck) {
    last_cycles = makespan;
  }
  for (size_t k = 0; k < programs.size(); ++k) {
    if (programs[k] != nullptr && outs[k].kind != RunOutcome::kStuck) {
      outs[k].counters = counters(core_at(k), k == 0 ? memory() : nullptr);
      for (size_t u = 0; u < 3; ++u) {
        outs[k].completed[u] = outs[k].counters->unit[u].insns;
      }
    }
  }
  return outs;
}

// What every unit of core `c` is doing when none can progress, for the contract's deadlock
// report.
RunOutcome CycleBackend::Impl::stuck(const VtaCore& c) const {
  RunOutcome out;
  out.kind = RunOutcome::kStuck;
  const PipelineUnit* units[3] = {&c.load, &c.compute, &c.store};
  for (size_t k = 0; k < 3; ++k) {
    out.units[k] = units[k]->report();
  }
  for (size_t q = 0; q < 4; ++q) {
    out.tokens[q] = c.tokens[q].size();
  }
  out.detail = fmt::format(
      "cycle {}; fetch dispatched {} of {} instructions; instruction queues load={} compute={} "
      "store={}",
      c.run.rel(now_cycle()), c.fetch.next_index(), c.program.get().count(),
      c.insn_q[kStageLoad]->size(), c.insn_q[kStageCompute]->size(), c.insn_q[kStageStore]->size());
  return out;
}

// The run's counters of core `c` (sim/README.md section 6), published by the contract's counter
// schema; `memory` (the memory model's own counters) is given to core 0 only.
TimedCounters CycleBackend::Impl::counters(const VtaCore& c, const MemoryTarget* memory) {
  TimedCounters t;
  t.fetch_active = c.fetch.stats().active_cycles;
  t.fetch_stall_queue_full = c.fetch.stats().stall_queue_full_cycles;
  const PipelineUnit* units[3] = {&c.load, &c.compute, &c.store};
  for (size_t k = 0; k < 3; ++k) {
    const UnitStats& us = units[k]->stats();
    TimedCounters::Unit& u = t.unit[k];
    u.busy = us.busy_cycles;
    u.insns = us.insns;
    u.idle = us.idle_cycles;
    u.mem_stall = us.mem_stall_cycles;
    u.stall_token = us.stall_token_cycles;
    u.stall_full = us.stall_full_cycles;
  }
  for (int k = 0; k < kNumReadClients; ++k) {
    const MemClientStats& m = c.mem.read_stats(k);
    t.read[static_cast<size_t>(k)] =
        TimedCounters::Traffic{m.bytes, m.bursts, m.beats, m.latency_sum, m.latency_max};
  }
  const MemClientStats& w = c.mem.write_stats();
  t.write = TimedCounters::Traffic{w.bytes, w.bursts, w.beats, w.latency_sum, w.latency_max};
  t.gemm_active = c.compute.compute_stats().gemm_active_cycles;
  t.alu_active = c.compute.compute_stats().alu_active_cycles;
  if (memory != nullptr) {
    memory->add_counters(t);
  }
  return t;
}

}  // namespace vta

#include "vta/sim/backend_registry.h"
VTA_REGISTER_BACKEND(cycle, vta::CycleBackend, /*order=*/30, /*timed=*/true);
