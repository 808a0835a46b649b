// VtaCore: the SystemC top of the cycle model: fetch, load, compute and store units, their
// queues, the memory interface and the DRAM target behind its TLM-2.0 socket.
#pragma once

#include <functional>
#include <memory>

#include <systemc>

#include "compute_unit.h"
#include "core_shared.h"
#include "fetch_unit.h"
#include "load_unit.h"
#include "memory_interface.h"
#include "store_unit.h"
#include "vta/sim/cycle/dram_target.h"

namespace vta::cycle {

class VtaCore : public sc_core::sc_module {
 public:
  // `bind_memory` empty: the core's own DramTarget serves the memory port.
  VtaCore(sc_core::sc_module_name name, const HwConfig& cfg, Dram& dram, Stats& stats,
          const std::function<void(MemoryPort&)>& bind_memory)
      : sc_core::sc_module(name),
        shared(cfg, dram, stats),
        mem("mem"),
        fetch("fetch", shared),
        load("load", shared),
        compute("compute", shared),
        store("store", shared) {
    shared.mem = &mem;
    mem.set_trace(&shared.trace);
    mem.set_error_handler([this](std::exception_ptr e) { shared.run.fail(e); });
    if (bind_memory) {
      MemoryPort port{mem.socket, cfg, dram};
      bind_memory(port);
    } else {
      dram_target = std::make_unique<DramTarget>("dram", cfg, dram);
      mem.socket.bind(dram_target->socket);
    }
  }

  CoreShared shared;
  std::unique_ptr<DramTarget> dram_target;  // null when a user memory model is plugged in
  MemoryInterface mem;
  FetchUnit fetch;
  LoadUnit load;
  ComputeUnit compute;
  StoreUnit store;
};

}  // namespace vta::cycle
