#include "vta/explore/energy_model.h"

#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "vta/sim/board_facts.h"
#include "vta/sim/isa.h"

namespace vta::explore {

namespace {

// Horowitz, "Computing's energy problem", ISSCC 2014 (45 nm): 8-bit multiply 0.2 pJ, 32-bit
// multiply 3.1 pJ, 8-bit add 0.03 pJ, 32-bit add 0.1 pJ, 64-bit read of an 8 KiB SRAM 10 pJ,
// 64-bit DRAM access 1.3-2.6 nJ (DDR3).
constexpr double kMul8Pj = 0.2;
constexpr double kAdd8Pj = 0.03;
constexpr double kAdd32Pj = 0.1;
constexpr double kSram8KiBPjPerByte = 10.0 / 8;
constexpr double kDdr3PjPerByte = (1300.0 + 2600.0) / 2 / 8;
// Other standards scale DDR3's figure by the square of their I/O voltage over DDR3's (the board
// table's "dram" section): a first-order estimate, stated as such in explore/README.md.
constexpr double kDdr3Volts = 1.5;
// Static power of the accelerator's share of the device: an assumption, overridable.
constexpr double kStaticMw = 100.0;

// The Horowitz SRAM figures span 8 KiB to 1 MiB arrays; the square-root trend is extrapolated
// outside that range.
constexpr double kSramCalibratedMinBytes = 8192;
constexpr double kSramCalibratedMaxBytes = 1 << 20;

}  // namespace

double multiply_pj(int a_bits, int b_bits) {
  // An array multiplier has a_bits x b_bits partial-product cells: Horowitz's 8 x 8 figure
  // scaled by the cell count (32 x 32: 3.2 pJ against his 3.1).
  return kMul8Pj * a_bits * b_bits / 64.0;
}

double add_pj(int bits) {
  // A ripple adder's energy is linear in its width: the line through Horowitz's 8-bit and
  // 32-bit figures.
  return kAdd8Pj + (kAdd32Pj - kAdd8Pj) * (bits - 8) / 24.0;
}

EnergyParams EnergyParams::for_config(const HwConfig& cfg) {
  EnergyParams p;
  // A MAC is one inp x wgt product and one add at the accumulator's width; an ALU lane
  // operation one add at that width.
  p.mac_pj = multiply_pj(cfg.inp_width, cfg.wgt_width) + add_pj(cfg.acc_width);
  p.alu_op_pj = add_pj(cfg.acc_width);
  p.sram_pj_per_byte_8kib = kSram8KiBPjPerByte;
  // The board's DRAM (a target that is not a board, e.g. sim: the default board's).
  const nlohmann::json& dram = board_section(cfg.target, "dram");
  const double volts = dram.at("io_voltage_v").get<double>();
  p.dram_type = dram.at("standard").get<std::string>();
  p.dram_pj_per_byte = kDdr3PjPerByte * (volts * volts) / (kDdr3Volts * kDdr3Volts);
  p.static_mw = kStaticMw;
  // The config's ENERGY_* keys (sim/energy_spec.h) override the table.
  const std::pair<const char*, double EnergyParams::*> keys[] = {
      {"ENERGY_MAC_PJ", &EnergyParams::mac_pj},
      {"ENERGY_ALU_OP_PJ", &EnergyParams::alu_op_pj},
      {"ENERGY_SRAM_PJ_PER_BYTE_8KIB", &EnergyParams::sram_pj_per_byte_8kib},
      {"ENERGY_DRAM_PJ_PER_BYTE", &EnergyParams::dram_pj_per_byte},
      {"ENERGY_STATIC_MW", &EnergyParams::static_mw}};
  for (const auto& [key, field] : keys) {
    const auto it = cfg.energy.overrides.find(key);
    if (it != cfg.energy.overrides.end()) {
      p.*field = it->second;
      p.dram_type = key == std::string("ENERGY_DRAM_PJ_PER_BYTE") ? "config" : p.dram_type;
    }
  }
  return p;
}

double sram_pj_per_byte(const EnergyParams& p, double bytes) {
  return p.sram_pj_per_byte_8kib * std::sqrt(bytes / 8192.0);
}

double EnergyEstimate::total_joules() const {
  double t = 0;
  for (const auto& part : parts) {
    t += part.joules;
  }
  return t;
}

nlohmann::ordered_json EnergyEstimate::to_json() const {
  nlohmann::ordered_json j;
  j["total_j"] = total_joules();
  auto& pj = j["parts"];
  pj = nlohmann::ordered_json::object();
  for (const auto& part : parts) {
    pj[part.name] = part.joules;
  }
  j["extrapolated"] = extrapolated;
  j["params"] = {{"mac_pj", params.mac_pj},
                 {"alu_op_pj", params.alu_op_pj},
                 {"sram_pj_per_byte_8kib", params.sram_pj_per_byte_8kib},
                 {"dram_pj_per_byte", params.dram_pj_per_byte},
                 {"dram_type", params.dram_type},
                 {"static_mw", params.static_mw}};
  return j;
}

namespace {

// Bytes read from and written to one SRAM.
struct SramTraffic {
  const char* name;
  double array_bytes;
  double read_bytes, write_bytes;
};

// Per-SRAM traffic implied by the counters: a GEMM micro-op reads one input, one weight and one
// accumulator tile and writes an accumulator and an output tile; an ALU micro-op reads two
// accumulator tiles (an immediate operand reads one: the estimate is an upper bound) and writes
// an accumulator and an output tile; loads write, stores read.
std::vector<SramTraffic> sram_traffic(const HwConfig& c, const Stats& s) {
  const double g = static_cast<double>(s.gemm_counter);
  const double a = static_cast<double>(s.alu_counter);
  const double uops = g + a;
  return {
      {"sram.uop", std::ldexp(1.0, c.log_uop_buff_size), uops * c.uop_elem_bytes,
       static_cast<double>(s.uop_load_nbytes)},
      {"sram.inp", std::ldexp(1.0, c.log_inp_buff_size), g * c.inp_elem_bytes,
       static_cast<double>(s.inp_load_nbytes)},
      {"sram.wgt", std::ldexp(1.0, c.log_wgt_buff_size), g * c.wgt_elem_bytes,
       static_cast<double>(s.wgt_load_nbytes)},
      {"sram.acc", std::ldexp(1.0, c.log_acc_buff_size), (g + 2 * a) * c.acc_elem_bytes,
       static_cast<double>(s.acc_load_nbytes) + uops * c.acc_elem_bytes},
      {"sram.out", static_cast<double>(c.out_buff_depth) * c.out_elem_bytes,
       static_cast<double>(s.out_store_nbytes), uops * c.out_elem_bytes},
  };
}

}  // namespace

EnergyEstimate estimate_energy(const HwConfig& c, const Stats& s) {
  EnergyEstimate e;
  e.params = EnergyParams::for_config(c);
  const EnergyParams& p = e.params;
  constexpr double kPj = 1e-12;
  const double macs = static_cast<double>(s.gemm_counter) * c.batch * c.block_in * c.block_out;
  const double alu_ops = static_cast<double>(s.alu_counter) * c.batch * c.block_out;
  e.parts.push_back({"gemm.mac", macs * p.mac_pj * kPj});
  e.parts.push_back({"alu.op", alu_ops * p.alu_op_pj * kPj});
  for (const auto& t : sram_traffic(c, s)) {
    const double pj = sram_pj_per_byte(p, t.array_bytes);
    e.parts.push_back({t.name, (t.read_bytes + t.write_bytes) * pj * kPj});
    if (t.array_bytes < kSramCalibratedMinBytes || t.array_bytes > kSramCalibratedMaxBytes) {
      e.extrapolated.push_back(
          fmt::format("{} {:g} KiB outside 8 KiB..1 MiB", t.name, t.array_bytes / 1024));
    }
  }
  uint64_t insns = 0;
  for (uint64_t n : s.insn_count) {
    insns += n;
  }
  const double dram_read = static_cast<double>(s.inp_load_nbytes + s.wgt_load_nbytes +
                                               s.acc_load_nbytes + s.uop_load_nbytes) +
                           static_cast<double>(insns) * kInsnBytes;
  e.parts.push_back({"dram.read", dram_read * p.dram_pj_per_byte * kPj});
  e.parts.push_back(
      {"dram.write", static_cast<double>(s.out_store_nbytes) * p.dram_pj_per_byte * kPj});
  const double seconds = s.timed ? static_cast<double>(s.cycles) / (c.clock_mhz * 1e6) : 0.0;
  e.parts.push_back({"static", p.static_mw * 1e-3 * seconds});
  return e;
}

}  // namespace vta::explore
