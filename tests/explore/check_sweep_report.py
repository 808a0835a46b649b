"""Runs a small real sweep, writes its HTML report with `vtasim sweep report`, opens the report in
headless Chromium and checks that it loads without console errors and that the Pareto plot holds
as many points as the Pareto front of the database computed here, independently. Then: the
report for another device than the sweep's recomputes fit from the stored resources (budgets and
port widths from the data sheets, written here), and a database grown to 1,000+ designs and a
54-layer workload lays out without anything clipped or off-screen at 1400 px and at 390 px.

usage: check_sweep_report.py VTASIM SPEC.json WORKDIR
"""
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys

from report_checks import check_page_layout, fail, find_browser, fresh_database


def pareto_count(db, only=None):
    """Designs no other design beats in both latency and LUTs (incl. LUT-RAM); with `only`, among
    the designs whose point_id it holds."""
    con = sqlite3.connect(db)
    rows = [(t, lut + (lr or 0)) for t, lut, lr, pid in con.execute(
        "SELECT time_s, area_lut, area_lutram, point_id FROM results "
        "WHERE row_kind = 'summary' AND status = 'ok'") if only is None or pid in only]
    pts = set(rows)  # equal designs are one point of the front
    front = [(t, a) for (t, a) in pts
             if not any(t2 <= t and a2 <= a and (t2 < t or a2 < a) for (t2, a2) in pts)]
    return len(front), len(rows)


# Data sheets: DS190 (XC7Z020), DS891 (XCZU7EV): LUT, FF, DSP, BRAM36; UG585 / UG1085: the widest
# PS memory port in bits.
SHEETS = {"xc7z020": (53200, 106400, 220, 140, 64), "xczu7ev": (230400, 460800, 1728, 312, 128)}

def check_layout(browser, out):
    """Nothing clipped or off-screen at a desktop and at a phone width, no console errors."""
    with open(os.path.join(out, "index.html")) as f:
        page = f.read()
    check_page_layout(browser, page, out, ran=("probed",))


def check_other_device(vtasim, db, out):
    """The sweep judged against the xc7z020; a report for the xczu7ev and the xc7z020 side by
    side recomputes both from the stored resources, bus widths and the sheets' budgets."""
    subprocess.run([vtasim, "sweep", "report", db, "--out", out, "--device", "zcu104,pynq"],
                   check=True, stdout=subprocess.DEVNULL)
    with open(os.path.join(out, "summary.json")) as f:
        summary = json.load(f)
    if [d["part"] for d in summary["devices"]] != ["xczu7ev", "xc7z020"]:
        fail("devices of the report: %s" % [d["part"] for d in summary["devices"]])
    con = sqlite3.connect(db)
    rows = con.execute("SELECT point_id, device, area_lut + area_lutram, area_ff, area_dsp, "
                       "area_bram36, bus_bits FROM results WHERE row_kind = 'summary' AND "
                       "status = 'ok'").fetchall()
    for point, device, lut, ff, dsp, bram, bus in rows:
        if device != "xc7z020":
            fail("row %s records device %r, the sweep's base is the pynq" % (point, device))
        for part, (blut, bff, bdsp, bbram, port) in SHEETS.items():
            expected = lut <= blut and ff <= bff and dsp <= bdsp and bram <= bbram and bus <= port
            got = summary["verdicts"][point][part]["fits"]
            if got != expected:
                fail("%s on the %s: report says fits=%s, the data sheet %s" % (point, part, got,
                                                                               expected))
    wide = [p for p, _, _, _, _, _, bus in rows if bus > 64]
    if not wide or any(summary["verdicts"][p]["xc7z020"]["port_ok"] for p in wide):
        fail("128-bit designs are not marked as wider than the xc7z020's 64-bit HP ports")
    with open(os.path.join(out, "index.html")) as f:
        page = f.read()
    if "Fastest design that fits the xczu7ev" not in page or "HP0..HP3" not in page:
        fail("the headline does not name the xczu7ev and its ports")
    print("report for zcu104,pynq: %d designs judged per data sheet, %d not buildable on the "
          "xc7z020's 64-bit ports" % (len(rows), len(wide)))


def grow_database(db, big):
    """A copy of `db` with 1,100 more designs (slower copies of the real ones) and 54 more layers
    for the fastest design that fits, to check the report's layout at scale."""
    shutil.copyfile(db, big)
    con = sqlite3.connect(big)
    con.row_factory = sqlite3.Row
    summaries = [dict(r) for r in con.execute(
        "SELECT * FROM results WHERE row_kind = 'summary' AND status = 'ok'")]
    for i in range(1100):
        r = dict(summaries[i % len(summaries)])
        r["point_id"] = "grown%04d" % i
        r["time_s"] *= 1.02 + 0.001 * i
        r["energy_j"] *= 1 + 0.0007 * (i % 97)
        r["area_lut"] *= 1 + 0.0005 * (i % 89)
        con.execute("INSERT INTO results (%s) VALUES (%s)" % (
            ",".join(r), ",".join("?" * len(r))), list(r.values()))
    # The report draws the layers of the fastest design that fits the pynq (64-bit ports).
    best = min((r for r in summaries if r["bus_bits"] <= 64), key=lambda r: r["time_s"])
    layer = dict(con.execute("SELECT * FROM results WHERE point_id = ? AND row_kind = 'layer'",
                             (best["point_id"],)).fetchone())
    for i in range(54):
        layer.update(layer_index=100 + i, layer="resnet50_stage%d_block%d_conv" % (i // 12, i))
        con.execute("INSERT INTO results (%s) VALUES (%s)" % (
            ",".join(layer), ",".join("?" * len(layer))), list(layer.values()))
    con.commit()


def main():
    vtasim, spec, work = sys.argv[1:4]
    browser = find_browser()
    if browser is None:
        print("chromium is not installed (scripts/setup.sh installs it): skipped")
        sys.exit(77)
    db = fresh_database(work, "report_sweep.sqlite")
    out = os.path.join(work, "report_sweep")
    subprocess.run([vtasim, "sweep", spec, "--db", db, "-j", "2"], check=True,
                   stdout=subprocess.DEVNULL)
    subprocess.run([vtasim, "sweep", "report", db, "--out", out], check=True)
    for f in ("index.html", "latency_area.png", "latency_area.svg", "energy_latency.png",
              "layers.png"):
        if not os.path.isfile(os.path.join(out, f)):
            fail("the report has no " + f)
    expected, designs = pareto_count(db)
    page = "file://" + os.path.abspath(os.path.join(out, "index.html"))
    p = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu",
                        "--enable-logging=stderr", "--v=0", "--virtual-time-budget=5000",
                        "--dump-dom", page], capture_output=True, text=True, timeout=120)
    body = re.search(r"<body[^>]*>", p.stdout)
    if body is None:
        fail("Chromium did not render the report: " + p.stderr[-500:])
    attrs = dict(re.findall(r'data-([a-z-]+)="([^"]*)"', body.group(0)))
    console = [l for l in p.stderr.splitlines() if "CONSOLE" in l or "Uncaught" in l]
    if console:
        fail("console messages while loading the report: %s" % console[:3])
    if attrs.get("loaded") != "1":
        fail("the report's load handler did not run: %s" % body.group(0))
    if int(attrs.get("pareto-points", -1)) != expected:
        fail("the Pareto plot holds %s points, the database's front has %d"
             % (attrs.get("pareto-points"), expected))
    # The front a decision can use: of the designs that fit the device (the report's verdicts).
    with open(os.path.join(out, "summary.json")) as f:
        summary = json.load(f)
    verdicts, part = summary["verdicts"], summary["devices"][0]["part"]
    fitting = {pid for pid, v in verdicts.items() if v[part]["fits"]}
    expected_fit, _ = pareto_count(db, fitting)
    if int(attrs.get("pareto-fit-points", -1)) != expected_fit:
        fail("the Pareto plot of the designs that fit holds %s points, the database's front of "
             "the %d that fit has %d" % (attrs.get("pareto-fit-points"), len(fitting),
                                         expected_fit))
    if int(attrs.get("designs", -1)) != designs:
        fail("the report counts %s designs, the database %d" % (attrs.get("designs"), designs))
    print("sweep report: %d designs, %d on the Pareto front, loads in Chromium without errors"
          % (designs, expected))
    # A workload or device the report does not know: a named error, exit status 1.
    for flag, value, words in (("--workload", "network:nope", "workload 'network:nope' is not in"),
                               ("--device", "nope", "unknown device 'nope'")):
        p = subprocess.run([vtasim, "sweep", "report", db, "--out", out + "_bad", flag, value],
                           capture_output=True, text=True)
        if p.returncode != 1 or words not in p.stderr or "vtasim: error:" not in p.stderr:
            fail("%s %s: exit %d, %r" % (flag, value, p.returncode, p.stderr))
    print("unknown workload and device: named errors, exit 1")
    check_other_device(vtasim, db, out + "_zcu104")
    check_layout(browser, out)
    big = fresh_database(work, "report_sweep_big.sqlite")
    grow_database(db, big)
    subprocess.run([vtasim, "sweep", "report", big, "--out", out + "_big"], check=True,
                   stdout=subprocess.DEVNULL)
    check_layout(browser, out + "_big")
    print("layout at 1400 px and 390 px: nothing clipped or off-screen, no console errors "
          "(8 and 1,108 designs, 54 layers)")


if __name__ == "__main__":
    main()
