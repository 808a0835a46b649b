"""Runs a small real sweep, writes its HTML report with `vtasim sweep report`, opens the report in
headless Chromium and checks that it loads without console errors and that the Pareto plot holds
as many points as the Pareto front of the database computed here, independently.

usage: check_sweep_report.py VTASIM SPEC.json WORKDIR
"""
import os
import re
import shutil
import sqlite3
import subprocess
import sys


def fail(msg):
    sys.exit("FAIL: " + msg)


def pareto_count(db):
    """Designs no other design beats in both latency and LUTs (incl. LUT-RAM)."""
    con = sqlite3.connect(db)
    rows = [(t, lut + (lr or 0)) for t, lut, lr in con.execute(
        "SELECT time_s, area_lut, area_lutram FROM results "
        "WHERE row_kind = 'summary' AND status = 'ok'")]
    pts = set(rows)  # equal designs are one point of the front
    front = [(t, a) for (t, a) in pts
             if not any(t2 <= t and a2 <= a and (t2 < t or a2 < a) for (t2, a2) in pts)]
    return len(front), len(rows)


def main():
    vtasim, spec, work = sys.argv[1:4]
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        print("chromium is not installed (scripts/setup.sh installs it): skipped")
        sys.exit(77)
    db = os.path.join(work, "report_sweep.sqlite")
    out = os.path.join(work, "report_sweep")
    for p in (db,):
        if os.path.exists(p):
            os.remove(p)
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


main()
