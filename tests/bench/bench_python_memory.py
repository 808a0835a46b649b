"""RSS growth of repeated vtasim calls in one process (issue 26: memory growth per call).

Run against a build tree:
  PYTHONPATH=build/python /usr/bin/python3 tests/bench/bench_python_memory.py [--runs 1000]
Prints, per call kind, the resident set after a warm-up and after N more calls, and the growth
per call in bytes. Steady growth means a leak or an unbounded cache.
"""
import argparse
import os
import tempfile

import vtasim

SOURCE_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")


def rss_pages():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1])


def measure(name, call, warmup, count):
    for _ in range(warmup):
        call()
    before = rss_pages()
    for _ in range(count):
        call()
    after = rss_pages()
    page = os.sysconf("SC_PAGE_SIZE")
    grown = (after - before) * page
    print("%-28s %5d calls: RSS %7.1f MB -> %7.1f MB, growth %8.0f bytes/call (%d pages)" %
          (name, count, before * page / 1e6, after * page / 1e6, grown / count, after - before))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=1000, help="Program.run calls per backend")
    ap.add_argument("--layers", type=int, default=100, help="conv2d / network calls")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "small.vtaprog")
        vtasim.conv2d("pynq", c=16, h=4, w=4, k=16, backend="fsim", dump_program=path)
        prog = vtasim.Program.load(path)
        for backend in ("fsim", "cycle"):
            measure("Program.run(%s)" % backend, lambda: prog.run(backend), 50, args.runs)
        net = os.path.join(SOURCE_DIR, "compiler", "networks", "tiny_resnet.json")
        for backend in ("fsim", "cycle"):
            conv = lambda: vtasim.conv2d("pynq", c=16, h=4, w=4, k=16, backend=backend)
            measure("conv2d(%s, 16x4x4)" % backend, conv, 10, args.layers)
            measure("network(%s, tiny_resnet)" % backend,
                    lambda: vtasim.network(net, backend=backend), 10, args.layers)

if __name__ == "__main__":
    main()
