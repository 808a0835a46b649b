"""Resident memory over many calls in one process (issue 26). Counts pages, not time.

No call may grow the process once warm, on fsim or cycle: a cycle backend's SystemC kernel and
modules cannot be freed, so a destroyed backend's core is parked and the next backend of the
same hardware reuses it (sim/src/cycle/cycle_backend.cc). Before that pool each cycle call kept
about 70 KB (17 pages); tests/bench/bench_python_memory.py measures 0 pages over 1,000 calls now.
The bound is allocator noise over all calls, far below one page per call.
"""
import os

import pytest
import vtasim

BOUND_PAGES = 64  # over all calls: allocator noise only, no per-call growth


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
    assert growth(lambda: program.run("fsim"), 50, 1000) < BOUND_PAGES


def test_fsim_conv2d_does_not_grow():
    call = lambda: vtasim.conv2d("pynq", c=16, h=4, w=4, k=16, backend="fsim")
    assert growth(call, 10, 100) < BOUND_PAGES


def test_cycle_program_run_does_not_grow(program):
    assert growth(lambda: program.run("cycle"), 20, 300) < BOUND_PAGES


def test_cycle_conv2d_does_not_grow():
    call = lambda: vtasim.conv2d("pynq", c=16, h=4, w=4, k=16, backend="cycle")
    assert growth(call, 10, 100) < BOUND_PAGES


def test_cycle_network_does_not_grow():
    net = os.path.join(os.path.dirname(__file__), "..", "..", "compiler", "networks",
                       "tiny_resnet.json")
    assert growth(lambda: vtasim.network(net, backend="cycle"), 5, 50) < BOUND_PAGES
