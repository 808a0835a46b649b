// Reading a user's input file (configs, schedules, networks, sweep specs, models, programs)
// with a limit by design: the path must name a regular file (a FIFO, /dev/zero or a directory
// is refused before anything is read) of at most `max_bytes` bytes. The limit is checked on the
// size and again while reading, so a file that grows meanwhile cannot exhaust memory.
#pragma once

#include <cstddef>
#include <string>

namespace vta {

// JSON inputs: configs, schedules, networks, sweep specs, model inputs.
inline constexpr size_t kMaxJsonInputBytes = size_t{64} << 20;
// Models (ONNX protobuf) and instruction stream files: protobuf's own limit of one message
// (2 GiB - 1); a larger model keeps its weights as ONNX external data, read apart.
inline constexpr size_t kMaxModelInputBytes = (size_t{2} << 30) - 1;

// The whole file. Throws vta::Error "<what> '<path>': <reason>" when it cannot be opened, is
// not a regular file, or is larger than `max_bytes`.
std::string read_input_file(const std::string& path, const std::string& what, size_t max_bytes);

}  // namespace vta
