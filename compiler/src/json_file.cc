#include "vta/compiler/json_file.h"

#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "vta/sim/error.h"

namespace vta::compiler {

nlohmann::json read_json_file(const std::string& path, const char* kind) {
  std::ifstream in(path);
  if (!in)
    throw Error(fmt::format("cannot open {} file '{}'", kind, path));
  std::stringstream ss;
  ss << in.rdbuf();
  try {
    return nlohmann::json::parse(ss.str());
  } catch (const nlohmann::json::exception& ex) {
    throw Error(fmt::format("{} file '{}': invalid JSON: {}", kind, path, ex.what()));
  }
}

}  // namespace vta::compiler
