#include "vta/sim/input_file.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "vta/sim/error.h"

namespace vta {

namespace fs = std::filesystem;

std::string read_input_file(const std::string& path, const std::string& what, size_t max_bytes) {
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (ec || !fs::exists(st)) {
    throw Error(fmt::format("cannot open {} '{}'", what, path));
  }
  if (!fs::is_regular_file(st)) {
    throw Error(fmt::format("cannot read {} '{}': not a regular file", what, path));
  }
  const uintmax_t size = fs::file_size(path, ec);
  const std::string too_big =
      fmt::format("{} '{}' is larger than the limit of {} MiB for this kind of input", what, path,
                  max_bytes >> 20);
  if (!ec && size > max_bytes) {
    throw Error(too_big);
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw Error(fmt::format("cannot open {} '{}': {}", what, path, std::strerror(errno)));
  }
  std::string out;
  char buf[1 << 16];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) {
    const auto n = static_cast<size_t>(in.gcount());
    if (out.size() + n > max_bytes) {
      throw Error(too_big);
    }
    out.append(buf, n);
  }
  if (in.bad()) {
    throw Error(fmt::format("cannot read {} '{}': read error", what, path));
  }
  return out;
}

}  // namespace vta
