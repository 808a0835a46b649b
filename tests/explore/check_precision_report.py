"""Element widths as sweep axes and accuracy in the sweep report, end to end:

1. configs/sweeps/precision.json (PRECISION x LOG_BLOCK, buffer sizes held at pynq's depths by
   its constraints) with a small conv2d layer instead of resnet18.C8: the designs the spec names
   (written out here by hand), every row's `precision` column against its width keys, and the
   report of a workload without accuracy: no accuracy parts, a precision column in its tables
   and a table by precision.
2. A network workload (a small ONNX model built here, seeded) added to the same database by a
   real sweep at int8 (R) and at int4 with 1x16x16 (A) and 1x32x32 (B) blocks, buffers at
   pynq's depths, then synthetic designs at int16 copied from R's row with latency, LUTs and
   cosine set relative to it. The test requires of the real rows what makes the Pareto set in
   (latency, LUTs, cosine) and the precision answer known by hand (A faster than R, no larger,
   less accurate; B as accurate as A, slower and no smaller, so A dominates it), and checks the
   report's summary.json and the page in headless Chromium (the circled Pareto points, no
   console errors, nothing clipped or off-screen) against them, for two --min-cosine floors.
3. The report script's Pareto function on a hand-made set.

usage: check_precision_report.py VTASIM SOURCE_DIR WORKDIR
"""
import json
import os
import sqlite3
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from report_checks import check_page_layout, fail, find_browser, fresh_database, sweep

SEED = 29
CONV = "conv2d:c=32,hw=8,k=32,kernel=3,pad=1"


def tiny_model(path):
    """Conv 4->16 3x3 + Relu, global average pool, Gemm 16->10 on a 1x4x8x8 input (seeded)."""
    r = np.random.default_rng(SEED)
    print("seed %d" % SEED)

    def const(name, value):
        return numpy_helper.from_array(np.asarray(value, dtype=np.float32), name)
    inits = [const("c.w", r.normal(0, 0.3, (16, 4, 3, 3))), const("c.b", r.normal(0, 0.05, 16)),
             const("fc.w", r.normal(0, 0.3, (10, 16))), const("fc.b", r.normal(0, 0.05, 10))]
    nodes = [helper.make_node("Conv", ["x", "c.w", "c.b"], ["c"], kernel_shape=[3, 3],
                              pads=[1] * 4),
             helper.make_node("Relu", ["c"], ["r"]),
             helper.make_node("GlobalAveragePool", ["r"], ["g"]),
             helper.make_node("Flatten", ["g"], ["f"], axis=1),
             helper.make_node("Gemm", ["f", "fc.w", "fc.b"], ["y"], transB=1)]
    graph = helper.make_graph(nodes, "tiny", [helper.make_tensor_value_info(
        "x", TensorProto.FLOAT, [1, 4, 8, 8])], [helper.make_tensor_value_info(
            "y", TensorProto.FLOAT, [1, 10])], inits)
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), path)


def report(vtasim, db, out, *args):
    p = subprocess.run([vtasim, "sweep", "report", db, "--out", out] + list(args),
                       capture_output=True, text=True)
    if p.returncode != 0:
        fail("vtasim sweep report %s: exit %d\n%s" % (" ".join(args), p.returncode, p.stderr))
    with open(os.path.join(out, "summary.json")) as f:
        summary = json.load(f)
    with open(os.path.join(out, "index.html")) as f:
        return summary, f.read()


def check_precision_spec(vtasim, src, work, db):
    """The example spec's designs, by hand: each precision at LOG_BLOCK 4 and 5, buffer sizes
    with pynq's depths (inp SIZE - BLOCK - INP_WIDTH = 8, wgt SIZE - 2 BLOCK - WGT_WIDTH = 7,
    acc SIZE - BLOCK - ACC_WIDTH = 8; widths in log2: int4 2, int8 3, int16 4, int32 5)."""
    with open(os.path.join(src, "configs/sweeps/precision.json")) as f:
        spec = json.load(f)
    spec["workloads"] = [CONV]
    path = os.path.join(work, "precision_small.json")
    with open(path, "w") as f:
        json.dump(spec, f)
    sweep(vtasim, path, db)
    expected = set()
    for label, w in (("int4", 2), ("int8", 3), ("int16", 4)):
        for block in (4, 5):
            expected.add((label, block, w, w, 5, 8 + block + w, 7 + 2 * block + w, 8 + block + 5))
    con = sqlite3.connect(db)
    rows = con.execute("SELECT precision, LOG_BLOCK, LOG_INP_WIDTH, LOG_WGT_WIDTH, LOG_ACC_WIDTH, "
                       "LOG_INP_BUFF_SIZE, LOG_WGT_BUFF_SIZE, LOG_ACC_BUFF_SIZE, status FROM "
                       "results WHERE row_kind = 'summary'").fetchall()
    got = {r[:8] for r in rows}
    if got != expected or len(rows) != 6 or any(r[8] != "ok" for r in rows):
        fail("precision.json's designs: %s, expected %s" % (sorted(rows), sorted(expected)))
    print("precision.json: 6 designs (int4, int8, int16 x LOG_BLOCK 4, 5 at pynq's depths), "
          "precision column as the width keys, all ok")
    summary, page = report(vtasim, db, os.path.join(work, "precision_conv"))
    if "accuracy" in summary or "precision-answer" in page or "accuracy.svg" in os.listdir(
            os.path.join(work, "precision_conv")):
        fail("a workload without accuracy has accuracy parts in its report")
    if "<table id='pareto-table'><tr><th>design</th><th>precision</th>" not in page:
        fail("the Pareto table of a precision sweep has no precision column")
    # By precision: designs and how many of them fit (the report's verdicts: the fit rule is
    # checked against the data sheets by check_sweep_report.py; here the grouping).
    ids = dict(con.execute("SELECT point_id, precision FROM results WHERE row_kind = 'summary'"))
    for label in ("int4", "int8", "int16"):
        n = sum(1 for pid, p in ids.items()
                if p == label and summary["verdicts"][pid]["xc7z020"]["fits"])
        if "<tr><td>%s</td><td>2</td><td>%d</td>" % (label, n) not in page:
            fail("the table by precision has no line for %s with 2 designs, %d fitting"
                 % (label, n))


INT4 = {"PRECISION": "int4", "LOG_INP_BUFF_SIZE": 14, "LOG_WGT_BUFF_SIZE": 17}  # pynq's depths


def add_network(vtasim, work, db):
    """The tiny model on pynq at int8 (R) and at int4 with blocks 16 (A) and 32 (B), added to
    the database by a real sweep; returns their summary rows by name."""
    model = os.path.join(work, "tiny.onnx")
    tiny_model(model)
    spec = os.path.join(work, "precision_network.json")
    int4_b32 = dict(INT4, LOG_BLOCK=5, LOG_INP_BUFF_SIZE=15, LOG_WGT_BUFF_SIZE=19,
                    LOG_ACC_BUFF_SIZE=18)
    with open(spec, "w") as f:
        json.dump({"name": "net", "base": "pynq", "points": [{"PRECISION": "int8"}, INT4,
                                                             int4_b32],
                   "workloads": ["network:tiny.onnx"], "backend": "cycle", "calib": 2}, f)
    sweep(vtasim, spec, db)
    con = sqlite3.connect(db)
    con.row_factory = sqlite3.Row
    rows = [dict(r) for r in con.execute(
        "SELECT * FROM results WHERE row_kind = 'summary' AND workload = 'network:tiny.onnx' "
        "ORDER BY point")]
    if [(r["status"], r["precision"], r["LOG_BLOCK"]) for r in rows] != [
            ("ok", "int8", 4), ("ok", "int4", 4), ("ok", "int4", 5)]:
        fail("the network rows: %s" % rows)
    real = dict(zip("RAB", rows))
    c = real["R"]["cosine"]
    if c is None or not 0.9 < c < 1 or real["R"]["top1_agreement"] is None:
        fail("the int8 network row's accuracy: cosine %s, top-1 %s"
             % (c, real["R"]["top1_agreement"]))
    a, b, r = real["A"], real["B"], real["R"]
    lut = {k: v["area_lut"] + (v["area_lutram"] or 0) for k, v in real.items()}
    # A in the Pareto set beside R: faster, no larger, less accurate; B dominated by A (as
    # accurate, slower, no smaller), so whether B fits the part changes neither answer.
    if not (a["time_s"] < r["time_s"] and lut["A"] <= lut["R"] and a["cosine"] < c - 0.01):
        fail("int4 A (%s s, %s LUTs, cosine %s) is not faster, no larger and less accurate than "
             "int8 R (%s s, %s LUTs, cosine %s)" % (a["time_s"], lut["A"], a["cosine"],
                                                    r["time_s"], lut["R"], c))
    if not (b["cosine"] == a["cosine"] and b["time_s"] > a["time_s"] and lut["B"] >= lut["A"]):
        fail("int4 B (%s s, %s LUTs, cosine %s) against A (%s s, %s LUTs, cosine %s)"
             % (b["time_s"], lut["B"], b["cosine"], a["time_s"], lut["A"], a["cosine"]))
    return real


def add_synthetic(db, real):
    """Designs at int16, relative to the real int8 row R (time t, LUTs a, cosine c):
    C int16 1.5 t, 1.2 a, c          R beats it (as accurate, faster, smaller): not
    D int16 1.5 t, 1.2 a, (1 + c)/2  the most accurate: in the set
    Both fit the xc7z020 (the test checks it from the data sheet: LUTs <= 53200)."""
    con = sqlite3.connect(db)
    r0 = real["R"]
    c = r0["cosine"]
    made = {}
    for name, prec, widths, t, a, cos in (
            ("C", "int16", (4, 4, 5), 1.5, 1.2, c),
            ("D", "int16", (4, 4, 5), 1.5, 1.2, (1 + c) / 2)):
        r = dict(r0)
        r.update(point_id="synthetic_" + name, precision=prec, LOG_INP_WIDTH=widths[0],
                 LOG_WGT_WIDTH=widths[1], LOG_ACC_WIDTH=widths[2], time_s=r0["time_s"] * t,
                 area_lut=r0["area_lut"] * a, area_lutram=(r0["area_lutram"] or 0) * a,
                 cosine=cos, config_label="synthetic " + name)
        if r["area_lut"] + r["area_lutram"] > 53200:
            fail("synthetic design %s would not fit the xc7z020" % name)
        con.execute("INSERT INTO results (%s) VALUES (%s)" % (",".join(r), ",".join("?" * len(r))),
                    list(r.values()))
        made[name] = r
    con.commit()
    return made


def check_accuracy_report(vtasim, work, db, real, browser):
    """The Pareto set {R, A, D} and the precision answer for two floors, in summary.json and
    on the page; the page in Chromium."""
    ids = {"R": real["R"]["point_id"], "A": real["A"]["point_id"], "D": "synthetic_D"}
    c, ca = real["R"]["cosine"], real["A"]["cosine"]
    out = os.path.join(work, "precision_net")
    # A floor between A's cosine and R's: R (int8) answers; below A's: A (int4), the fastest.
    for floor, name, prec in (((c + ca) / 2, "R", "int8"), (ca - 0.01, "A", "int4")):
        summary, page = report(vtasim, db, out, "--workload", "network:tiny.onnx",
                               "--min-cosine", "%.9f" % floor)
        acc = summary.get("accuracy")
        if acc is None:
            fail("the report of a workload with accuracy has no accuracy answer")
        if sorted(acc["pareto_latency_area_accuracy"]) != sorted(ids.values()):
            fail("Pareto set in latency, LUTs, cosine: %s, by hand %s"
                 % (acc["pareto_latency_area_accuracy"], ids))
        if acc["best"] != ids[name] or acc["best_precision"] != prec or acc["designs"] != 5:
            fail("floor %.5f: the answer is %s (%s) of %d, by hand %s (%s) of 5"
                 % (floor, acc["best"], acc["best_precision"], acc["designs"], ids[name], prec))
        if "Which precision?</b> The fastest design that fits the xc7z020 with output cosine " \
                "&gt;= %g: <b>%s</b>" % (floor, prec) not in page:
            fail("the page's precision answer does not name %s" % prec)
        # By precision: designs, how many fit, the cosine (a range when they differ); int4's
        # fitting count depends on B, which the area model decides, so only its cells around it.
        for line in ("<tr><td>int4</td><td>2</td><td>", "</td><td>%.5f</td>" % ca,
                     "<tr><td>int8</td><td>1</td><td>1</td><td>%.5f</td>" % c,
                     "<tr><td>int16</td><td>2</td><td>2</td><td>%.5f..%.5f</td>" % (
                         c, (1 + c) / 2)):
            if line not in page:
                fail("the precision table has no line %s" % line)
    print("accuracy: Pareto set {R int8, A int4 (real, cosine %.5f), D int16} as by hand; answer "
          "int8 above A's cosine, int4 below it" % ca)
    if browser is None:
        print("chromium is not installed (scripts/setup.sh installs it): page not opened")
        return
    with open(os.path.join(out, "index.html")) as f:
        page = f.read()

    def circled_points(attrs, width):
        if attrs.get("pareto-accuracy-points") != "3":
            fail("the accuracy plot circles %s points, by hand 3"
                 % attrs.get("pareto-accuracy-points"))
    check_page_layout(browser, page, out, check=circled_points)
    print("the accuracy report in Chromium: 3 circled Pareto points, nothing clipped or "
          "off-screen at 1400 and 390 px, no console errors")


def check_pareto_function(src):
    """sweep_report.py's Pareto set on hand-made designs (latency, LUTs, 1 - cosine)."""
    sys.path.insert(0, os.path.join(src, "explore/plots"))
    import sweep_report
    pts = {"a": (1, 10, 0.10), "b": (2, 10, 0.05), "c": (2, 12, 0.05), "d": (3, 5, 0.01),
           "e": (3, 6, 0.02), "f": (1, 10, 0.10), "g": (0.5, 20, 0.5), "h": (3, 5, 0.01001)}
    designs = [dict(zip(sweep_report.ACCURACY_KEYS, v), name=k) for k, v in pts.items()]
    # c: b is as fast and accurate, smaller; e, h: d beats them; a and f are equal: both stay.
    got = sorted(d["name"] for d in sweep_report.pareto_nd(designs, sweep_report.ACCURACY_KEYS))
    if got != ["a", "b", "d", "f", "g"]:
        fail("Pareto set of the hand-made designs: %s, by hand a b d f g" % got)
    for r, label in (({"precision": "int4/int4/int16"}, "int4/int4/int16"),
                     ({"LOG_INP_WIDTH": 3, "LOG_WGT_WIDTH": 3, "LOG_ACC_WIDTH": 5}, "int8"),
                     ({"LOG_INP_WIDTH": 2, "LOG_WGT_WIDTH": 4, "LOG_ACC_WIDTH": 5},
                      "int4/int16/int32")):
        if sweep_report.precision_of(r) != label:
            fail("precision of %s: %s, expected %s" % (r, sweep_report.precision_of(r), label))
    print("Pareto function: the hand-made set's front a b d f g; precision spelling as documented")


def main():
    vtasim, src, work = sys.argv[1:4]
    db = fresh_database(work, "precision.sqlite")
    browser = find_browser()
    check_pareto_function(src)
    check_precision_spec(vtasim, src, work, db)
    real = add_network(vtasim, work, db)
    add_synthetic(db, real)
    check_accuracy_report(vtasim, work, db, real, browser)


if __name__ == "__main__":
    main()
