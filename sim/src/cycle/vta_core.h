// VtaCore: the SystemC top of the cycle model. It owns what the units share (the functional
// core with the SRAMs, run control, the trace, the program of the current run), the queues
// between the units, the memory interface and the memory model behind its TLM-2.0 socket, and
// wires each unit's ports (unit_ports.h): a unit reaches nothing else.
#pragma once

#include <array>
#include <functional>
#include <memory>

#include <systemc>

#include "compute_unit.h"
#include "fetch_unit.h"
#include "hw_queues.h"
#include "load_unit.h"
#include "memory_interface.h"
#include "run_control.h"
#include "store_unit.h"
#include "trace_recorder.h"
#include "unit_ports.h"
#include "vta/sim/cycle/memory_target.h"
#include "vta/sim/functional_core.h"

namespace vta::cycle {

class VtaCore : public sc_core::sc_module {
 public:
  // The memory model: one created by `model`, or (model null) whatever `bind_memory` binds the
  // port to.
  VtaCore(sc_core::sc_module_name name, const HwConfig& cfg, Dram& dram, Stats& stats,
          const MemoryModelEntry* model, const std::function<void(MemoryPort&)>& bind_memory)
      : sc_core::sc_module(name),
        stats_port(stats),
        functional(cfg, dram, stats),
        insn_q{nullptr, std::make_unique<InsnQueue>(depth(cfg.insn_queue_depth)),
               std::make_unique<InsnQueue>(depth(cfg.insn_queue_depth)),
               std::make_unique<InsnQueue>(depth(cfg.insn_queue_depth))},
        tokens{TokenQueue(kL2G, depth(cfg.dep_queue_depth)),
               TokenQueue(kG2L, depth(cfg.dep_queue_depth)),
               TokenQueue(kS2G, depth(cfg.dep_queue_depth)),
               TokenQueue(kG2S, depth(cfg.dep_queue_depth))},
        mem("mem"),
        fetch("fetch", fetch_ports(cfg)),
        load("load", LoadPorts{unit_ports(kStageLoad, cfg), ReadPort(mem, kClientInp),
                               ReadPort(mem, kClientWgt)}),
        compute("compute", ComputePorts{unit_ports(kStageCompute, cfg), ReadPort(mem, kClientUop),
                                        ReadPort(mem, kClientAcc)}),
        store("store", StorePorts{unit_ports(kStageStore, cfg), WritePort(mem)}) {
    mem.set_trace(&trace);
    mem.set_error_handler([this](std::exception_ptr e) { run.fail(e); });
    if (model != nullptr) {
      memory = model->make("dram", cfg, dram);
      mem.socket.bind(memory->target_socket());
    } else {
      MemoryPort port{mem.socket, cfg, dram};
      bind_memory(port);
    }
  }

  // Shared by the units (each through its ports).
  StatsPort stats_port;       // the owning backend's Stats
  FunctionalCore functional;  // SRAMs and instruction semantics (shared with fsim)
  RunControl run;
  TraceRecorder trace;
  RunProgram program;
  // Between the units.
  std::array<std::unique_ptr<InsnQueue>, 4> insn_q;  // index = Stage (1..3)
  std::array<TokenQueue, 4> tokens;                  // index = TokenQueueId
  MemoryInterface mem;
  std::unique_ptr<MemoryTarget> memory;  // null when a MemoryBinder plugged in the model
  FetchUnit fetch;
  LoadUnit load;
  ComputeUnit compute;
  StoreUnit store;

 private:
  static uint32_t depth(int d) { return static_cast<uint32_t>(d); }

  // Fetch: the three instruction queues and read client fetch.
  FetchPorts fetch_ports(const HwConfig& cfg) {
    return FetchPorts{
        {nullptr, insn_q[kStageLoad].get(), insn_q[kStageCompute].get(), insn_q[kStageStore].get()},
        ReadPort(mem, kClientFetch),
        run,
        trace,
        program,
        cfg};
  }

  // The ports a pipeline stage gets: its instruction queue and its token queues by role.
  PipelinePorts unit_ports(Stage s, const HwConfig& cfg) {
    const auto token = [&](int q) { return q < 0 ? nullptr : &tokens[static_cast<size_t>(q)]; };
    return PipelinePorts{*insn_q[s],
                         TokenPorts{token(kPopPrev[s]), token(kPopNext[s]), token(kPushPrev[s]),
                                    token(kPushNext[s])},
                         functional,
                         run,
                         trace,
                         program,
                         stats_port,
                         cfg};
  }
};

}  // namespace vta::cycle
