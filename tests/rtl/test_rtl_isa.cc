// The shared ISA test-program suite (tests/programs) on the rtl backend, for every config with
// a built RTL model: DRAM outputs and counters must equal the plain C++ references (and so
// fsim), and illegal programs must fail with fsim's pinned messages.
#include <catch2/catch.hpp>

#include <deque>
#include <memory>
#include <string>

#include "isa_programs.h"
#include "test_paths.h"
#include "vta/hw/rtl_backend.h"

using namespace vta;
using namespace vta::testprog;

namespace {

class RtlIsaInvoker : public Catch::ITestInvoker {
 public:
  RtlIsaInvoker(std::string config, size_t index, bool error)
      : m_config(std::move(config)), m_index(index), m_error(error) {}
  void invoke() const override {
    const HwConfig cfg = HwConfig::from_file(config_path(m_config));
    const auto cases = m_error ? isa_error_cases(cfg) : isa_test_cases(cfg);
    Dram dram;
    RtlBackend be(cfg, dram);
    const std::string r = cases.at(m_index).run_and_check(be);
    if (!r.empty()) {
      FAIL(m_config << " " << cases.at(m_index).name << ": " << r);
    }
  }

 private:
  std::string m_config;
  size_t m_index;
  bool m_error;
};

bool register_rtl_isa() {
  static std::deque<std::string> names;  // Catch keeps pointers to the strings
  for (const std::string& config : RtlBackend::built_configs()) {
    const HwConfig cfg = HwConfig::from_file(config_path(config));
    for (bool error : {false, true}) {
      const auto cases = error ? isa_error_cases(cfg) : isa_test_cases(cfg);
      for (size_t k = 0; k < cases.size(); ++k) {
        names.push_back("rtl isa " + config + " " + cases[k].name);
        Catch::AutoReg(new RtlIsaInvoker(config, k, error), CATCH_INTERNAL_LINEINFO,
                       Catch::StringRef(), Catch::NameAndTags{names.back().c_str(), "[rtl][isa]"});
      }
    }
  }
  return true;
}

[[maybe_unused]] const bool registered = register_rtl_isa();

}  // namespace
