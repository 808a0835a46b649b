// RtlModelImpl<V>: the RtlModel adapter of one Verilated class V (Vvta_core_<config>). Port
// widths differ between configurations (a 64-bit bus is a QData, 128 bits a VlWide<4>), so
// the accessors below handle both scalar and wide signals.
#pragma once

#include <cstring>
#include <memory>
#include <string>
#include <type_traits>

#include "rtl_model.h"
#include "verilated.h"
#if VM_TRACE
#include "verilated_vcd_c.h"
#endif

namespace vta::rtl {

// Little-endian bytes <-> a Verilated signal of any width.
template <class T>
void set_bytes(T& sig, const uint8_t* p, size_t n) {
  if constexpr (std::is_integral_v<T>) {
    T v = 0;
    std::memcpy(&v, p, n < sizeof(T) ? n : sizeof(T));
    sig = v;
  } else {
    for (size_t w = 0; w < n / 4; ++w) {
      uint32_t x;
      std::memcpy(&x, p + 4 * w, 4);
      sig[w] = x;
    }
  }
}
template <class T>
void get_bytes(const T& sig, uint8_t* p, size_t n) {
  if constexpr (std::is_integral_v<T>) {
    const T v = sig;
    std::memcpy(p, &v, n < sizeof(T) ? n : sizeof(T));
  } else {
    for (size_t w = 0; w < n / 4; ++w) {
      const uint32_t x = sig[w];
      std::memcpy(p + 4 * w, &x, 4);
    }
  }
}
// 64-bit field k of a wide signal.
template <class T>
uint64_t word64(const T& sig, int k) {
  return static_cast<uint64_t>(sig[2 * k]) | (static_cast<uint64_t>(sig[2 * k + 1]) << 32);
}

template <class V>
class RtlModelImpl final : public RtlModel {
 public:
  RtlModelImpl(int bus_bytes, VerilatedContext& context, const char* scope)
      : m_bus_bytes(bus_bytes), m_top(std::make_unique<V>(&context, scope)) {}
  ~RtlModelImpl() override { m_top->final(); }

  void reset() override {
    m_top->rst = 1;
    m_top->start = 0;
    edge();
    m_top->rst = 0;
  }

  void start(uint32_t insn_addr, uint32_t insn_count) override {
    m_top->start = 1;
    m_top->insn_addr = insn_addr;
    m_top->insn_count = insn_count;
    m_top->mem_rd_data_valid = 0;
    m_top->mem_wr_data_ready = 0;
    m_top->mem_wr_resp_valid = 0;
    edge();
    m_top->start = 0;
  }

  void fall(const MemIn& in, MemOut& out) override {
    V& t = *m_top;
    t.clk = 0;
    t.mem_rd_req_ready = 1;
    t.mem_wr_req_ready = 1;
    t.mem_rd_data_valid = in.rd_data_valid;
    if (in.rd_data_valid) {
      t.mem_rd_data_tag = in.rd_data_tag;
      set_bytes(t.mem_rd_data, in.rd_data, static_cast<size_t>(m_bus_bytes));
    }
    t.mem_wr_data_ready = in.wr_data_take;
    t.mem_wr_resp_valid = in.wr_resp;
    t.eval();
    out.rd_req = t.mem_rd_req_valid;
    if (out.rd_req) {
      out.rd_addr = t.mem_rd_req_addr;
      out.rd_beats = t.mem_rd_req_beats;
      out.rd_tag = t.mem_rd_req_tag;
    }
    out.wr_req = t.mem_wr_req_valid;
    if (out.wr_req) {
      out.wr_addr = t.mem_wr_req_addr;
      out.wr_beats = t.mem_wr_req_beats;
    }
    out.wr_data_valid = t.mem_wr_data_valid;
    if (in.wr_data_take) {
      get_bytes(t.mem_wr_data, out.wr_data, static_cast<size_t>(m_bus_bytes));
      out.wr_strb = static_cast<uint32_t>(t.mem_wr_strb);
    }
    out.stuck = t.stuck;
    out.error = t.error;
  }

  void rise(MemOut& out) override {
    m_top->clk = 1;
    m_top->eval();
    out.finish = m_top->done;
  }

  CoreStatus status() const override {
    const V& t = *m_top;
    CoreStatus s;
    s.done = t.done;
    s.cycles = t.cycles;
    s.err_code = t.err_code;
    s.err_value = t.err_value;
    s.err_compute_insn = t.err_compute_insn;
    s.token_counts = t.token_counts;
    s.units_waiting = t.units_waiting;
    s.units_running = t.units_running;
    s.inp_load_nbytes = t.inp_load_nbytes;
    s.wgt_load_nbytes = t.wgt_load_nbytes;
    s.acc_load_nbytes = t.acc_load_nbytes;
    s.uop_load_nbytes = t.uop_load_nbytes;
    s.out_store_nbytes = t.out_store_nbytes;
    s.gemm_counter = t.gemm_counter;
    s.alu_counter = t.alu_counter;
    s.alu_active_cycles = t.alu_active_cycles;
    s.uops_issued = t.uops_issued;
    for (int u = 0; u < 3; ++u) {
      s.unit_insns[u] = t.unit_insns[u];
      s.unit_busy[u] = word64(t.unit_busy_cycles, u);
      s.unit_idle[u] = word64(t.unit_idle_cycles, u);
      s.unit_mem_stall[u] = word64(t.unit_mem_stall_cycles, u);
    }
    for (int k = 0; k < 8; ++k) {
      s.stall[k] = word64(t.stall_cycles, k);
    }
    s.fetch_active = word64(t.fetch_cycles, 0);
    s.fetch_stall = word64(t.fetch_cycles, 1);
    return s;
  }

  bool add_to_vcd(VerilatedVcdC& vcd) override {
#if VM_TRACE
    m_top->trace(&vcd, 99);
    return true;
#else
    (void)vcd;
    return false;
#endif
  }

 private:
  // A reset or start cycle: not part of any run's cycle count, so not traced.
  void edge() {
    m_top->clk = 0;
    m_top->eval();
    m_top->clk = 1;
    m_top->eval();
  }

  int m_bus_bytes;
  std::unique_ptr<V> m_top;
};

}  // namespace vta::rtl
