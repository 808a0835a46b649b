// Checked reads of JSON values, for every JSON file the project reads (configs, schedules,
// networks, epilogues). nlohmann's get<int>() narrows silently (4294967303 becomes 7, 7.9
// becomes 7); these reject a non-integer or an out-of-range value with an Error that names it.
#pragma once

#include <climits>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace vta {

// `v` if it is an integer in [lo, hi]. Else Error "<what> must be an integer, got <v>" or
// "<what> = <v> is out of range [lo, hi]"; `what` names the value, e.g. "file.json: key 'k'".
int64_t json_int(const nlohmann::json& v, const std::string& what, int64_t lo, int64_t hi);

// json_int into an int, by default over the whole int range.
inline int json_int32(const nlohmann::json& v, const std::string& what, int lo = INT_MIN,
                      int hi = INT_MAX) {
  return static_cast<int>(json_int(v, what, lo, hi));
}

// `v` if it is a boolean, else Error "<what> must be true or false, got <v>".
bool json_bool(const nlohmann::json& v, const std::string& what);

}  // namespace vta
