"""multicore_mode "split" in a sweep, end to end (cycle backend, a few seconds):

1. configs/sweeps/cores_split.json with a small conv2d layer and CORES 1 and 2 of the zcu104's
   1x16x16 core, plus explicit points: the 2-core design replicated (a point's multicore_mode),
   and a CORES list of two different cores (invalid: the compiler's split needs identical
   cores). Each split row against `vtasim conv2d ... --set CORES=N --backend cycle`, run here as
   the independent path: the same config hash and cycles, the split the command chose in the
   `split` column; copies 1 and throughput = clock / cycles by hand; the system's cycles the
   slowest core's (all start together). The replicated point is another design (its own point
   id) with one copy per core.
2. A spec whose multicore_mode is not a mode: exit status 2 before any work, and a message that
   names the value and the modes.
3. The report: the split design's throughput (clock / cycles, by hand) in summary.json, and its
   mode and split in the multicore table.

usage: check_cores_split.py VTASIM SOURCE_DIR WORKDIR
"""
import json
import math
import os
import subprocess
import sys

from report_checks import summary_rows

CONV = "conv2d:c=32,hw=8,k=32,kernel=3,pad=1"
CONV_FLAGS = ["--c", "32", "--hw", "8", "--k", "32", "--kernel", "3", "--pad", "1"]
MIXED = [{}, {"LOG_BLOCK": 5}]


def fail(msg):
    sys.exit("FAIL: " + msg)


def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True)


def write_spec(src, work):
    with open(os.path.join(src, "configs/sweeps/cores_split.json")) as f:
        spec = json.load(f)
    if spec.get("multicore_mode") != "split" or spec.get("base") != "zcu104":
        fail("cores_split.json is not the zcu104 in the split mode: %s" % spec)
    spec["workloads"] = [CONV]
    spec["axes"] = {"CORES": [1, 2]}  # the zcu104's own 1x16x16 core at 333 MHz
    spec.pop("constraints", None)
    spec["points"] = [{"CORES": 2, "multicore_mode": "replicated"}, {"CORES": MIXED}]
    path = os.path.join(work, "cores_split_small.json")
    with open(path, "w") as f:
        json.dump(spec, f)
    return path


def cli_run(vtasim, cores, work):
    """`vtasim conv2d` of the same layer on CORES=N: its JSON report."""
    out = os.path.join(work, "conv2d_cores%d.json" % cores)
    p = run([vtasim, "conv2d"] + CONV_FLAGS + ["--config", "zcu104", "--set", "CORES=%d" % cores,
                                               "--backend", "cycle", "--json", out])
    if p.returncode != 0:
        fail("vtasim conv2d --set CORES=%d: exit %d\n%s" % (cores, p.returncode, p.stderr))
    with open(out) as f:
        return json.load(f)


def check_split_row(r, cli):
    cores = r["CORES"]
    what = "split row of %d core(s)" % cores
    if r["status"] != "ok" or r["multicore_mode"] != "split" or r["copies"] != 1:
        fail("%s: status %s, mode %s, copies %s (%s)" % (what, r["status"], r["multicore_mode"],
                                                        r["copies"], r["error"]))
    if r["config_hash"] != cli["config_hash"] or r["cycles"] != cli["cycles"]:
        fail("%s: config %s, %s cycles; vtasim conv2d: config %s, %s cycles"
             % (what, r["config_hash"], r["cycles"], cli["config_hash"], cli["cycles"]))
    chosen = cli["multicore"]["split"] if cores > 1 else None
    if r["split"] != chosen or (cores > 1 and chosen not in ("channels", "batch")):
        fail("%s: split %s, vtasim conv2d chose %s" % (what, r["split"], chosen))
    by_hand = r["CLOCK_MHZ"] * 1e6 / r["cycles"]
    if not math.isclose(r["throughput_per_s"], by_hand, rel_tol=1e-9):
        fail("%s: throughput %s, by hand %s" % (what, r["throughput_per_s"], by_hand))
    core_cycles = [r["core%d_cycles" % k] for k in range(cores)]
    if max(core_cycles) != r["cycles"] or any(
            r["core%d_dram_contention_cycles" % k] is None for k in range(cores)):
        fail("%s: cores' cycles %s, contention %s, system %s" % (
            what, core_cycles, [r["core%d_dram_contention_cycles" % k] for k in range(cores)],
            r["cycles"]))


def check_rows(vtasim, rows, work):
    split = {r["CORES"]: r for r in rows if r["multicore_mode"] == "split" and
             not str(r["CORES"]).startswith("[")}
    if sorted(split) != [1, 2]:
        fail("split rows of CORES %s, expected 1 and 2" % sorted(split))
    for cores, r in split.items():
        check_split_row(r, cli_run(vtasim, cores, work))
    repl = [r for r in rows if r["multicore_mode"] == "replicated"]
    if len(repl) != 1 or repl[0]["copies"] != 2 or repl[0]["point_id"] == split[2]["point_id"]:
        fail("the replicated point: %s" % [(r["point_id"], r["copies"]) for r in repl])
    mixed = [r for r in rows if str(r["CORES"]).startswith("[")]
    if len(mixed) != 1 or mixed[0]["status"] != "invalid" or \
            "needs identical cores" not in (mixed[0]["error"] or "") or \
            mixed[0]["multicore_mode"] != "split":
        fail("two different cores in the split mode: %s"
             % [(r["status"], r["multicore_mode"], r["error"]) for r in mixed])
    print("split rows: 1 core %d cycles, 2 cores %d cycles (%s) as vtasim conv2d; copies 1, "
          "throughput = clock / cycles; the replicated point its own design; different cores "
          "invalid" % (split[1]["cycles"], split[2]["cycles"], split[2]["split"]))
    return split[2]


def check_unknown_mode(vtasim, work):
    spec = os.path.join(work, "bad_mode.json")
    with open(spec, "w") as f:
        json.dump({"base": "zcu104", "multicore_mode": "diagonal", "workloads": [CONV]}, f)
    db = os.path.join(work, "bad_mode.sqlite")
    p = run([vtasim, "sweep", spec, "--db", db, "--quiet"])
    if p.returncode != 2 or '"diagonal"' not in p.stderr or "replicated, split" not in p.stderr \
            or os.path.exists(db):
        fail("unknown multicore_mode: exit %d, %s" % (p.returncode, p.stderr.strip()))
    print("unknown mode: exit 2, %s" % p.stderr.strip())


def check_report(vtasim, db, out, row):
    p = run([vtasim, "sweep", "report", db, "--out", out])
    if p.returncode != 0:
        fail("vtasim sweep report: exit %d\n%s" % (p.returncode, p.stderr))
    with open(os.path.join(out, "summary.json")) as f:
        mc = json.load(f).get("multicore")
    by_hand = row["CLOCK_MHZ"] * 1e6 / row["cycles"]
    if mc is None or not math.isclose(mc["throughput_per_s"][row["point_id"]], by_hand,
                                      rel_tol=1e-9):
        fail("report: the split design's throughput %s, by hand %s"
             % (mc and mc["throughput_per_s"].get(row["point_id"]), by_hand))
    with open(os.path.join(out, "index.html")) as f:
        page = f.read()
    start = page.find("id='multicore-table'")
    cell = "<td>split: %s</td>" % row["split"]
    if start < 0 or cell not in page[start:] or "<td>replicated</td>" not in page[start:]:
        fail("report: the multicore table does not name the modes (%s, replicated)" % cell)
    print("report: the split design at %.1f per second, its mode '%s' in the table"
          % (by_hand, cell[4:-5]))


def main():
    vtasim, src, work = sys.argv[1:4]
    os.makedirs(work, exist_ok=True)
    db = os.path.join(work, "cores_split.sqlite")
    if os.path.exists(db):
        os.remove(db)
    spec = write_spec(src, work)
    p = run([vtasim, "sweep", spec, "--db", db, "-j", "2", "--quiet"])
    if p.returncode != 0:
        fail("vtasim sweep %s: exit %d\n%s%s" % (spec, p.returncode, p.stdout, p.stderr))
    row = check_rows(vtasim, summary_rows(db), work)
    check_unknown_mode(vtasim, work)
    check_report(vtasim, db, os.path.join(work, "report"), row)


if __name__ == "__main__":
    main()
