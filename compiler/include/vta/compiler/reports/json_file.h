// Reads the compiler's JSON inputs (schedules, networks, epilogues) with errors that name the
// file and the key.
#pragma once

#include <functional>
#include <string>

#include <nlohmann/json.hpp>

namespace vta::compiler {

// Parses the file at `path`; `kind` ("schedule", "network") names it in the vta::Error thrown
// when it cannot be opened or is not valid JSON.
nlohmann::json read_json_file(const std::string& path, const char* kind);

// Calls f(key, value) for every member of the JSON object `j`; a JSON type error inside f
// becomes the vta::Error "<source>: <kind> key '<key>': <what>".
void for_each_json_key(const nlohmann::json& j, const std::string& source, const char* kind,
                       const std::function<void(const std::string&, const nlohmann::json&)>& f);

}  // namespace vta::compiler
