// A LayerRun as bytes and back, everything included (counters, output, schedule, figures):
// what a `vtasim network -j` worker process sends to its parent. MessagePack through
// nlohmann-json, so doubles and 64-bit counters come back exactly.
#pragma once

#include <cstdint>
#include <vector>

#include "vta/compiler/run/layer_runner.h"

namespace vta::compiler {

std::vector<uint8_t> encode_layer_run(const LayerRun& r);
LayerRun decode_layer_run(const std::vector<uint8_t>& bytes);

}  // namespace vta::compiler
