// The memory model behind the cycle core's memory port, chosen by name.
//
// The core's memory interface is a TLM-2.0 initiator; a memory model is a MemoryTarget: an
// sc_module with a TLM-2.0 target socket (loosely timed, b_transport) and a hook that resets
// its channels at the start of every run. The initiator calls b_transport in the cycle a burst
// is granted (sc_time_stamp() + delay, one cycle = cycle_time()); the target moves the payload
// bytes to/from the simulated physical memory (vta::Dram), returns delay = time to the last
// read beat / to the write response, and fills MemTimingExt (else the core assumes
// back-to-back beats ending at the returned delay). Byte enables are honoured: a write with
// every byte disabled is timed and moves nothing (the rtl glue's writes through the
// interconnect, whose data leave the core later).
//
// A model is described once, without SystemC (vta/sim/memory_model.h: name, config keys,
// analytic bandwidth and latency); its timed implementation registers itself under the same name
// in MemoryModelRegistry from the file that implements it (VTA_REGISTER_TIMED_MEMORY_MODEL);
// CycleBackend creates one by name. "fixed" (fixed_memory.cc) is DramTarget, the memory port of
// the timing contract (sim/README.md section 2).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>

#include "vta/sim/contract/counter_schema.h"
#include "vta/sim/cycle/dram_timing.h"
#include "vta/sim/dram.h"
#include "vta/sim/hw_config.h"
#include "vta/sim/memory_model.h"
#include "vta/sim/registry.h"

namespace vta::cycle {

// One clock cycle of the core in SystemC time (the clock frequency only matters in reports).
inline const sc_core::sc_time& cycle_time() {
  static const sc_core::sc_time t(1, sc_core::SC_NS);
  return t;
}
// Current SystemC time in whole cycles.
inline uint64_t now_cycle() {
  return sc_core::sc_time_stamp().value() / cycle_time().value();
}
inline sc_core::sc_time cycles(uint64_t n) {
  return cycle_time() * static_cast<double>(n);
}

// Burst timing returned by the memory model (absolute cycles).
struct MemTimingExt : tlm::tlm_extension<MemTimingExt> {
  uint32_t beats = 0;     // bus beats of the burst (0: the target did not fill the extension)
  uint64_t first = 0;     // cycle of the first data beat
  uint64_t last = 0;      // cycle of the last data beat
  uint64_t response = 0;  // writes: cycle of the write response (reads: = last)
  uint32_t interval = 1;  // cycles between beats

  tlm::tlm_extension_base* clone() const override { return new MemTimingExt(*this); }
  void copy_from(const tlm::tlm_extension_base& other) override {
    *this = static_cast<const MemTimingExt&>(other);
  }
};

// The requester of a burst behind an interconnect (its core), for a memory model that keeps one
// read data channel per requester (AXI: one ID per core). Without it: requester 0.
struct RequesterExt : tlm::tlm_extension<RequesterExt> {
  int requester = 0;

  tlm::tlm_extension_base* clone() const override { return new RequesterExt(*this); }
  void copy_from(const tlm::tlm_extension_base& other) override {
    *this = static_cast<const RequesterExt&>(other);
  }
};

// The core side of the memory port, handed to a user-supplied memory model (see
// CycleBackend's MemoryBinder): bind `socket` to a TLM-2.0 target that moves the payload bytes
// and fills MemTimingExt (or at least returns the delay to the last beat / write response).
struct MemoryPort {
  tlm::tlm_initiator_socket<>& socket;
  const HwConfig& cfg;
  Dram& dram;
};

// An event of a memory model's own track in the Perfetto trace (a DRAM command), in the
// absolute core cycle it falls in.
struct MemoryTraceEvent {
  uint64_t cycle = 0;
  std::string name;
};

// A memory model that can be chosen by name.
class MemoryTarget : public sc_core::sc_module {
 public:
  MemoryTarget(sc_core::sc_module_name name, Dram& dram)
      : sc_core::sc_module(name), m_dram(&dram) {}

  // The simulated physical memory the payload bytes move to and from. A core kept for reuse
  // (cycle_backend.cc) serves one backend after another, each with its own Dram.
  void rebind_dram(Dram& dram) { m_dram = &dram; }

  // The socket the core's memory interface binds to.
  virtual tlm::tlm_target_socket<>& target_socket() = 0;
  // A run begins in absolute cycle `base_cycle`: every channel is idle from then on.
  virtual void reset(uint64_t base_cycle) = 0;
  // Times a write burst of `beats` beats at beat-aligned `addr` granted in cycle `grant` whose
  // data moves later (the rtl backend's store unit sends beats after the request); the same
  // timing b_transport gives a write. Calls come in grant order.
  virtual WriteBeats time_write(uint64_t addr, uint32_t beats, uint64_t grant) = 0;
  // Times a read burst the same way (absolute core cycles).
  virtual ReadBeats time_read(uint64_t addr, uint32_t beats, uint64_t grant) = 0;
  // Adds the model's own counters of the runs since the last reset_counters() (DRAM rows,
  // refreshes, latency); the fixed model has none.
  virtual void add_counters(TimedCounters& /*out*/) const {}
  virtual void reset_counters() {}
  // Trace: while on, the model keeps the events of each run (reset() drops them) for
  // take_trace_events(), which moves those whose cycle `keep` accepts (the trace window) into
  // `out`. The fixed model has none.
  virtual void record_trace_events(bool /*on*/) {}
  virtual void take_trace_events(std::vector<MemoryTraceEvent>& /*out*/,
                                 const std::function<bool(uint64_t)>& /*keep*/) {}

 protected:
  // The b_transport of every model (the protocol above): moves the payload bytes to or from
  // the bound Dram, times the burst with time_read / time_write, fills MemTimingExt and the delay.
  void serve(tlm::tlm_generic_payload& p, sc_core::sc_time& delay, int bus_bytes);

 private:
  Dram* m_dram;
};

// The timed implementation of the memory model `name` (its description: memory_model.h).
struct MemoryModelEntry {
  std::string name;
  int order = 0;  // unused: listings follow the descriptions' order (memory_model_names())
  // Creates the model inside the current SystemC kernel, while the core is elaborated.
  std::function<std::unique_ptr<MemoryTarget>(sc_core::sc_module_name, const HwConfig&, Dram&)>
      make;
};
using MemoryModelRegistry = Registry<MemoryModelEntry>;

// The model a CycleBackend uses unless it is given another name (memory_model.h).
using ::vta::kDefaultMemoryModel;

// The timed implementation of the model `name`; throws Error naming the models if there is none.
const MemoryModelEntry& find_memory_model(const std::string& name);

}  // namespace vta::cycle

// Registers a model's timed implementation in the file that defines it, under its name (the tag
// of its line in vta/sim/memory_models.inc); also defines the function that line links it by.
#define VTA_REGISTER_TIMED_MEMORY_MODEL(name, make) \
  void link_##name##_timed_memory_model() {}        \
  VTA_REGISTER(::vta::cycle::MemoryModelEntry, name##_timed_memory_model, {#name, 0, make})
