#include "vta/sim/json_read.h"

#include <fmt/format.h>

#include "vta/sim/error.h"

namespace vta {

int64_t json_int(const nlohmann::json& v, const std::string& what, int64_t lo, int64_t hi) {
  if (!v.is_number_integer()) {
    throw Error(fmt::format("{} must be an integer, got {}", what, v.dump()));
  }
  // An unsigned value above INT64_MAX would wrap in get<int64_t>().
  const bool huge = v.is_number_unsigned() && v.get<uint64_t>() > uint64_t{INT64_MAX};
  if (huge || v.get<int64_t>() < lo || v.get<int64_t>() > hi) {
    throw Error(fmt::format("{} = {} is out of range [{}, {}]", what, v.dump(), lo, hi));
  }
  return v.get<int64_t>();
}

bool json_bool(const nlohmann::json& v, const std::string& what) {
  if (!v.is_boolean()) {
    throw Error(fmt::format("{} must be true or false, got {}", what, v.dump()));
  }
  return v.get<bool>();
}

}  // namespace vta
