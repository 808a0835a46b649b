#include "vta/runtime_object.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "command_queue.h"
#include "core_device.h"
#include "device_memory.h"
#include "dma_bounds.h"
#include "runtime_context.h"
#include "uop_kernel.h"
#include "vta/backend_factory.h"
#include "vta/runtime.h"
#include "vta/sim/error.h"
#include "vta/sim/run_progress.h"

namespace vta {

namespace {

thread_local Runtime* t_recording = nullptr;

uint64_t next_runtime_id() {
  static std::atomic<uint64_t> id{0};
  return id.fetch_add(1, std::memory_order_relaxed) + 1;
}

void check_backend_name(const std::string& name, const char* what) {
  const auto avail = available_backends();
  if (std::find(avail.begin(), avail.end(), name) == avail.end()) {
    throw ConfigError(
        fmt::format("{}{}: unknown backend (available: {})", what, name, fmt::join(avail, ", ")));
  }
}

// Runs `f`; an error leaves with the name of the C call it stands for in front, as the C entry
// points report it (so C++ callers see the same messages). A run stopped by the caller's stop
// check (vta/sim/run_progress.h: Ctrl-C in Python) is no error of the call and passes unchanged.
template <class F>
auto named(const char* api, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const RunInterrupted&) {
    throw;
  } catch (...) {
    handle_c_api_error(api, ErrorMode::kThrow);
  }
}

bool dma_bounds_from_env() {
  const char* v = std::getenv("VTA_DMA_BOUNDS");
  return v == nullptr || std::strcmp(v, "off") != 0;
}

}  // namespace

// Members are destroyed in reverse order: the queue (which frees its DRAM buffers) before the
// device, both before the kernel maps and the memory.
struct Runtime::Impl {
  uint64_t id = next_runtime_id();
  std::optional<HwConfig> cfg;  // unset: $VTA_CONFIG on first use
  std::string backend;          // empty: $VTA_BACKEND on first use
  Dram dram;
  DeviceMemory mem{dram};
  UopKernelMaps kernels;
  SyncHooks hooks;
  ErrorMode mode = ErrorMode::kThrow;
  size_t max_xfer = VTA_MAX_XFER;
  std::map<void*, int> device_handles;  // live handle -> its core
  std::string status_json;
  std::unique_ptr<Backend> device;
  std::unique_ptr<CommandQueue> queue;  // core 0's
  // CORES (docs/multicore.md): each core as a device, cores 1..N-1's command queues, the core
  // the runtime calls record for, and the programs of a system run.
  std::unique_ptr<SystemRun> batch;
  std::vector<std::unique_ptr<CoreDevice>> core_devices;
  std::vector<std::unique_ptr<CommandQueue>> core_queues;
  int command_core = 0;
  bool replicate = false;  // set_replicated_run

  // The environment's switches, read when the runtime is created.
  Impl() {
    hooks.dma_bounds = dma_bounds_from_env();
    const char* dump = std::getenv("VTA_DUMP_PROGRAM");
    if (dump != nullptr) {
      hooks.dump_path = dump;
    }
  }
  ~Impl() {
    for (const auto& [h, core] : device_handles) {  // handles the caller never freed
      delete static_cast<char*>(h);
    }
  }
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;
};

Runtime::Runtime(std::string backend_name, HwConfig cfg) : m(std::make_unique<Impl>()) {
  m->cfg = std::move(cfg);
  m->backend = std::move(backend_name);
}

Runtime::Runtime(FromEnvironment) : m(std::make_unique<Impl>()) {
  m->mode = ErrorMode::kExit;
}

Runtime::~Runtime() = default;

Runtime& Runtime::default_instance() {
  // Never destroyed: buffers may be freed by static destructors of the user's program. Its
  // device and queue are closed at exit, as a process-wide runtime would be.
  static Runtime* instance = new Runtime(FromEnvironment{});
  static struct CloseAtExit {
    ~CloseAtExit() { instance->reset(); }
  } close_at_exit;
  return *instance;
}

Runtime* Runtime::recording_on_this_thread() {
  return t_recording;
}

uint64_t Runtime::id() const {
  return m->id;
}

// ---- Device and configuration ----

void Runtime::configure(const std::string& backend_name, const HwConfig& cfg) {
  const auto avail = available_backends();
  if (std::find(avail.begin(), avail.end(), backend_name) == avail.end()) {
    throw ConfigError(
        fmt::format("unknown backend '{}' (available: {})", backend_name, fmt::join(avail, ", ")));
  }
  reset();
  m->cfg = cfg;
  m->backend = backend_name;
}

const HwConfig& Runtime::config() {
  if (!m->cfg) {
    try {
      m->cfg = HwConfig::from_env();
    } catch (const std::exception& e) {
      const char* env = std::getenv("VTA_CONFIG");
      throw ConfigError(fmt::format("VTA_CONFIG={}: {}", env != nullptr ? env : "", e.what()));
    }
  }
  return *m->cfg;
}

const std::string& Runtime::backend_name() {
  if (m->backend.empty()) {
    const std::string name = backend_name_from_env();
    check_backend_name(name, "VTA_BACKEND=");
    m->backend = name;
  }
  return m->backend;
}

Dram& Runtime::dram() {
  return m->dram;
}

Backend& Runtime::backend() {
  if (!m->device) {
    const std::string& name = backend_name();
    check_backend_name(name, "backend ");
    m->device = make_backend(name, config(), m->dram);
  }
  return *m->device;
}

const Stats& Runtime::stats() {
  return backend().stats();
}

void Runtime::clear_stats() {
  backend().clear_stats();
}

void Runtime::reset() {
  m->core_queues.clear();
  m->queue.reset();
  m->core_devices.clear();
  m->batch.reset();
  m->device.reset();
  m->command_core = 0;
}

Backend& Runtime::core_device(int core) {
  Backend& system = backend();
  if (config().cores == 0) {
    return system;  // no CORES: the one core, exactly as without systems
  }
  check_core(core, "core");
  if (m->core_devices.empty()) {
    m->batch = std::make_unique<SystemRun>(system);
    m->batch->replicate = m->replicate;
    for (int k = 0; k < system.cores(); ++k) {
      m->core_devices.push_back(std::make_unique<CoreDevice>(system, k, *m->batch));
    }
  }
  return *m->core_devices[static_cast<size_t>(core)];
}

void Runtime::check_core(int core, const char* who) {
  const int n = config().num_cores();
  if (core < 0 || core >= n) {
    throw Error(fmt::format("{}: core {} does not exist (the config has {} core{}: CORES)", who,
                            core, n, n == 1 ? "" : "s"));
  }
}

void Runtime::set_error_mode(ErrorMode mode) {
  m->mode = mode;
}

ErrorMode Runtime::error_mode() const {
  return m->mode;
}

void Runtime::set_dma_bounds_check(bool on) {
  m->hooks.dma_bounds = on;
}

bool Runtime::dma_bounds_check() const {
  return m->hooks.dma_bounds;
}

// ---- Hooks ----

void Runtime::set_program_observer(ProgramObserver observer) {
  m->hooks.observer = std::move(observer);
}

void Runtime::set_skip_execution(bool skip) {
  m->hooks.skip_execution = skip;
}

void Runtime::set_program_dump(const std::string& path) {
  m->hooks.dump_path = path;
}

void Runtime::set_max_xfer(size_t bytes) {
  m->max_xfer = bytes;
}

std::vector<Insn> Runtime::pending_insns() const {
  return m->queue ? m->queue->pending_insns() : std::vector<Insn>{};
}

// ---- Buffers ----

void* Runtime::buffer_alloc(size_t bytes, const char* who) {
  return named(who, [&] { return m->mem.alloc(bytes); });
}

void Runtime::buffer_free(void* buffer, const char* who) {
  named(who, [&] { m->mem.free(buffer, who); });
}

void Runtime::buffer_copy(const void* from, size_t from_offset, void* to, size_t to_offset,
                          size_t size, int kind_mask, const char* who) {
  named(who, [&] {
    if (kind_mask < 0 || kind_mask > 3) {
      throw Error(fmt::format("{}: kind_mask {} (1 = to device, 2 = from device, 3 = both)", who,
                              kind_mask));
    }
    const uint8_t* src = DeviceMemory::host_range(from, from_offset, size, who, "source");
    auto* dst =
        const_cast<uint8_t*>(DeviceMemory::host_range(to, to_offset, size, who, "destination"));
    if (kind_mask & 2) {
      m->mem.check_range(src, size, who, "source");
    }
    if (kind_mask & 1) {
      m->mem.check_range(dst, size, who, "destination");
    }
    if (size > 0) {
      std::memmove(dst, src, size);
    }
  });
}

uint32_t Runtime::phys_addr(const void* buffer, const char* who) {
  return named(who, [&] { return m->mem.phys_addr(buffer, who); });
}

// ---- Command queue ----

void* Runtime::command_handle() {
  const int core = m->command_core;
  if (core == 0) {
    if (!m->queue) {
      Backend& dev = core_device(0);
      m->queue =
          std::make_unique<CommandQueue>(config(), m->mem, dev, m->kernels, m->hooks, m->max_xfer);
    }
    return m->queue.get();
  }
  m->core_queues.resize(static_cast<size_t>(config().num_cores()) - 1);
  std::unique_ptr<CommandQueue>& q = m->core_queues[static_cast<size_t>(core) - 1];
  if (!q) {
    Backend& dev = core_device(core);
    q = std::make_unique<CommandQueue>(dev.config(), m->mem, dev, m->kernels, m->hooks,
                                       m->max_xfer);
  }
  return q.get();
}

CommandQueue& Runtime::queue() {
  return *static_cast<CommandQueue*>(command_handle());
}

void* Runtime::live_command_handle() const {
  const auto k = static_cast<size_t>(m->command_core);
  if (k == 0) {
    return m->queue.get();
  }
  return k <= m->core_queues.size() ? m->core_queues[k - 1].get() : nullptr;
}

void Runtime::shutdown_queue() {
  m->core_queues.clear();
  m->queue.reset();
}

void Runtime::set_debug_mode(int flags) {
  queue().set_debug_flags(flags);
}

void Runtime::load_buffer_2d(void* src, uint32_t src_elem_offset, uint32_t x_size, uint32_t y_size,
                             uint32_t x_stride, uint32_t x_pad_before, uint32_t y_pad_before,
                             uint32_t x_pad_after, uint32_t y_pad_after, uint32_t dst_sram_index,
                             uint32_t dst_memory_type) {
  named("VTALoadBuffer2D", [&] {
    queue().load_buffer_2d(src, src_elem_offset, x_size, y_size, x_stride, x_pad_before,
                           y_pad_before, x_pad_after, y_pad_after, dst_sram_index, dst_memory_type);
  });
}

void Runtime::store_buffer_2d(uint32_t src_sram_index, uint32_t src_memory_type, void* dst,
                              uint32_t dst_elem_offset, uint32_t x_size, uint32_t y_size,
                              uint32_t x_stride) {
  named("VTAStoreBuffer2D", [&] {
    queue().store_buffer_2d(src_sram_index, src_memory_type, dst, dst_elem_offset, x_size, y_size,
                            x_stride);
  });
}

void Runtime::push_kernel_op(uint32_t mode, void** uop_handle, int (*finit)(void*), void* signature,
                             int nbytes) {
  named(mode == 0 ? "VTAPushGEMMOp" : "VTAPushALUOp", [&] {
    CommandQueue& q = queue();
    Runtime* const outer = t_recording;
    t_recording = this;  // finit's VTAUopPush calls come back here
    struct Restore {
      Runtime* outer;
      ~Restore() { t_recording = outer; }
    } restore{outer};
    q.push_kernel_op(mode, uop_handle, finit, signature, nbytes);
  });
}

void Runtime::uop_loop_begin(uint32_t extent, uint32_t dst_factor, uint32_t src_factor,
                             uint32_t wgt_factor) {
  named("VTAUopLoopBegin", [&] {
    queue()
        .recording("VTAUopLoopBegin")
        .loop_begin(UopLoop{extent, dst_factor, src_factor, wgt_factor});
  });
}

void Runtime::uop_push(uint32_t mode, uint32_t reset_out, uint32_t dst_index, uint32_t src_index,
                       uint32_t wgt_index, uint32_t opcode, uint32_t use_imm, int32_t imm_val) {
  named("VTAUopPush", [&] {
    queue()
        .recording("VTAUopPush")
        .push(mode, reset_out, dst_index, src_index, wgt_index, opcode, use_imm, imm_val);
  });
}

void Runtime::uop_loop_end() {
  named("VTAUopLoopEnd", [&] { queue().recording("VTAUopLoopEnd").loop_end(); });
}

void Runtime::dep_push(int from_qid, int to_qid) {
  named("VTADepPush", [&] { queue().dep_push(from_qid, to_qid); });
}

void Runtime::dep_pop(int from_qid, int to_qid) {
  named("VTADepPop", [&] { queue().dep_pop(from_qid, to_qid); });
}

void Runtime::synchronize(uint32_t wait_cycles) {
  named("VTASynchronize", [&] { queue().synchronize(wait_cycles); });
}

// ---- Driver ----

void* Runtime::device_alloc() {
  backend();  // creating the device reports a bad VTA_BACKEND / VTA_CONFIG here
  int core = 0;
  if (config().cores != 0) {
    // The lowest core no live handle holds.
    std::vector<bool> held(static_cast<size_t>(config().cores), false);
    for (const auto& [h, c] : m->device_handles) {
      held[static_cast<size_t>(c)] = true;
    }
    while (core < config().cores && held[static_cast<size_t>(core)]) {
      ++core;
    }
    if (core == config().cores) {
      throw Error(fmt::format(
          "VTADeviceAlloc: every core of the system (CORES = {}) has a device; free one or use "
          "VTADeviceAllocCore",
          config().cores));
    }
  }
  void* h = new char(0);
  m->device_handles[h] = core;
  return h;
}

void* Runtime::device_alloc_core(int core) {
  backend();
  check_core(core, "VTADeviceAllocCore");
  void* h = new char(0);
  m->device_handles[h] = core;
  return h;
}

int Runtime::device_core(void* handle) const {
  check_device_handle(handle, "VTADeviceCore");
  return m->device_handles.at(handle);
}

void Runtime::check_device_handle(void* handle, const char* who) const {
  if (m->device_handles.count(handle) == 0) {
    throw Error(fmt::format("{}: {} is not a live device handle from VTADeviceAlloc", who, handle));
  }
}

void Runtime::device_free(void* handle) {
  check_device_handle(handle, "VTADeviceFree");
  m->device_handles.erase(handle);
  delete static_cast<char*>(handle);
}

bool Runtime::device_run(void* handle, uint32_t insn_phys, uint32_t insn_count,
                         uint32_t wait_cycles) {
  return named("VTADeviceRun", [&] {
    check_device_handle(handle, "VTADeviceRun");
    Backend& dev = core_device(m->device_handles.at(handle));
    if (m->hooks.dma_bounds) {
      check_dma_bounds(m->mem, dev.config(), insn_phys, insn_count, "VTADeviceRun");
    }
    return dev.run(insn_phys, insn_count, wait_cycles) == RunStatus::kTimeout;
  });
}

void Runtime::set_command_core(int core) {
  named("VTACommandCore", [&] {
    check_core(core, "VTACommandCore");
    m->command_core = core;
  });
}

int Runtime::command_core() const {
  return m->command_core;
}

void Runtime::system_begin() {
  named("VTASystemBegin", [&] {
    if (config().cores == 0) {
      throw Error("the config has no CORES key: one core, nothing to run together");
    }
    core_device(0);
    m->batch->begin();
  });
}

bool Runtime::system_run(uint32_t wait_cycles) {
  return named("VTASystemRun", [&] {
    if (!m->batch) {
      throw Error("no system run was begun (VTASystemBegin first)");
    }
    return m->batch->run(wait_cycles);
  });
}

void Runtime::set_replicated_run(bool on) {
  if (on) {
    if (config().cores == 0) {
      throw Error("replicated runs need a system of several cores (the config has no CORES)");
    }
    const nlohmann::json first = config().core_config(0).to_json();
    for (int k = 1; k < config().cores; ++k) {
      if (config().core_config(k).to_json() != first) {
        throw Error(fmt::format(
            "replicated runs need identical cores (one program for all): core {} differs from "
            "core 0",
            k));
      }
    }
  }
  m->replicate = on;
  if (m->batch) {
    m->batch->replicate = on;
  }
}

const char* Runtime::profiler_status() {
  m->status_json = stats().to_json().dump();
  return m->status_json.c_str();
}

}  // namespace vta
