#include "vta/explore/system_area.h"

#include <algorithm>
#include <string>

namespace vta::explore {

namespace {

// An AXI address channel's bits: a 32-bit address, 8-bit burst length, 3-bit size, 2-bit burst
// type and the valid (AXI4, ARM IHI 0022).
constexpr int kAxiAddressBits = 32 + 8 + 3 + 2 + 1;

// LUT6s of one bit of an N:1 multiplexer: a LUT6 is a 4:1 multiplexer (4 data + 2 select
// inputs), so each LUT of a tree takes 4 inputs down to 1: ceil((N - 1) / 3).
double mux_luts_per_bit(int n) {
  return n <= 1 ? 0.0 : static_cast<double>((n - 1 + 2) / 3);
}

}  // namespace

FpgaResources interconnect_area(int ports, int width_bits) {
  FpgaResources r;
  if (ports <= 1) {
    return r;
  }
  const double mux = mux_luts_per_bit(ports);
  // Two address channels and the write data (with its strobes and last) multiplexed N:1.
  const double muxed_bits = 2.0 * kAxiAddressBits + width_bits + width_bits / 8.0 + 1;
  // Per direction: a first-come-first-served arbiter (a grant register of N bits, its
  // next-grant logic of about 2 LUTs per port) and the 8-bit beat counter of the burst holding
  // the channel; the read data's valid and the write response decoded to N cores.
  const double arbiter_luts = 2.0 * (2.0 * ports + 8) + 2.0 * ports;
  r.lut = muxed_bits * mux + arbiter_luts;
  // The multiplexed channels are registered once (one register slice), plus the arbiters' grant
  // and beat counter registers.
  r.ff = muxed_bits + 2.0 * (ports + 8);
  return r;
}

SystemArea estimate_system_area(const HwConfig& cfg) {
  SystemArea s;
  for (int k = 0; k < cfg.num_cores(); ++k) {
    s.cores.push_back(estimate_area(cfg.cores == 0 ? cfg : cfg.core_config(k)));
  }
  if (cfg.cores != 0) {
    const int channel_bytes =
        cfg.interconnect_bytes_per_cycle != 0 ? cfg.interconnect_bytes_per_cycle : cfg.bus_bytes;
    s.interconnect = interconnect_area(cfg.num_cores(), channel_bytes * 8);
  }
  AreaEstimate& t = s.total;
  for (const AreaEstimate& c : s.cores) {
    t.total.lut += c.total.lut;
    t.total.lutram += c.total.lutram;
    t.total.ff += c.total.ff;
    t.total.dsp += c.total.dsp;
    t.total.bram36 += c.total.bram36;
    t.gemm_dsp += c.gemm_dsp;
    t.alu_dsp += c.alu_dsp;
    for (const std::string& e : c.extrapolated) {
      if (std::find(t.extrapolated.begin(), t.extrapolated.end(), e) == t.extrapolated.end()) {
        t.extrapolated.push_back(e);
      }
    }
  }
  t.total.lut += s.interconnect.lut;
  t.total.ff += s.interconnect.ff;
  return s;
}

}  // namespace vta::explore
