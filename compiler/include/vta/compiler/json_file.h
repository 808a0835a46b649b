// Reads the compiler's JSON inputs (schedules, networks) with errors that name the file.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace vta::compiler {

// Parses the file at `path`; `kind` ("schedule", "network") names it in the vta::Error thrown
// when it cannot be opened or is not valid JSON.
nlohmann::json read_json_file(const std::string& path, const char* kind);

}  // namespace vta::compiler
