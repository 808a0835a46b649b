// DramSpec: the memory model a configuration asks for (MEMORY_MODEL) and, for the "dram" model,
// the DRAM device and controller parameters: a named parameter set (DRAM_PRESET; one per board,
// in the board table sim/board_data/boards.json; configs/README.md cites the datasheets and
// JEDEC speed bins) whose values each DRAM_* key may override. Timings are in DRAM clock cycles
// (nCK, the unit of the JEDEC tables) except tCK (ps) and the interconnect latency (ns).
// sim/DRAM.md gives the formulas.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace vta {

struct DramSpec {
  std::string preset;    // DRAM_PRESET: the parameter set the values start from
  std::string standard;  // DDR3, DDR4, LPDDR4 (informative; from the preset)
  // ---- organisation ----
  int channels = 1;      // independent channels (each its own controller, bus and banks)
  int ranks = 1;         // ranks per channel
  int bank_groups = 1;   // bank groups per rank (DDR4); 1 = none
  int banks = 8;         // banks per bank group
  int rows = 32768;      // rows per bank
  int columns = 1024;    // columns per row (each bus_bits wide)
  int bus_bits = 16;     // data bus width of one channel, bits
  int burst_length = 8;  // BL: data transfers (two per clock) of one column access
  int tck_ps = 1875;     // tCK: DRAM clock period, picoseconds
  // ---- timings, nCK ----
  int cl = 7, cwl = 6;  // read / write latency: column command -> first data
  int rcd = 7;          // tRCD: ACT -> column command
  int rp = 7;           // tRP: PRE -> ACT
  int ras = 20;         // tRAS: ACT -> PRE
  int rc = 27;          // tRC: ACT -> ACT, same bank
  int wr = 8;           // tWR: end of write data -> PRE
  int rtp = 4;          // tRTP: READ -> PRE
  int wtr = 4;          // tWTR(_S): end of write data -> READ, same rank (other bank group)
  int wtr_l = 0;        // tWTR_L: end of write data -> READ, same bank group (0: = tWTR)
  int rtw = 0;          // tRTW: READ -> WRITE, same rank (0: CL + BL/2 + 2 - CWL, JEDEC)
  int rrd = 6;          // tRRD(_S): ACT -> ACT, other bank (other bank group)
  int rrd_l = 0;        // tRRD_L: ACT -> ACT, same bank group (0: = tRRD)
  int faw = 27;         // tFAW: window holding at most four ACTs per rank
  int ccd = 4;          // tCCD(_S): column -> column (other bank group)
  int ccd_l = 0;        // tCCD_L: column -> column, same bank group (0: = tCCD)
  int refi = 4160;      // tREFI: refresh interval
  int rfc = 139;        // tRFC: refresh -> next ACT
  // ---- controller ----
  bool open_page = true;  // DRAM_PAGE_POLICY: "open" | "closed"
  bool frfcfs = true;     // DRAM_SCHEDULER: "frfcfs" | "fcfs"
  int queue_depth = 32;   // DRAM_QUEUE_DEPTH: requests the scheduler chooses among
  // DRAM_REQUEST_ORDER: "in_order" (a request's commands never before an earlier request's) |
  // "out_of_order" (they may go first where they delay none of the earlier ones)
  bool out_of_order = false;
  std::string address_map;      // DRAM_ADDRESS_MAP: fields MSB -> LSB, e.g. "RoRaBaBgCoCh"
  double interconnect_ns = 40;  // DRAM_INTERCONNECT_NS: crossing + SoC interconnect, one way

  // Derived
  int bus_bytes() const { return bus_bits / 8; }
  int atom_bytes() const { return bus_bytes() * burst_length; }  // bytes of one column access
  int burst_ck() const { return burst_length / 2; }              // data bus cycles per access
  int rtw_ck() const { return rtw != 0 ? rtw : cl + burst_ck() + 2 - cwl; }
  int rrd_l_ck() const { return rrd_l != 0 ? rrd_l : rrd; }
  int ccd_l_ck() const { return ccd_l != 0 ? ccd_l : ccd; }
  int wtr_l_ck() const { return wtr_l != 0 ? wtr_l : wtr; }
  // Peak bandwidth of all channels, bytes per nanosecond (= GB/s).
  double peak_bytes_per_ns() const { return 2.0 * channels * bus_bytes() * 1000.0 / tck_ps; }
};

// The memory model a configuration without MEMORY_MODEL uses (defined next to that model's
// description; the models: vta/sim/memory_model.h).
extern const char* const kDefaultMemoryModel;

struct MemoryModelDescription;  // memory_model.h

// The memory model and DRAM parameters of a configuration.
struct MemorySpec {
  std::string model = kDefaultMemoryModel;  // MEMORY_MODEL
  // The registered description of `model`, found once when the config is read (the compiler's
  // cost model asks it for every candidate schedule).
  const MemoryModelDescription* description = nullptr;
  DramSpec dram;               // used by "dram" (always filled, from the TARGET's default set)
  bool explicit_keys = false;  // some memory key was present (to_json writes them back)
};

// Names of the parameter sets (DRAM_PRESET values).
std::vector<std::string> dram_preset_names();
// The parameter set `name`; throws ConfigError listing the known names.
DramSpec dram_preset(const std::string& name, const std::string& source);
// The parameter set of a board (TARGET); the default board's (the PYNQ-Z1's) for targets
// without one.
std::string default_dram_preset(const std::string& target);

// The config keys of the DRAM parameters: DRAM_PRESET and the DRAM_* overrides.
std::vector<std::string> dram_spec_keys();
// True for the config keys this unit owns (MEMORY_MODEL and dram_spec_keys()).
bool is_memory_key(const std::string& key);
// Reads the memory keys of config `j` (others are left to HwConfig); throws ConfigError naming
// `source` and the key for unknown values or out-of-range numbers.
MemorySpec parse_memory_spec(const nlohmann::json& j, const std::string& target,
                             const std::string& source);
// Writes the memory keys back (only when the config had any: configs without them stay as read).
void memory_spec_to_json(const MemorySpec& m, nlohmann::json& j);
// Sustained share of the DRAM's peak for a long sequential read (or write) stream: one refresh
// per tREFI stops the data bus for tRP + tRFC + tRCD + CL (writes: tWR + tRP + tRFC + tRCD +
// CWL) DRAM cycles (sim/DRAM.md, Sustained bandwidth).
double dram_stream_efficiency(const DramSpec& d, bool write);
// Checks a DramSpec's consistency (powers of two, tRC >= tRAS + tRP, ...); throws ConfigError.
void check_dram_spec(const DramSpec& d, const std::string& source);

}  // namespace vta
