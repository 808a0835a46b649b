#!/usr/bin/env bash
# The sanitizer gate: builds vta-sim with AddressSanitizer + UndefinedBehaviorSanitizer
# (-DVTA_SANITIZE=ON) into build-asan, without the RTL backend (its Verilated models take most
# of a build and are covered by the normal build), and runs the unit, ISA, contract, fsim,
# cycle, runtime and compiler suites under it, fuzz test included. Any sanitizer report fails
# the test that triggers it. Usage: scripts/sanitize.sh [extra ctest arguments]
set -euo pipefail
cd "$(dirname "$0")/.."

# SystemC runs every SC_THREAD on a coroutine stack of its own (QuickThreads in Debian's
# libsystemc) and tells ASan about each switch, except that the switch back to the main stack
# names none; vta::cycle::SimContext::start gives ASan the real stack back after every
# sc_start, so exceptions thrown out of a cycle run are checked like any other. ASan's fake
# stacks for use-after-return detection cannot follow coroutine switches at all:
# detect_stack_use_after_return=0 turns off that one check (every other stack, heap and global
# check stays on). The SystemC kernels and processes of the cycle cores live until the process
# exits by design (SystemC cannot free them; destroyed backends park their cores for reuse,
# sim/README.md), so leak detection would report them at every exit: detect_leaks=0. UBSan
# stops at the first report.
export ASAN_OPTIONS="detect_stack_use_after_return=0:detect_leaks=0:abort_on_error=1:${ASAN_OPTIONS:-}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:${UBSAN_OPTIONS:-}"
# (Set before the build too: catch_discover_tests runs each test binary to list its tests.)

jobs=$(nproc 2>/dev/null || echo 2)
# -O1: instrumented code at -O3 takes twice as long to compile (cli/cmd_run.cc: 19 s against 10 s)
# and the suites below run in about a minute either way; -O1 keeps the stack traces readable.
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Release -DVTA_SANITIZE=ON -DVTA_BUILD_RTL=OFF \
  "-DCMAKE_CXX_FLAGS_RELEASE=-O1 -DNDEBUG" "-DCMAKE_C_FLAGS_RELEASE=-O1 -DNDEBUG" >/dev/null
# Only what the suites below run (no benchmarks, no install or exploration tests), and the
# backend plugins libvta loads on first use (the cycle backend: nothing links it).
targets=(vtasim test_contract test_cycle test_fsim test_isa test_reliability test_runtime
  test_runtime_cycle test_runtime_c test_compiler test_explore_models vta_vcd_check
  vta_backend_plugins)
cmake --build build-asan -j "$jobs" --target "${targets[@]}" 2>&1 | grep -E "error|warning" || true
cmake --build build-asan -j "$jobs" --target "${targets[@]}" >/dev/null

ctest --test-dir build-asan -L '^(unit|isa|contract|fsim|cycle|runtime|compiler)$' \
  --output-on-failure -j "$jobs" "$@"
