// Paths the tests need, fixed at configure time.
#pragma once
#include <string>
#ifndef VTA_SOURCE_DIR
#error "VTA_SOURCE_DIR must be defined by the test's CMakeLists.txt"
#endif
inline std::string config_path(const std::string& name) {
  return std::string(VTA_SOURCE_DIR) + "/configs/" + name + ".json";
}
inline const char* const kPresetConfigs[] = {"pynq",    "ultra96", "zcu104", "de10nano",
                                             "block32", "batch4",  "small"};
