// HwConfig: one VTA hardware configuration, parsed once from a JSON file with the upstream
// vta_config.json keys plus the timing keys of this simulator (configs/README.md documents each).
// Every derived constant (element sizes, buffer depths, field widths, bus ratios) is computed
// here and nowhere else; the object is immutable after construction.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "vta/sim/dram_spec.h"
#include "vta/sim/energy_spec.h"

namespace vta {

// The physical range of CLOCK_MHZ: a real clock of an FPGA or ASIC design. Below 1 MHz the
// DRAM timings in cycles and the energy per second stop meaning anything.
inline constexpr double kMinClockMhz = 1.0;
inline constexpr double kMaxClockMhz = 10000.0;

struct HwConfig {
  // ---- Upstream keys (log2 values unless noted) ----
  std::string target;         // TARGET: "sim", "pynq", "ultra96", "zcu104", "de10nano", ...
  std::string hw_ver;         // HW_VER: must be "0.0.2"
  int log_inp_width = 0;      // LOG_INP_WIDTH: log2 bits of an input element
  int log_wgt_width = 0;      // LOG_WGT_WIDTH
  int log_acc_width = 0;      // LOG_ACC_WIDTH
  int log_batch = 0;          // LOG_BATCH
  int log_block = 0;          // LOG_BLOCK (= LOG_BLOCK_IN = LOG_BLOCK_OUT)
  int log_uop_buff_size = 0;  // LOG_UOP_BUFF_SIZE, log2 bytes
  int log_inp_buff_size = 0;  // LOG_INP_BUFF_SIZE, log2 bytes
  int log_wgt_buff_size = 0;  // LOG_WGT_BUFF_SIZE, log2 bytes
  int log_acc_buff_size = 0;  // LOG_ACC_BUFF_SIZE, log2 bytes

  // ---- Timing keys of the cycle / rtl backends ----
  int log_bus_width = 0;              // LOG_BUS_WIDTH: log2 bits of the memory data bus
  double clock_mhz = 0;               // CLOCK_MHZ: core clock, MHz
  int dram_read_latency_cycles = 0;   // DRAM_READ_LATENCY_CYCLES: request accepted -> first beat
  int dram_write_latency_cycles = 0;  // DRAM_WRITE_LATENCY_CYCLES: last beat -> write response
  int dram_cycles_per_beat = 0;       // DRAM_CYCLES_PER_BEAT: cycles between data beats (>= 1)
  int max_burst_beats = 0;            // MAX_BURST_BEATS: longest burst, in bus beats
  int burst_boundary_bytes = 0;       // BURST_BOUNDARY_BYTES: bursts never cross this alignment
  int insn_queue_depth = 0;           // INSN_QUEUE_DEPTH: entries of each unit's command queue
  int dep_queue_depth = 0;            // DEP_QUEUE_DEPTH: tokens each dependency queue can hold
  // MEMORY_MODEL ("fixed" when absent), DRAM_PRESET and the DRAM_* overrides (dram_spec.h).
  MemorySpec memory;
  EnergySpec energy;  // optional ENERGY_* overrides of the energy model

  // ---- System keys (optional; docs/multicore.md, sim/include/vta/sim/system_config.h) ----
  // CORES: the number of cores, or a list of per-core key overrides. Absent (0): one core with
  // no interconnect, exactly the single-core model. With CORES, the cores share one DRAM (the
  // memory model of this config) through one interconnect.
  int cores = 0;
  int interconnect_latency_cycles = 0;   // INTERCONNECT_LATENCY_CYCLES: each way, core cycles
  int interconnect_bytes_per_cycle = 0;  // INTERCONNECT_BYTES_PER_CYCLE: per channel
  // The configuration of each core (cores entries; every one a single-core config, cores = 0).
  // This object's own core keys are those of core 0.
  std::vector<HwConfig> core_configs;

  // ---- Derived (computed by derive(); never set by hand) ----
  int batch = 0, block_in = 0, block_out = 0;
  int inp_width = 0, wgt_width = 0, acc_width = 0, out_width = 0;  // bits per element lane
  // Bytes of one SRAM element (one tensor tile) per memory type.
  int uop_elem_bytes = 4, inp_elem_bytes = 0, wgt_elem_bytes = 0, acc_elem_bytes = 0,
      out_elem_bytes = 0;
  int log_uop_buff_depth = 0, log_inp_buff_depth = 0, log_wgt_buff_depth = 0,
      log_acc_buff_depth = 0;
  uint32_t uop_buff_depth = 0, inp_buff_depth = 0, wgt_buff_depth = 0, acc_buff_depth = 0,
           out_buff_depth = 0;  // elements (tiles); out depth = acc depth
  int bus_bytes = 0;            // bytes per bus beat
  // Bus beats per SRAM element (at least 1; the uop moves several per beat).
  int inp_beats = 0, wgt_beats = 0, acc_beats = 0, out_beats = 0;
  int uop_src_bits = 0;       // width of the micro-op src field: max(log acc depth, log inp depth)
  int fetch_chunk_insns = 0;  // instructions of the longest fetch burst (the fetch buffer half)
  std::string model_name;     // upstream bitstream string, e.g. 1x16_i8w8a32_15_15_18_17

  // Loads a config file (following its "base" chain, config_source.h); throws ConfigError
  // naming the file and key on any problem.
  static HwConfig from_file(const std::string& path);
  // Parses JSON text; `source` names it in error messages.
  static HwConfig from_json_text(const std::string& text, const std::string& source);
  static HwConfig from_json(const nlohmann::json& j, const std::string& source);
  // The built-in default: the contents of configs/pynq.json, compiled in.
  static const HwConfig& default_config();
  // $VTA_CONFIG if set (a preset name or a path), else the built-in default.
  static HwConfig from_env();

  // Element bytes of a memory type id (isa.h MemType); ACC_8BIT reads 16-byte DRAM elements.
  int elem_bytes(int memory_type) const;
  // SRAM depth (elements) of a memory type id.
  uint32_t buff_depth(int memory_type) const;

  nlohmann::json to_json() const;  // the keys as read (not the derived values)

  // Cores of the system: 1 without CORES.
  int num_cores() const { return cores == 0 ? 1 : cores; }
  // The configuration of core k (this one without CORES).
  const HwConfig& core_config(int k) const;
};

}  // namespace vta
