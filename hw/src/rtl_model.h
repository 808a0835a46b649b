// RtlModel: one Verilated vta_core (hw/rtl/vta_core.v) of one configuration, behind a small
// per-cycle interface so the backend glue is written once for every model class. A cycle has
// two halves: fall() applies the inputs with the clock low and samples the combinational
// outputs, rise() evaluates the rising edge. The VCD (rtl_vcd.h) is written between the halves,
// so the cores of a system are all at the same half when it is.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

class VerilatedContext;
class VerilatedVcdC;

namespace vta::rtl {

// Inputs of the memory side for one cycle.
struct MemIn {
  bool rd_data_valid = false;        // a read beat is on the bus
  uint8_t rd_data_tag = 0;           // its read client (vta::ReadClient)
  const uint8_t* rd_data = nullptr;  // bus_bytes of data
  bool wr_data_take = false;         // the memory takes the store's next beat this cycle
  bool wr_resp = false;              // a write response arrives
};

// Outputs of one cycle (sampled before the rising edge).
struct MemOut {
  bool rd_req = false;  // a read burst is granted this cycle
  uint32_t rd_addr = 0;
  uint32_t rd_beats = 0;
  uint8_t rd_tag = 0;
  bool wr_req = false;  // a write burst is granted this cycle
  uint32_t wr_addr = 0;
  uint32_t wr_beats = 0;
  bool wr_data_valid = false;
  uint8_t wr_data[128] = {};  // bus_bytes of data
  uint32_t wr_strb = 0;       // bit k: byte k of wr_data is written (a bus of <= 16 bytes)
  bool stuck = false;         // nothing can move any more (deadlock watch)
  bool error = false;         // compute hit an out-of-range index
  bool finish = false;        // FINISH ended in this cycle (sampled after the rising edge)
};

// Status and event counters after a run.
struct CoreStatus {
  bool done = false;
  uint64_t cycles = 0;
  uint32_t err_code = 0, err_value = 0, err_compute_insn = 0;
  uint32_t token_counts = 0;   // byte q: the tokens of queue q (vta::TokenQueueId)
  uint32_t units_waiting = 0;  // bit 0 load, 1 compute, 2 store
  uint32_t units_running = 0;  // bit 0 load, 1 compute, 2 store: inside an instruction
  uint64_t inp_load_nbytes = 0, wgt_load_nbytes = 0, acc_load_nbytes = 0, uop_load_nbytes = 0,
           out_store_nbytes = 0, gemm_counter = 0, alu_counter = 0, alu_active_cycles = 0;
  uint64_t uops_issued = 0;     // GEMM/ALU micro-op iterations issued (moves inside a long loop)
  uint32_t unit_insns[3] = {};  // load, compute, store
  uint64_t unit_busy[3] = {}, unit_idle[3] = {}, unit_mem_stall[3] = {};
  // stall cycles by queue: load g2l, l2g_full; compute l2g, s2g, g2l_full, g2s_full; store g2s,
  // s2g_full
  uint64_t stall[8] = {};
  uint64_t fetch_active = 0, fetch_stall = 0;
};

class RtlModel {
 public:
  virtual ~RtlModel() = default;
  // One reset cycle (the model's first use) or a start cycle loading the control registers.
  virtual void reset() = 0;
  virtual void start(uint32_t insn_addr, uint32_t insn_count) = 0;
  // The clock low with `in` applied: every output of `out` but finish.
  virtual void fall(const MemIn& in, MemOut& out) = 0;
  // The rising edge (with fall()'s inputs): out.finish.
  virtual void rise(MemOut& out) = 0;
  virtual CoreStatus status() const = 0;
  // Adds the model's signals to `vcd`, under the model's name, before the file is opened;
  // false if the model was built without tracing.
  virtual bool add_to_vcd(VerilatedVcdC& vcd) = 0;
};

// Models built into this binary (CMake option VTA_RTL_CONFIGS), with their config JSON.
// make(): a model in `context` (the cores of one backend share one, so one VCD can trace them
// all) whose VCD scope is `scope`.
struct BuiltModel {
  const char* name;         // config file name without .json, e.g. "pynq"
  const char* config_json;  // its contents
  std::unique_ptr<RtlModel> (*make)(int bus_bytes, VerilatedContext& context, const char* scope);
};
const std::vector<BuiltModel>& built_models();

}  // namespace vta::rtl
