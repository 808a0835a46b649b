"""`vtasim sweep` never loses or keeps stale results, read back with Python's own sqlite3:
export and merge refuse to write over an input (the database under any name, its journal) and
create nothing when an input is missing; resume reruns a job whose seed, check or network file
changed and skips it when nothing did; two sweeps started at once on one new database both
finish with all their rows; the report names an untimed database and an --out it cannot write.

usage: check_sweep_data_safety.py VTASIM WORKDIR
"""
import os
import shutil
import sqlite3
import subprocess
import sys

from sweep_cli import SweepCli, fail

VTASIM, WORK = sys.argv[1:3]
CLI = SweepCli(VTASIM, WORK)
vtasim = CLI.run
write_spec = CLI.write_spec


def summaries(db):
    con = sqlite3.connect(db)
    out = {r[0]: r[1] for r in con.execute(
        "SELECT point_id || '|' || workload, settings_id FROM results WHERE row_kind = 'summary'")}
    con.close()
    return out


def count_rows(db):
    con = sqlite3.connect(db)
    n = con.execute("SELECT count(*) FROM results").fetchone()[0]
    con.close()
    return n




def ran(p):
    # "... = 2 jobs; ran R, D already done; ..."
    text = p.stdout
    return int(text.split("; ran ")[1].split(",")[0])


def check_export_and_merge_inputs(db):
    before = count_rows(db)
    for out in (db, os.path.join(WORK, ".", os.path.basename(db)), db + "-journal"):
        for fmt in ("--csv", "--jsonl"):
            err = vtasim(["sweep", "export", db, fmt, out], status=1).stderr
            if "refusing to write over an input" not in err:
                fail("export %s %s: %s" % (fmt, out, err))
    if count_rows(db) != before or os.path.exists(db + "-journal"):
        fail("export over the database changed it")
    link = os.path.join(WORK, "hardlink.sqlite")
    os.link(db, link)
    vtasim(["sweep", "export", db, "--csv", link], status=1)
    os.remove(link)
    out = os.path.join(WORK, "merged.sqlite")
    err = vtasim(["sweep", "merge", out, os.path.join(WORK, "missing.sqlite")], status=1).stderr
    if "missing.sqlite" not in err or os.path.exists(out):
        fail("merge with a missing input: %s (output exists: %s)" % (err, os.path.exists(out)))
    err = vtasim(["sweep", "merge", db, db], status=1).stderr
    if "refusing to write over an input" not in err or count_rows(db) != before:
        fail("merge into its own input: " + err)
    print("export/merge: the database, its journal and a hard link are refused; nothing created")


def check_resume_keys():
    net = os.path.join(WORK, "net.json")
    src = os.path.join(os.path.dirname(VTASIM), "..", "compiler", "networks", "tiny_resnet.json")
    if not os.path.exists(src):
        src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "compiler",
                           "networks", "tiny_resnet.json")
    shutil.copy(src, net)
    base = {"base": "pynq", "axes": {"LOG_BUS_WIDTH": [6, 7]},
            "workloads": ["matmul:16x16x16", "network:net.json"], "backend": "fsim", "seed": 1}
    spec = write_spec("resume.json", base)
    db = os.path.join(WORK, "resume.sqlite")
    if ran(vtasim(["sweep", spec, "--db", db])) != 4:
        fail("first run")
    first = summaries(db)
    if ran(vtasim(["sweep", spec, "--db", db])) != 0:
        fail("an unchanged spec ran jobs again")
    spec = write_spec("resume.json", dict(base, seed=2))
    if ran(vtasim(["sweep", spec, "--db", db])) != 2:  # the matmul jobs; the network has no seed
        fail("a new seed did not rerun the seeded jobs")
    second = summaries(db)
    changed = sorted(k for k in first if first[k] != second[k])
    if len(changed) != 2 or any("matmul" not in k for k in changed) or len(second) != 4:
        fail("seed: changed jobs %s" % changed)
    spec = write_spec("resume.json", dict(base, seed=2, check=False))
    if ran(vtasim(["sweep", spec, "--db", db])) != 4:
        fail("turning the check off did not rerun every job")
    with open(net) as f:
        text = f.read()
    with open(net, "w") as f:
        f.write(text + "\n ")  # other bytes: another file for resume
    if ran(vtasim(["sweep", spec, "--db", db])) != 2:
        fail("a changed network file did not rerun its jobs")
    if count_rows(db) != len(sqlite3.connect(db).execute(
            "SELECT DISTINCT point_id, workload, layer_index FROM results").fetchall()):
        fail("stale rows left behind")
    print("resume: seed, check and the network file's bytes rerun exactly the jobs they change")
    return db


def check_report_errors(fsim_db):
    err = vtasim(["sweep", "report", fsim_db, "--out", os.path.join(WORK, "rep")], status=1).stderr
    if "ran on the fsim backend, which has no cycles" not in err or "Traceback" in err:
        fail("report of an fsim database: " + err)
    spec = write_spec("timed.json", {"base": "pynq", "axes": {"LOG_BUS_WIDTH": [6, 7]},
                                     "workloads": ["matmul:16x16x16"], "backend": "cycle"})
    timed_db = os.path.join(WORK, "timed.sqlite")
    vtasim(["sweep", spec, "--db", timed_db])
    blocker = os.path.join(WORK, "a_file")
    open(blocker, "w").close()
    err = vtasim(["sweep", "report", timed_db, "--out", os.path.join(blocker, "sub")],
                 status=1).stderr
    if "cannot write the report to --out" not in err or "Traceback" in err:
        fail("report with an --out that cannot be made: " + err)
    print("report: an fsim database and a bad --out are named errors, no traceback")


def check_spec_error_creates_nothing():
    # The space is expanded once, in the sweep itself, before its database is opened.
    spec = write_spec("bad_constraint.json", {
        "base": "pynq", "axes": {"LOG_BLOCK": [4, 5]},
        "constraints": "LOG_BLOCK / (LOG_BLOCK - 4) > 0",
        "workloads": ["matmul:16x16x16"], "backend": "fsim"})
    db = os.path.join(WORK, "never.sqlite")
    err = vtasim(["sweep", spec, "--db", db], status=2).stderr
    if "division by zero (point pynq)" not in err or os.path.exists(db):
        fail("a constraint error: %s (database created: %s)" % (err, os.path.exists(db)))
    print("a constraint that cannot be evaluated: exit 2, no database")


def check_concurrent_sweeps():
    db = os.path.join(WORK, "shared.sqlite")
    specs = [write_spec("c%d.json" % i, {
        "base": "pynq", "axes": {"LOG_BUS_WIDTH": [6, 7], "LOG_BLOCK": [4]},
        "workloads": [w], "backend": "fsim"}) for i, w in
        enumerate(("matmul:16x16x16", "conv2d:c=16,hw=8,k=16,kernel=3,pad=1"))]
    procs = [subprocess.Popen([VTASIM, "sweep", s, "--db", db], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for s in specs]
    for p in procs:
        out, err = p.communicate(timeout=300)
        if p.returncode != 0:
            fail("concurrent sweep exited %d: %s" % (p.returncode, err))
    got = summaries(db)
    if len(got) != 4:
        fail("concurrent sweeps: %d summary rows, expected 4: %s" % (len(got), got))
    print("two sweeps started at once on one new database: both finished, 4 jobs stored")


def main():
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    db = check_resume_keys() if "--concurrent-only" not in sys.argv else None
    check_export_and_merge_inputs(db)
    check_report_errors(db)
    check_spec_error_creates_nothing()
    check_concurrent_sweeps()


main()
