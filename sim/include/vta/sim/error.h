// Error type shared by every layer: a message that names the offending thing (config key,
// instruction index, unit, field). Thrown inside C++; the C API turns it into an error code.
#pragma once

#include <stdexcept>
#include <string>

namespace vta {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& what) : std::runtime_error(what) {}
};

// A configuration file or value that cannot describe a legal VTA design.
class ConfigError : public Error {
 public:
  explicit ConfigError(const std::string& what) : Error(what) {}
};

// An instruction stream that cannot execute (bad field, out-of-range access, deadlock, ...).
class ProgramError : public Error {
 public:
  explicit ProgramError(const std::string& what) : Error(what) {}
};

}  // namespace vta
