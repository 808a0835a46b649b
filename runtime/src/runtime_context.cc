#include "runtime_context.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <unordered_set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "vta/backend_factory.h"
#include "vta/sim/error.h"

namespace vta {

namespace {

struct RuntimeState {
  std::optional<HwConfig> cfg;
  std::string backend;
  std::unique_ptr<Backend> device;
  std::unique_ptr<CommandQueue> queue;
  ErrorMode mode = ErrorMode::kExit;
  SyncHooks hooks;
  size_t max_xfer = VTA_MAX_XFER;
  std::unordered_set<void*> device_handles;
  std::string status_json;

  RuntimeState() {
    const char* dump = std::getenv("VTA_DUMP_PROGRAM");
    if (dump != nullptr) {
      hooks.dump_path = dump;
    }
  }
  ~RuntimeState() {
    queue.reset();  // frees its DRAM buffers before the device goes
    device.reset();
  }
};

RuntimeState& state() {
  static RuntimeState s;
  return s;
}

}  // namespace

Dram& runtime_dram() {
  // Never destroyed: buffers may be freed by static destructors of the user's program.
  static Dram* dram = new Dram();
  return *dram;
}

DeviceMemory& device_memory() {
  static DeviceMemory* mem = new DeviceMemory(runtime_dram());
  return *mem;
}

void set_error_mode(ErrorMode mode) {
  state().mode = mode;
}
ErrorMode error_mode() {
  return state().mode;
}

const HwConfig& runtime_config() {
  RuntimeState& s = state();
  if (!s.cfg) {
    try {
      s.cfg = HwConfig::from_env();
    } catch (const std::exception& e) {
      const char* env = std::getenv("VTA_CONFIG");
      throw ConfigError(fmt::format("VTA_CONFIG={}: {}", env != nullptr ? env : "", e.what()));
    }
  }
  return *s.cfg;
}

const std::string& runtime_backend_name() {
  RuntimeState& s = state();
  if (s.backend.empty()) {
    const std::string name = backend_name_from_env();
    const auto avail = available_backends();
    if (std::find(avail.begin(), avail.end(), name) == avail.end()) {
      throw ConfigError(fmt::format("VTA_BACKEND={}: unknown backend (available: {})", name,
                                    fmt::join(avail, ", ")));
    }
    s.backend = name;
  }
  return s.backend;
}

void runtime_configure(const std::string& backend_name, const HwConfig& cfg) {
  const auto avail = available_backends();
  if (std::find(avail.begin(), avail.end(), backend_name) == avail.end()) {
    throw ConfigError(
        fmt::format("unknown backend '{}' (available: {})", backend_name, fmt::join(avail, ", ")));
  }
  runtime_reset();
  state().cfg = cfg;
  state().backend = backend_name;
}

Backend& runtime_device() {
  RuntimeState& s = state();
  if (!s.device) {
    const std::string& name = runtime_backend_name();
    s.device = make_backend(name, runtime_config(), runtime_dram());
  }
  return *s.device;
}

Backend& runtime_backend() {
  return runtime_device();
}

const Stats& runtime_stats() {
  return runtime_device().stats();
}
void runtime_clear_stats() {
  runtime_device().clear_stats();
}

CommandQueue& command_queue() {
  RuntimeState& s = state();
  if (!s.queue) {
    Backend& dev = runtime_device();
    s.queue =
        std::make_unique<CommandQueue>(runtime_config(), device_memory(), dev, s.hooks, s.max_xfer);
  }
  return *s.queue;
}

CommandQueue* current_command_queue() {
  return state().queue.get();
}

void destroy_command_queue() {
  state().queue.reset();
}

void runtime_reset() {
  RuntimeState& s = state();
  s.queue.reset();
  s.device.reset();
}

void runtime_set_program_observer(ProgramObserver observer) {
  state().hooks.observer = std::move(observer);
}
void runtime_set_skip_execution(bool skip) {
  state().hooks.skip_execution = skip;
}
void runtime_set_program_dump(const std::string& path) {
  state().hooks.dump_path = path;
}
void runtime_set_max_xfer(size_t bytes) {
  state().max_xfer = bytes;
}

std::vector<Insn> runtime_pending_insns() {
  CommandQueue* q = current_command_queue();
  return q != nullptr ? q->pending_insns() : std::vector<Insn>{};
}

void* new_device_handle() {
  runtime_device();  // creating the device reports a bad VTA_BACKEND / VTA_CONFIG here
  void* h = new char(0);
  state().device_handles.insert(h);
  return h;
}

void check_device_handle(void* handle, const char* who) {
  if (state().device_handles.count(handle) == 0) {
    throw Error(fmt::format("{}: {} is not a live device handle from VTADeviceAlloc", who, handle));
  }
}

void free_device_handle(void* handle) {
  check_device_handle(handle, "VTADeviceFree");
  state().device_handles.erase(handle);
  delete static_cast<char*>(handle);
}

void handle_c_api_error(const char* api) {
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
  if (state().mode == ErrorMode::kThrow) {
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

std::string& profiler_status_buffer() {
  return state().status_json;
}

}  // namespace vta
