// C++ side of libvta beyond the upstream C API of runtime.h / driver.h. vta::Runtime
// (vta/runtime_object.h) is a runtime as an object; the C API and the functions below act on its
// default instance, Runtime::default_instance(): one simulated DRAM, one device (backend +
// hardware config) and one command queue for C code that knows no instance.
//
// Error policy: every failure inside the runtime is a vta::Error (ConfigError for a bad config
// or backend, ProgramError for a program the backend rejects). The C entry points catch it and,
// in ErrorMode::kExit (the default), print "vta: error: <msg>" to stderr and exit(1); in
// ErrorMode::kThrow they rethrow it to the (C++) caller instead. The C++ functions below always
// throw.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "vta/runtime.h"
#include "vta/runtime_object.h"
#include "vta/sim/backend.h"
#include "vta/sim/dram.h"
#include "vta/sim/error.h"
#include "vta/sim/hw_config.h"
#include "vta/sim/isa.h"
#include "vta/sim/stats.h"

namespace vta {

// Error policy of the C entry points (acting on the default instance).
void set_error_mode(ErrorMode mode);
ErrorMode error_mode();

// Chooses the backend ("fsim", "cycle", "rtl") and hardware config of the runtime. Without this
// call they come from $VTA_BACKEND / $VTA_CONFIG on first use. Calling it again destroys the
// current device and command queue (pending instructions are dropped, statistics cleared);
// DRAM allocations survive. Throws Error for an unknown backend (nothing is changed then).
void runtime_configure(const std::string& backend_name, const HwConfig& cfg);
// The active configuration / backend name (resolved from the environment if not configured).
const HwConfig& runtime_config();
const std::string& runtime_backend_name();

// The process-wide simulated DRAM behind VTAMemAlloc / VTABufferAlloc.
Dram& runtime_dram();
// The backend of the command queue's device (created on first use).
Backend& runtime_backend();

// Statistics of everything the command queue's device ran since the last clear (the same data
// as VTASimProfilerStatus, structured).
const Stats& runtime_stats();
void runtime_clear_stats();

// Destroys the command queue (pending instructions, uop residency, carried dependency tokens)
// and the device; the next call recreates them with the same backend and config. Statistics
// are cleared. Recorded micro-op kernels (owned by the callers' static handles) are kept.
void runtime_reset();

// ---- Observing the instruction streams ----

// Called at every synchronisation (explicit or automatic) after the stream is final, before it
// runs. Pass nullptr to remove.
void runtime_set_program_observer(ProgramObserver observer);
// When true, synchronisations build and verify the stream (and call the observer) but do not
// run it; the queues are reset as after a run.
void runtime_set_skip_execution(bool skip);

// Decoded instructions appended since the last synchronisation (no final syncs, no FINISH).
std::vector<Insn> runtime_pending_insns();

// Writes every synchronised program to `path` as a program image (vta/sim/program_image.h) for
// `vtasim run`: the instruction stream, the uop image and every live data allocation, taken
// before the program runs (empty path: off). Same as $VTA_DUMP_PROGRAM. "%d" in the path is
// replaced by the program's index in this command queue; otherwise each program overwrites the
// file.
void runtime_set_program_dump(const std::string& path);

// Size of the instruction and uop DRAM buffers (default VTA_MAX_XFER); a smaller value makes
// automatic synchronisation observable in tests. Applies from the next command queue
// (call runtime_reset() after it).
void runtime_set_max_xfer(size_t bytes);

}  // namespace vta
