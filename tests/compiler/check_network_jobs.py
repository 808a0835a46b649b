#!/usr/bin/env python3
"""vtasim network -j N against -j 1: the same report (every layer's schedule, cycles and counters,
the summary and the check; wall times aside), the same table on stdout, and a failing layer
reported the same way (exit status, error line, the report of the layers done so far).
Usage: check_network_jobs.py VTASIM SOURCE_DIR WORK_DIR"""
import json
import re
import subprocess
import sys


def run(vtasim, args):
    return subprocess.run([vtasim] + args, capture_output=True, text=True, timeout=600)


def without_wall(o):
    if isinstance(o, dict):
        return {k: without_wall(v) for k, v in o.items() if "wall" not in k}
    if isinstance(o, list):
        return [without_wall(v) for v in o]
    return o


def table(stdout):
    # The table without its wall-time figures ("wall 0.123 s").
    return re.sub(r"wall( time)? +[0-9.]+ s", "wall - s", stdout)


def stderr_lines(stderr):
    # Layer lines and errors; progress lines ("network N: 3/7 VTA layers, ... elapsed 1s") depend
    # on timing and are left out.
    progress = re.compile(r"^network \S+: \d+/\d+ VTA layers, ")
    return [l for l in stderr.strip().splitlines() if not progress.match(l)]


def compare(vtasim, work, name, args, rc):
    runs = {}
    for j in (1, 2):
        out = f"{work}/{name}_j{j}.json"
        p = run(vtasim, args + ["--json", out, "-j", str(j)])
        if p.returncode != rc:
            sys.exit(f"{name} -j {j}: exit status {p.returncode}, expected {rc}\n{p.stderr}")
        with open(out) as f:
            runs[j] = (without_wall(json.load(f)), table(p.stdout), stderr_lines(p.stderr))
    (rep1, out1, err1), (rep2, out2, err2) = runs[1], runs[2]
    if rep1 != rep2:
        sys.exit(f"{name}: the -j 2 report differs from -j 1")
    if out1 != out2:
        sys.exit(f"{name}: the -j 2 table differs from -j 1:\n{out1}\n---\n{out2}")
    if err1 != err2:
        sys.exit(f"{name}: the -j 2 progress/error lines differ from -j 1:\n{err1}\n---\n{err2}")
    return rep1


def main():
    vtasim, src, work = sys.argv[1:4]
    rep = compare(vtasim, work, "tiny", ["network", src + "/compiler/networks/tiny_resnet.json",
                                         "--backend", "cycle"], 0)
    if len(rep["layers"]) != 7 or rep["summary"]["check"] != "passed":
        sys.exit(f"tiny: unexpected report {rep['summary']}")
    if not all(l["cycles"] > 0 for l in rep["layers"]):
        sys.exit("tiny: a layer without cycles")
    rep = compare(vtasim, work, "fails", ["network", src +
                                          "/tests/compiler/data/net_second_layer_fails.json",
                                          "--backend", "cycle"], 1)
    if rep["failure"]["layer"] != "second" or [l["name"] for l in rep["layers"]] != ["first"]:
        sys.exit(f"fails: unexpected failure report {rep.get('failure')}")
    print("network -j 2 equals -j 1 (report, table, progress, failure)")


if __name__ == "__main__":
    main()
