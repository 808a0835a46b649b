#include "runtime_context.h"

#include <cstdio>
#include <cstdlib>

#include <fmt/format.h>

#include "vta/runtime_cpp.h"
#include "vta/sim/error.h"

namespace vta {

// ---- vta/runtime_cpp.h: the default instance ----

void set_error_mode(ErrorMode mode) {
  c_runtime().set_error_mode(mode);
}
ErrorMode error_mode() {
  return c_runtime().error_mode();
}
void runtime_configure(const std::string& backend_name, const HwConfig& cfg) {
  c_runtime().configure(backend_name, cfg);
}
const HwConfig& runtime_config() {
  return c_runtime().config();
}
const std::string& runtime_backend_name() {
  return c_runtime().backend_name();
}
Dram& runtime_dram() {
  return c_runtime().dram();
}
Backend& runtime_backend() {
  return c_runtime().backend();
}
const Stats& runtime_stats() {
  return c_runtime().stats();
}
void runtime_clear_stats() {
  c_runtime().clear_stats();
}
void runtime_reset() {
  c_runtime().reset();
}
void runtime_set_program_observer(ProgramObserver observer) {
  c_runtime().set_program_observer(std::move(observer));
}
void runtime_set_skip_execution(bool skip) {
  c_runtime().set_skip_execution(skip);
}
void runtime_set_program_dump(const std::string& path) {
  c_runtime().set_program_dump(path);
}
void runtime_set_max_xfer(size_t bytes) {
  c_runtime().set_max_xfer(bytes);
}
std::vector<Insn> runtime_pending_insns() {
  return c_runtime().pending_insns();
}

// ---- Error policy of the C entry points ----

void handle_c_api_error(const char* api, ErrorMode mode) {
  std::string msg;
  int kind = 0;  // 0 Error, 1 ConfigError, 2 ProgramError
  try {
    throw;
  } catch (const ConfigError& e) {
    msg = e.what();
    kind = 1;
  } catch (const ProgramError& e) {
    msg = e.what();
    kind = 2;
  } catch (const std::exception& e) {
    msg = e.what();
  } catch (...) {
    msg = "unknown exception";
  }
  if (msg.rfind(api, 0) != 0) {
    msg = fmt::format("{}: {}", api, msg);
  }
  if (mode == ErrorMode::kThrow) {
    switch (kind) {
      case 1:
        throw ConfigError(msg);
      case 2:
        throw ProgramError(msg);
      default:
        throw Error(msg);
    }
  }
  std::fprintf(stderr, "vta: error: %s\n", msg.c_str());
  std::fflush(stderr);
  std::exit(1);
}

}  // namespace vta
