#include "vta/compiler/reports/json_file.h"

#include <fmt/format.h>

#include "vta/sim/error.h"
#include "vta/sim/input_file.h"

namespace vta::compiler {

nlohmann::json read_json_file(const std::string& path, const char* kind) {
  const std::string text = read_input_file(path, fmt::format("{} file", kind), kMaxJsonInputBytes);
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& ex) {
    throw Error(fmt::format("{} file '{}': invalid JSON: {}", kind, path, ex.what()));
  }
}

void for_each_json_key(const nlohmann::json& j, const std::string& source, const char* kind,
                       const std::function<void(const std::string&, const nlohmann::json&)>& f) {
  for (auto it = j.begin(); it != j.end(); ++it) {
    try {
      f(it.key(), *it);
    } catch (const nlohmann::json::exception& ex) {
      throw Error(fmt::format("{}: {} key '{}': {}", source, kind, it.key(), ex.what()));
    }
  }
}

}  // namespace vta::compiler
