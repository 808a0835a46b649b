// The DDR3-1066 part the DRAM controller tests compute their expected cycles from: the JEDEC
// timings spelled out here (not read from the preset table, so that a change there cannot move
// both the model and the expectation), and the byte address of a (bank, row, column) under its
// address map.
#pragma once

#include <cstdint>

#include "vta/sim/dram_spec.h"

namespace vta::dramtest {

// DDR3-1066F x16 (JEDEC 79-3F speed bin, 4 Gb part): values in nCK at tCK = 1.875 ns.
constexpr int64_t kCL = 7, kCWL = 6, kRCD = 7, kRP = 7, kRAS = 20, kRC = 27, kWR = 8, kRTP = 4;
constexpr int64_t kWTR = 4, kRRD = 6, kFAW = 27, kCCD = 4, kREFI = 4160, kRFC = 139;
constexpr int64_t kBurst = 4;   // BL8: four clocks of data
constexpr uint64_t kAtom = 16;  // 16-bit bus x BL8

// One channel, one rank, 8 banks, open pages, FR-FCFS, a 32-entry queue.
inline DramSpec ddr3() {
  DramSpec d;
  d.preset = "test-DDR3-1066";
  d.channels = 1, d.ranks = 1, d.bank_groups = 1, d.banks = 8, d.rows = 32768, d.columns = 1024;
  d.bus_bits = 16, d.burst_length = 8, d.tck_ps = 1875;
  d.cl = kCL, d.cwl = kCWL, d.rcd = kRCD, d.rp = kRP, d.ras = kRAS, d.rc = kRC, d.wr = kWR;
  d.rtp = kRTP, d.wtr = kWTR, d.rrd = kRRD, d.faw = kFAW, d.ccd = kCCD, d.refi = kREFI;
  d.rfc = kRFC;
  d.address_map = "RoRaBaBgCoCh";  // byte address = row | bank | column (128 bursts) | 16 B
  d.open_page = true;
  d.frfcfs = true;
  d.queue_depth = 32;
  return d;
}

inline uint64_t addr(uint64_t bank, uint64_t row, uint64_t col) {
  return ((row << 3 | bank) << 7 | col) * kAtom;
}

}  // namespace vta::dramtest
