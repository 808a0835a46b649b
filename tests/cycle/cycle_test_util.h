// Helpers of the cycle-model tests: configs with modified keys, and an independent rendering
// of the timing-contract arithmetic (sim/README.md) for small programs on an otherwise idle
// core. Written from the contract text, not from the model's code: bursts are found by walking
// the bus beats one by one, and each formula is spelled out where it is used.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "program_builder.h"
#include "test_paths.h"
#include "vta/sim/cycle/cycle_backend.h"
#include "vta/sim/hw_config.h"

namespace vta::cycletest {

// The contract's fixed-latency memory (MEMORY_MODEL "fixed"), whose formulas these tests
// follow, with the design of a preset (configs/<preset>_fixed.json).
inline std::string fixed_config_path(const std::string& preset) {
  return config_path(preset + "_fixed");
}

// A preset on the fixed-latency memory with some keys replaced.
inline HwConfig config_with(const std::string& preset, const nlohmann::json& changes) {
  nlohmann::json j = HwConfig::from_file(fixed_config_path(preset)).to_json();
  for (auto it = changes.begin(); it != changes.end(); ++it) {
    j[it.key()] = it.value();
  }
  return HwConfig::from_json(j, preset + " (modified)");
}

// Beats of each burst of the byte range [a, b), walking beat by beat: a new burst starts when
// the current one has MAX_BURST_BEATS beats or the beat starts on a BURST_BOUNDARY_BYTES
// multiple.
inline std::vector<uint64_t> ref_burst_beats(const HwConfig& cfg, uint64_t a, uint64_t b) {
  std::vector<uint64_t> out;
  const uint64_t bus = static_cast<uint64_t>(cfg.bus_bytes);
  for (uint64_t beat = a / bus; beat * bus < b; ++beat) {
    const bool boundary = (beat * bus) % static_cast<uint64_t>(cfg.burst_boundary_bytes) == 0;
    if (out.empty() || out.back() == static_cast<uint64_t>(cfg.max_burst_beats) ||
        (boundary && beat != a / bus)) {
      out.push_back(0);
    }
    ++out.back();
  }
  return out;
}

// Read data channel of the contract: burst granted in g with n beats -> first beat
// max(g + Lr, free); the channel is then busy for n * CPB cycles.
struct RefReadChannel {
  const HwConfig& cfg;
  uint64_t free = 0;
  // Returns the cycle of the last beat.
  uint64_t grant(uint64_t g, uint64_t beats) {
    const uint64_t cpb = static_cast<uint64_t>(cfg.dram_cycles_per_beat);
    const uint64_t first = std::max(g + cfg.dram_read_latency_cycles, free);
    free = first + beats * cpb;
    return first + (beats - 1) * cpb;
  }
};

// Fetch of a stream of n instructions that fits in one burst from a page-aligned address:
// burst granted in cycle 1, beats from 1 + Lr; instruction i arrives with the beat of its last
// byte and is dispatched the cycle after (no queue is full in these programs), visible one
// cycle later. Also reports when the fetch burst frees the read data channel.
struct RefFetch {
  std::vector<uint64_t> visible;
  uint64_t read_free = 0;
};
inline RefFetch ref_fetch_one_burst(const HwConfig& cfg, uint32_t n) {
  RefFetch f;
  const uint64_t bus = static_cast<uint64_t>(cfg.bus_bytes);
  const uint64_t cpb = static_cast<uint64_t>(cfg.dram_cycles_per_beat);
  const uint64_t first = 1 + static_cast<uint64_t>(cfg.dram_read_latency_cycles);
  uint64_t prev_dispatch = 0;
  for (uint32_t i = 0; i < n; ++i) {
    const uint64_t arrive = first + ((16ull * i + 15) / bus) * cpb;
    const uint64_t dispatch = std::max(arrive + 1, i == 0 ? 0 : prev_dispatch + 1);
    prev_dispatch = dispatch;
    f.visible.push_back(dispatch + 1);
  }
  f.read_free = first + ((16ull * n + bus - 1) / bus) * cpb;
  return f;
}

// Zero-padding elements of a LOAD.
inline uint64_t ref_pad(const Insn& i) {
  const uint64_t w = static_cast<uint64_t>(i.x_pad_0) + i.x_size + i.x_pad_1;
  return (static_cast<uint64_t>(i.y_pad_0) + i.y_pad_1) * w +
         static_cast<uint64_t>(i.y_size) * (i.x_pad_0 + i.x_pad_1);
}

// DRAM element bytes of a LOAD/STORE.
inline uint64_t ref_dram_elem(const HwConfig& cfg, uint32_t type) {
  switch (type) {
    case kMemUop:
      return 4;
    case kMemInp:
      return static_cast<uint64_t>(cfg.batch * cfg.block_in);
    case kMemWgt:
      return static_cast<uint64_t>(cfg.block_out * cfg.block_in);
    case kMemAcc:
      return static_cast<uint64_t>(cfg.batch * cfg.block_out * 4);
    case kMemAcc8:
      return static_cast<uint64_t>(cfg.batch * cfg.block_out);
    default:
      return static_cast<uint64_t>(cfg.batch * cfg.block_out);  // OUT
  }
}

// All bursts of a LOAD/STORE, rows in order: (beats) per burst.
inline std::vector<uint64_t> ref_insn_bursts(const HwConfig& cfg, const Insn& i) {
  std::vector<uint64_t> all;
  const uint64_t e = ref_dram_elem(cfg, i.memory_type);
  for (uint64_t y = 0; y < i.y_size; ++y) {
    const uint64_t a = (static_cast<uint64_t>(i.dram_base) + y * i.x_stride) * e;
    for (uint64_t n : ref_burst_beats(cfg, a, a + i.x_size * e)) {
      all.push_back(n);
    }
  }
  return all;
}

// End cycle of a LOAD started in S with nothing else using memory except `ch`: zero fill in
// S+1..S+P, bursts eligible from S+P+1, one grant per cycle, E = last beat + 1.
inline uint64_t ref_load_end(const HwConfig& cfg, const Insn& i, uint64_t s, RefReadChannel& ch) {
  const uint64_t p = ref_pad(i);
  const std::vector<uint64_t> bursts = ref_insn_bursts(cfg, i);
  if (bursts.empty()) {
    return s + p;
  }
  uint64_t last = 0;
  for (size_t r = 0; r < bursts.size(); ++r) {
    last = ch.grant(s + p + 1 + r, bursts[r]);
  }
  return last + 1;
}

// End cycle of a STORE started in S on an idle write channel: burst k granted in S+1+k, its
// beats from max(grant + 1, channel free), response Lw after its last beat.
inline uint64_t ref_store_end(const HwConfig& cfg, const Insn& i, uint64_t s) {
  const uint64_t cpb = static_cast<uint64_t>(cfg.dram_cycles_per_beat);
  uint64_t free = 0, resp = s;
  const std::vector<uint64_t> bursts = ref_insn_bursts(cfg, i);
  for (size_t k = 0; k < bursts.size(); ++k) {
    const uint64_t first = std::max(s + 1 + k + 1, free);
    free = first + bursts[k] * cpb;
    resp = first + (bursts[k] - 1) * cpb + cfg.dram_write_latency_cycles;
  }
  return resp;
}

// Uop iterations of a GEMM/ALU.
inline uint64_t ref_n(const Insn& i) {
  return static_cast<uint64_t>(i.iter_out) * i.iter_in * (i.uop_end - i.uop_bgn);
}
// End of a GEMM / ALU started in S: pipeline of depth 4, one issue per cycle (two for a vector
// ALU), first issue in S+1.
inline uint64_t ref_compute_end(const Insn& i, uint64_t s) {
  const uint64_t n = ref_n(i);
  if (n == 0) {
    return s;
  }
  const uint64_t ii = (i.opcode == kOpAlu && !i.use_imm) ? 2 : 1;
  return s + 1 + ii * (n - 1) + 4;
}

}  // namespace vta::cycletest
