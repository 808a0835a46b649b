// Paths the tests need, fixed at configure time.
#pragma once
#include <unistd.h>

#include <filesystem>
#include <string>
#ifndef VTA_SOURCE_DIR
#error "VTA_SOURCE_DIR must be defined by the test's CMakeLists.txt"
#endif
inline std::string config_path(const std::string& name) {
  return std::string(VTA_SOURCE_DIR) + "/configs/" + name + ".json";
}
// A command-line config argument: a preset name ("pynq") or a path to a JSON file.
inline std::string config_arg_path(const std::string& arg) {
  const bool is_path = arg.find('/') != std::string::npos || arg.find(".json") != std::string::npos;
  return is_path ? arg : config_path(arg);
}
inline const char* const kPresetConfigs[] = {"pynq",    "ultra96", "zcu104", "de10nano",
                                             "block32", "batch4",  "small"};

// A path in the system temp directory unique to this process: ctest -j runs the registrations
// of one test for several backends (and several test binaries) at the same time.
inline std::string unique_temp_path(const std::string& stem, const std::string& ext) {
  const std::string name = stem + "_" + std::to_string(::getpid()) + ext;
  return (std::filesystem::temp_directory_path() / name).string();
}
