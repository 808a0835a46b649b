"""Resident memory over many calls in one process (issue 26). Counts pages, not time.

fsim calls must not grow at all once warm. Each cycle backend keeps its SystemC kernel and
modules for the life of the process (SystemC cannot destroy a module with processes;
sim/include/vta/sim/cycle/sim_context.h): about 17 pages (70 KB) per backend, measured by
tests/bench/bench_python_memory.py. The cycle bound below is that cost with a margin, so any
new growth on top of it fails.
"""
import os

import pytest
import vtasim

FSIM_BOUND_PAGES = 64  # over all calls: allocator noise only, no per-call growth
CYCLE_PAGES_PER_BACKEND = 24  # measured 17 (SystemC kernel, modules, coroutine stacks)


def rss_pages():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1])


def growth(call, warmup, count):
    for _ in range(warmup):
        call()
    before = rss_pages()
    for _ in range(count):
        call()
    return rss_pages() - before


@pytest.fixture(scope="module")
def program(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("mem") / "small.vtaprog")
    vtasim.conv2d("pynq", c=16, h=4, w=4, k=16, backend="fsim", dump_program=path)
    return vtasim.Program.load(path)


def test_fsim_program_run_does_not_grow(program):
    assert growth(lambda: program.run("fsim"), 50, 1000) < FSIM_BOUND_PAGES


def test_fsim_conv2d_does_not_grow():
    call = lambda: vtasim.conv2d("pynq", c=16, h=4, w=4, k=16, backend="fsim")
    assert growth(call, 10, 100) < FSIM_BOUND_PAGES


def test_cycle_program_run_grows_only_by_its_kernel(program):
    calls = 200
    assert growth(lambda: program.run("cycle"), 20, calls) < calls * CYCLE_PAGES_PER_BACKEND
