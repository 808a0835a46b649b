"""A network:MODEL.onnx workload swept over element widths, end to end: a small ONNX model built
here (seeded) over PRECISION int4, int4/int4/int16, int8 and int16 x LOG_BLOCK 4, 5, the buffers
held at pynq's depths by the constraints of configs/sweeps/precision.json (so that every design
is legal), on the cycle model.

- every row is ok, each with the accuracy of its own quantization: the int4 cosines are lower
  than the int8 one, the int16 one (the fan-in rule's lanes) is not lower, and every checked
  row's cosine, top-1 agreement, cycles and config hash equal those of `vtasim network
  MODEL.onnx --config pynq --set ...` of the same design run alone (the CLI quantizes to its
  config's widths: an independent run);
- the model is imported once (one import time on every row) and quantized once per width (one
  quantization time per precision, the same on both block sizes, four in all);
- the report's table by precision shows every row's real cosine.

usage: check_sweep_network_precision.py VTASIM SOURCE_DIR WORKDIR
"""
import json
import os
import sqlite3
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_precision_report import fail, tiny_model  # noqa: E402

PRECISIONS = ["int4", "int4/int4/int16", "int8", "int16"]
KEYS = ("LOG_BLOCK", "LOG_INP_WIDTH", "LOG_WGT_WIDTH", "LOG_ACC_WIDTH", "LOG_INP_BUFF_SIZE",
        "LOG_WGT_BUFF_SIZE", "LOG_ACC_BUFF_SIZE")


def run_sweep(vtasim, src, work):
    with open(os.path.join(src, "configs/sweeps/precision.json")) as f:
        spec = json.load(f)
    spec.update(name="netprec", workloads=["network:tiny.onnx"], calib=2)
    spec["axes"]["PRECISION"] = PRECISIONS
    path = os.path.join(work, "netprec.json")
    with open(path, "w") as f:
        json.dump(spec, f)
    db = os.path.join(work, "netprec.sqlite")
    if os.path.exists(db):
        os.remove(db)
    p = subprocess.run([vtasim, "sweep", path, "--db", db, "-j", "2", "--quiet"],
                       capture_output=True, text=True)
    if p.returncode != 0 or "ok 8, invalid 0, failed 0, timeout 0" not in p.stdout:
        fail("sweep: exit %d (expected 0 with ok 8)\n%s%s"
             % (p.returncode, p.stdout, p.stderr))
    con = sqlite3.connect(db)
    con.row_factory = sqlite3.Row
    rows = [dict(r) for r in con.execute(
        "SELECT * FROM results WHERE row_kind = 'summary' ORDER BY point")]
    return db, rows


def cli_network(vtasim, work, row):
    """`vtasim network tiny.onnx` alone on the row's design: (exit status, JSON report or None,
    stderr)."""
    out = os.path.join(work, "cli.json")
    if os.path.exists(out):
        os.remove(out)
    sets = sum((["--set", "%s=%d" % (k, row[k])] for k in KEYS), [])
    p = subprocess.run([vtasim, "network", "tiny.onnx", "--config", "pynq", "--backend",
                        "cycle", "--calib", "2", "--json", out, "--quiet"] + sets,
                       capture_output=True, text=True, cwd=work)
    rep = None
    if p.returncode == 0:
        with open(out) as f:
            rep = json.load(f)
    return p.returncode, rep, p.stderr


def check_rows(rows):
    by = {}
    for r in rows:
        by.setdefault(r["precision"], []).append(r)
    if sorted(by) != sorted(PRECISIONS) or any(len(v) != 2 for v in by.values()):
        fail("rows by precision: %s" % {k: len(v) for k, v in by.items()})
    for label in PRECISIONS:
        for r in by[label]:
            if r["status"] != "ok" or r["cosine"] is None or r["top1_agreement"] is None:
                fail("%s LOG_BLOCK %d: %s %s, cosine %s" % (label, r["LOG_BLOCK"], r["status"],
                                                            r["error"], r["cosine"]))
    c8 = by["int8"][0]["cosine"]
    for label in ("int4", "int4/int4/int16"):
        if not by[label][0]["cosine"] < c8:
            fail("%s cosine %.6f is not below int8's %.6f" % (label, by[label][0]["cosine"], c8))
    if not by["int16"][0]["cosine"] >= c8:
        fail("int16 cosine %.6f is below int8's %.6f" % (by["int16"][0]["cosine"], c8))
    ok = [r for r in rows if r["status"] == "ok"]
    imports = {r["import_seconds"] for r in ok}
    quants = {label: {r["quantize_seconds"] for r in by[label]} for label in PRECISIONS}
    if len(imports) != 1:
        fail("the model was imported %d times: %s" % (len(imports), imports))
    if any(len(q) != 1 for q in quants.values()) or len(set.union(*quants.values())) != 4:
        fail("quantization times by precision %s: expected one per precision, 4 in all" % quants)
    print("rows: all ok (cosines int4 %.5f, int4/int4/int16 %.5f < int8 %.5f <= int16 %.5f); one "
          "import, one quantization per width" % (by["int4"][0]["cosine"],
                                                  by["int4/int4/int16"][0]["cosine"], c8,
                                                  by["int16"][0]["cosine"]))
    return by


def check_against_cli(vtasim, work, by):
    for label in PRECISIONS:
        r = by[label][0]
        status, rep, err = cli_network(vtasim, work, r)
        if status != 0:
            fail("vtasim network at %s: exit %d\n%s" % (label, status, err))
        fe = rep["frontend"]
        got = (r["config_hash"], r["cycles"], r["top1_agreement"])
        want = (rep["config_hash"], rep["cycles"], fe["top1_agreement"])
        if got != want or abs(r["cosine"] - fe["cosine_similarity"]) > 1e-12:
            fail("%s: sweep row (hash, cycles, top-1) %s cosine %.15f; vtasim network %s cosine "
                 "%.15f" % (label, got, r["cosine"], want, fe["cosine_similarity"]))
    print("every precision: cosine, top-1, cycles and config hash as `vtasim network "
          "--config pynq --set ...` alone")


def check_report(vtasim, work, db, by):
    out = os.path.join(work, "netprec_report")
    p = subprocess.run([vtasim, "sweep", "report", db, "--out", out, "--workload",
                        "network:tiny.onnx"], capture_output=True, text=True)
    if p.returncode != 0:
        fail("vtasim sweep report: exit %d\n%s" % (p.returncode, p.stderr))
    with open(os.path.join(out, "summary.json")) as f:
        summary = json.load(f)
    with open(os.path.join(out, "index.html")) as f:
        page = f.read()
    if summary.get("accuracy", {}).get("designs") != 8:
        fail("the report's accuracy counts %s designs, expected the 8 ok ones"
             % summary.get("accuracy", {}).get("designs"))
    for label in PRECISIONS:
        fits = sum(1 for r in by[label] if summary["verdicts"][r["point_id"]]["xc7z020"]["fits"])
        line = "<tr><td>%s</td><td>2</td><td>%d</td><td>%.5f</td>" % (label, fits,
                                                                       by[label][0]["cosine"])
        if line not in page:
            fail("the table by precision has no line %s" % line)
    print("report: 8 designs with accuracy, the table by precision with the real cosines")


def main():
    vtasim, src, work = (os.path.abspath(a) for a in sys.argv[1:4])
    os.makedirs(work, exist_ok=True)
    tiny_model(os.path.join(work, "tiny.onnx"))
    db, rows = run_sweep(vtasim, src, work)
    by = check_rows(rows)
    check_against_cli(vtasim, work, by)
    check_report(vtasim, work, db, by)


main()
