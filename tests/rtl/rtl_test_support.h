// What the rtl tests share: whether a config has a Verilated model in this build, and the
// registration of test cases generated per built config (their names kept alive for Catch).
#pragma once

#include <algorithm>
#include <deque>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "vta/hw/rtl_backend.h"

namespace vta::rtltest {

// Whether this build has a Verilated model of config `name` (CMake's VTA_RTL_CONFIGS).
inline bool rtl_model_built(const std::string& name) {
  const std::vector<std::string> names = RtlBackend::built_configs();
  return std::find(names.begin(), names.end(), name) != names.end();
}

// Registers a Catch test case `name` with `tags` (a literal) that runs `invoker` (owned by Catch).
inline void register_test_case(std::string name, Catch::ITestInvoker* invoker, const char* tags) {
  static std::deque<std::string> names;  // Catch keeps references to the strings
  names.push_back(std::move(name));
  Catch::AutoReg(invoker, CATCH_INTERNAL_LINEINFO, Catch::StringRef(),
                 Catch::NameAndTags{names.back().c_str(), tags});
}

}  // namespace vta::rtltest
