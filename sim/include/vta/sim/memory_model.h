// MemoryModelDescription: what every layer knows of a memory model behind the core's memory port,
// without SystemC: its name (the MEMORY_MODEL value), the config keys its timing reads, and its
// analytic bandwidth and latency, which the compiler's roofline bound and cost model use. Each
// model defines its entry in its own file (VTA_REGISTER_MEMORY_MODEL) next to the timing it is
// derived from, and has one line in vta/sim/memory_models.inc; the cycle plugin's timed
// implementation (vta/sim/cycle/memory_target.h, MemoryModelEntry) is registered under the same
// name. Nothing else compares a model's name.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "vta/sim/dram_spec.h"  // kDefaultMemoryModel
#include "vta/sim/registry.h"

namespace vta {

struct HwConfig;

// A model's sustained bandwidth as rates, worked out once per config (the schedule search asks
// for transfer times of every candidate plan): each of the core's two channels (reads, writes)
// moves at most one bus width per cycle of its own, and where both share one device bus the two
// directions add up there.
struct MemoryTransferRates {
  double channel_bytes_per_cycle = 1;
  double shared_read_bytes_per_cycle = 0;  // 0: reads and writes do not share a bus
  double shared_write_bytes_per_cycle = 0;
  // Core cycles to move `read_bytes` and `write_bytes`.
  double cycles(double read_bytes, double write_bytes) const {
    const double channel = std::max(read_bytes, write_bytes) / channel_bytes_per_cycle;
    if (shared_read_bytes_per_cycle <= 0) {
      return channel;
    }
    return std::max(channel, read_bytes / shared_read_bytes_per_cycle +
                                 write_bytes / shared_write_bytes_per_cycle);
  }
};

struct MemoryModelDescription {
  std::string name;  // MEMORY_MODEL
  int order = 0;     // position in listings, lower first
  std::string description;
  // The config keys the model's timing reads, and the unit that reads and checks them.
  std::vector<std::string> (*keys)() = nullptr;
  const char* keys_read_by = "";
  // The model's sustained bandwidth under `cfg`.
  MemoryTransferRates (*transfer_rates)(const HwConfig& cfg) = nullptr;
  // Core cycles from a read request to its first data beat.
  double (*read_latency)(const HwConfig& cfg) = nullptr;
};
// Filled on first use by the functions below (not by static registration objects).
using MemoryModelDescriptions = Registry<MemoryModelDescription>;

// The registered model `name`, or null.
const MemoryModelDescription* find_memory_model_description(const std::string& name);
// The names of the registered models, in listing order.
std::vector<std::string> memory_model_names();
// The model a configuration names (its MEMORY_MODEL, checked and found when it was read).
const MemoryModelDescription& memory_model_description_of(const HwConfig& cfg);

}  // namespace vta

// Defines a model's description in the file that defines the model: its name (the tag of its
// line in vta/sim/memory_models.inc) followed by the other fields of MemoryModelDescription.
// The registry is filled from these on its first use, so that a lookup from any static
// initialiser (a config read at start-up) finds every model.
#define VTA_REGISTER_MEMORY_MODEL(name, ...)                        \
  ::vta::MemoryModelDescription name##_memory_model_description() { \
    return ::vta::MemoryModelDescription{#name, __VA_ARGS__};       \
  }
