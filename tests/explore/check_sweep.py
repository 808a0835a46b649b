"""`vtasim sweep` end to end, read back with Python's own sqlite3 and csv modules: rows per point
and workload, invalid points with their reason, cycles equal to `vtasim conv2d --set ...` of the
same point, resume (a second run and a run killed midway redo nothing finished), timeouts and
--retry-failed with exit status 3 / 0, shards (disjoint, union = the whole sweep) and merge
(identical duplicates accepted, differing ones refused), CSV / JSONL export, spec errors.

usage: check_sweep.py VTASIM SOURCE_DIR WORKDIR
"""
import csv
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys

from sweep_cli import SweepCli, fail
import time

VTASIM, SRC, WORK = sys.argv[1:4]
CLI = SweepCli(VTASIM, WORK)
vtasim = CLI.run
write_spec = CLI.write_spec
CONV = "conv2d:c=32,hw=8,k=32,kernel=3,pad=1"
KEY = ("point_id", "workload", "backend", "schedule", "layer_index")




def rows(db, where="1"):
    con = sqlite3.connect(db)
    con.row_factory = sqlite3.Row
    out = [dict(r) for r in con.execute(
        "SELECT * FROM results WHERE %s ORDER BY point, workload_index, layer_index" % where)]
    con.close()
    return out


def by_key(rs):
    return {tuple(r[k] for k in KEY): r for r in rs}




def check_rows_and_reference():
    # 2 x 2 grid + a point the ISA cannot encode (LOG_BLOCK 3 with pynq's buffers) + one whose
    # uop buffer (4 entries) holds no schedule of either workload.
    spec = write_spec("grid.json", {
        "base": "pynq", "axes": {"LOG_BUS_WIDTH": [6, 7], "DRAM_READ_LATENCY_CYCLES": [8, 32]},
        "points": [{"LOG_BLOCK": 3}, {"LOG_UOP_BUFF_SIZE": 4}],
        "workloads": [CONV, "matmul:16x64x32"],
        "backend": "cycle", "schedule": "auto"})
    db = os.path.join(WORK, "grid.sqlite")
    out = vtasim(["sweep", spec, "--db", db, "-j", "2"]).stdout
    if "6 points x 2 workloads = 12 jobs; ran 12, 0 already done; ok 8, invalid 4" not in out:
        fail("summary line: " + out)
    summaries = rows(db, "row_kind = 'summary'")
    if len(summaries) != 12 or len(rows(db, "row_kind = 'layer'")) != 8:
        fail("expected 12 summary rows and 8 layer rows, got %d / %d"
             % (len(summaries), len(rows(db, "row_kind = 'layer'"))))
    for r in summaries:
        if r["LOG_BLOCK"] == 3:
            if r["status"] != "invalid" or "GEMM instruction needs" not in r["error"]:
                fail("invalid point: %r" % r)
            continue
        if r["LOG_UOP_BUFF_SIZE"] == 4:
            if r["status"] != "invalid" or "no schedule of" not in r["error"] or \
                    r["config_hash"] is None:
                fail("point without a schedule: %r" % r)
            continue
        if r["status"] != "ok" or r["cycles"] <= 0 or r["config_hash"] is None:
            fail("ok point: %r" % r)
        if abs(r["time_s"] - r["cycles"] / (r["CLOCK_MHZ"] * 1e6)) > 1e-12:
            fail("time_s is not cycles at the clock: %r" % r)
    # The same point run directly gives the same cycles, hash and label.
    for r in summaries:
        if r["workload"] != CONV or r["status"] != "ok":
            continue
        rep = os.path.join(WORK, "direct.json")
        vtasim(["conv2d", "--c", "32", "--hw", "8", "--k", "32", "--kernel", "3", "--pad", "1",
                "--backend", "cycle", "--set", "LOG_BUS_WIDTH=%d" % r["LOG_BUS_WIDTH"],
                "--set", "DRAM_READ_LATENCY_CYCLES=%d" % r["DRAM_READ_LATENCY_CYCLES"],
                "--json", rep])
        with open(rep) as f:
            direct = json.load(f)
        if (direct["cycles"], direct["config_hash"], direct["config_label"]) != \
                (r["cycles"], r["config_hash"], r["config_label"]):
            fail("sweep %r vs conv2d --set %r" % (
                (r["cycles"], r["config_hash"], r["config_label"]),
                (direct["cycles"], direct["config_hash"], direct["config_label"])))
    print("grid: 12 jobs, 4 invalid with the reason, cycles equal to conv2d --set")
    # Resume: nothing is redone.
    before = rows(db)
    out = vtasim(["sweep", spec, "--db", db, "-j", "2"]).stdout
    if "ran 0, 12 already done" not in out or rows(db) != before:
        fail("second run redid work: " + out)
    print("resume: second run skips all 12 jobs, rows unchanged")
    return spec, db


def check_export(db):
    con = sqlite3.connect(db)
    cols = [c[1] for c in con.execute("PRAGMA table_info(results)")]
    con.close()
    ref = rows(db)
    vtasim(["sweep", "export", db, "--csv", os.path.join(WORK, "out.csv")])
    vtasim(["sweep", "export", db, "--jsonl", os.path.join(WORK, "out.jsonl")])
    with open(os.path.join(WORK, "out.csv"), newline="") as f:
        table = list(csv.reader(f))
    if table[0] != cols or len(table) != len(ref) + 1:
        fail("CSV header / row count")
    for line, r in zip(table[1:], ref):
        for c, v in zip(cols, line):
            want = r[c]
            if want is None and v != "" or want is not None and \
                    (float(v) != want if isinstance(want, (int, float)) else v != want):
                fail("CSV column %s: %r vs %r" % (c, v, want))
    with open(os.path.join(WORK, "out.jsonl")) as f:
        lines = [json.loads(l) for l in f]
    if lines != ref:
        fail("JSONL rows differ from the database")
    vtasim(["sweep", "export", db], status=2)
    print("export: CSV and JSONL equal the database rows (%d rows)" % len(ref))


def check_kill_and_resume():
    spec = write_spec("kill.json", {
        "base": "pynq", "axes": {"DRAM_READ_LATENCY_CYCLES": {"from": 4, "to": 64, "step": 4}},
        "workloads": ["network:resnet18"], "backend": "cycle"})  # slow enough to kill midway
    db = os.path.join(WORK, "kill.sqlite")
    p = subprocess.Popen([VTASIM, "sweep", spec, "--db", db, "-j", "1", "--quiet"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         start_new_session=True)
    deadline = time.time() + 120
    done = []
    while time.time() < deadline and p.poll() is None:
        time.sleep(0.05)
        if os.path.exists(db):
            try:
                done = rows(db, "row_kind = 'summary'")
            except sqlite3.OperationalError:
                continue
            if len(done) >= 3:
                break
    os.killpg(p.pid, signal.SIGKILL)  # the sweep and its workers, as a crash would
    p.wait()
    done = rows(db)
    finished = len([r for r in done if r["row_kind"] == "summary"])
    if finished == 0 or finished >= 16:
        fail("kill test: %d of 16 jobs finished before the kill" % finished)
    out = vtasim(["sweep", spec, "--db", db, "-j", "2"]).stdout
    if "ran %d, %d already done; ok 16" % (16 - finished, finished) not in out:
        fail("resume after kill: " + out)
    after = by_key(rows(db))
    for k, r in by_key(done).items():
        if after[k] != r:
            fail("a row finished before the kill was redone: %r" % (k,))
    print("kill: %d of 16 jobs survived the kill unchanged, the rest ran on resume" % finished)


def check_timeout_and_retry():
    # A whole network takes far longer than 10 ms on any machine (a single layer may not).
    spec = write_spec("slow.json", {"base": "pynq", "axes": {"LOG_BUS_WIDTH": [6, 7]},
                                    "workloads": ["network:resnet18"], "backend": "cycle"})
    db = os.path.join(WORK, "slow.sqlite")
    out = vtasim(["sweep", spec, "--db", db, "-j", "2", "--timeout-per-point", "0.01"],
                 status=3).stdout
    if "failed 0, timeout 2" not in out:
        fail("timeout summary: " + out)
    for r in rows(db):
        if r["status"] != "timeout" or "exceeded the timeout" not in r["error"]:
            fail("timeout row: %r" % r)
    out = vtasim(["sweep", spec, "--db", db, "-j", "2"], status=3).stdout
    if "ran 0, 2 already done" not in out:
        fail("failed jobs are finished unless --retry-failed: " + out)
    out = vtasim(["sweep", spec, "--db", db, "-j", "2", "--retry-failed"]).stdout
    if "ran 2, 0 already done; ok 2" not in out or \
            [r["status"] for r in rows(db, "row_kind = 'summary'")] != ["ok", "ok"]:
        fail("--retry-failed: " + out)
    print("timeout: exit 3 with 2 timeouts, kept on resume, redone by --retry-failed (exit 0)")


def check_shards_and_merge(spec, full_db):
    parts = []
    for i in (1, 2):
        db = os.path.join(WORK, "shard%d.sqlite" % i)
        vtasim(["sweep", spec, "--db", db, "--shard", "%d/2" % i, "-j", "1", "--quiet"])
        parts.append(by_key(rows(db)))
    if set(parts[0]) & set(parts[1]):
        fail("shards overlap")
    full = by_key(rows(full_db))
    if set(parts[0]) | set(parts[1]) != set(full):
        fail("shards do not cover the sweep")
    merged = os.path.join(WORK, "merged.sqlite")
    shards = [os.path.join(WORK, "shard%d.sqlite" % i) for i in (1, 2)]
    vtasim(["sweep", "merge", merged] + shards)
    vtasim(["sweep", "merge", merged, shards[0]])  # identical duplicates: fine
    m = by_key(rows(merged))
    if set(m) != set(full) or any(m[k]["cycles"] != full[k]["cycles"] or
                                  m[k]["status"] != full[k]["status"] for k in full):
        fail("merged shards differ from the whole sweep")
    bad = os.path.join(WORK, "bad_shard.sqlite")
    shutil.copy(shards[0], bad)
    con = sqlite3.connect(bad)
    con.execute("UPDATE results SET cycles = cycles + 1 WHERE status = 'ok'")
    con.commit()
    con.close()
    err = vtasim(["sweep", "merge", merged, bad], status=1).stderr
    if "with different results" not in err or "bad_shard.sqlite" not in err:
        fail("differing duplicate: " + err)
    if by_key(rows(merged)) != m:
        fail("a refused merge changed the output")
    print("shards: 1/2 and 2/2 disjoint, merged = the whole sweep; differing duplicate refused")


def check_usage_errors():
    bad = write_spec("bad.json", {"base": "pynq", "axes": {"NO_SUCH_KEY": [1]},
                                  "workloads": ["matmul:16x16x16"]})
    db = os.path.join(WORK, "never.sqlite")
    err = vtasim(["sweep", bad, "--db", db], status=2).stderr
    if "axis 'NO_SUCH_KEY': not a config key" not in err or os.path.exists(db):
        fail("bad spec: " + err)
    spec = os.path.join(WORK, "grid.json")
    for shard in ("0/2", "3/2", "x"):
        err = vtasim(["sweep", spec, "--db", db, "--shard", shard], status=2).stderr
        if "must be I/N" not in err:
            fail("--shard %s: %s" % (shard, err))
    vtasim(["sweep", spec], status=2)
    print("errors: bad spec and bad --shard exit 2 before any work")


def main():
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    spec, db = check_rows_and_reference()
    check_export(db)
    check_shards_and_merge(spec, db)
    check_timeout_and_retry()
    check_kill_and_resume()
    check_usage_errors()


main()
