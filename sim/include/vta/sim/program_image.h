// ProgramImage: a self-contained VTA program — the DRAM segments it reads (instructions, micro-
// ops, data), where its instruction stream is, the hardware config it was built for, and
// optional named output regions (with expected bytes, if known) — saved to and loaded from one
// binary file so `vtasim run FILE` can replay it on any backend.
//
// File format (all integers little-endian; version 1):
//   magic    8 bytes  "VTAIMG01"
//   u32      version (1)
//   u32      insn_phys      physical byte address of the first instruction
//   u32      insn_count
//   u32 n    + n bytes      config JSON text (HwConfig keys), may be empty
//   u32 nseg, then per segment:   u32 phys, u32 bytes, bytes of data
//   u32 nout, then per output:    u32 len + name, u32 phys, u32 bytes, u8 has_expected,
//                                 [bytes of expected data if has_expected]
// Segments may not overlap; loading allocates their pages at the same physical addresses.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vta/sim/dram.h"
#include "vta/sim/hw_config.h"

namespace vta {

struct ImageSegment {
  uint32_t phys = 0;
  std::vector<uint8_t> bytes;
};

struct ImageOutput {
  std::string name;
  uint32_t phys = 0;
  uint32_t bytes = 0;
  std::vector<uint8_t> expected;  // empty: nothing to compare
};

struct ProgramImage {
  std::string config_json;  // the config the program was built for ("" = unknown)
  uint32_t insn_phys = 0;
  uint32_t insn_count = 0;
  std::vector<ImageSegment> segments;
  std::vector<ImageOutput> outputs;

  // Every live allocation of `dram` as a segment, plus the instruction location.
  static ProgramImage capture(const Dram& dram, uint32_t insn_phys, uint32_t insn_count,
                              const std::string& config_json);
  // Adds [phys, phys + bytes) of `dram` as a segment.
  void add_segment(const Dram& dram, uint32_t phys, uint32_t bytes);

  std::vector<uint8_t> serialize() const;
  // Throws Error naming `source` and the offending part on a malformed image.
  static ProgramImage parse(const std::vector<uint8_t>& data, const std::string& source);
  void save(const std::string& path) const;
  static ProgramImage load(const std::string& path);
  // True if the file starts with the image magic.
  static bool is_image_file(const std::string& path);

  // Allocates every segment's pages in `dram` at its physical address and copies the data.
  void load_into(Dram& dram) const;
  // Throws Error if the image was built for other element widths (LOG_INP_WIDTH, LOG_WGT_WIDTH,
  // LOG_ACC_WIDTH) than `cfg`: its data and instructions mean other values there. An image
  // without a config passes. `source` names the image.
  void check_widths(const HwConfig& cfg, const std::string& source) const;
  // Per output with expected bytes: "" if equal, else the first difference.
  std::string check_outputs(const Dram& dram) const;
};

}  // namespace vta
