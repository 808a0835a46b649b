"""CORES as a sweep axis and the report's answer to "one big core or several small ones?", end
to end:

1. configs/sweeps/cores.json with a small conv2d layer instead of resnet18.C8: the designs the
   spec names (written out here by hand: 1, 2 and 4 cores of a 1x16x16 array at 333 MHz or of a
   1x32x32 array at 277 MHz, the zcu104's buffer sizes), plus explicit points: CORES 0 (out of
   range) and a list of two different cores, both `invalid` with the config's or the replicated
   mode's error. Every row: a `cores` column and `multicore_mode` 'replicated' for systems;
   distinct point ids and config hashes; each core of a system never faster than the single core
   of its array; a system's area its cores' plus the interconnect's (by hand: 2 ports at 128
   bits, 4 ports).
2. The report's multicore answer against a Pareto set computed here from the database alone:
   throughput = cores / (system cycles / clock), area share and fit from the data sheet's
   budgets (DS891: xczu7ev), its 128-bit ports (UG1085) and the documented clock estimate;
   then the page in headless Chromium: the Pareto table's rows, no console errors, nothing
   clipped or off-screen at 1400 and 390 px.

usage: check_cores_report.py VTASIM SOURCE_DIR WORKDIR
"""
import json
import math
import os
import subprocess
import sys

from report_checks import (check_page_layout, fail, find_browser, fresh_database, summary_rows,
                           sweep)

CONV = "conv2d:c=32,hw=8,k=32,kernel=3,pad=1"
# DS891 (XCZU7EV): LUT, FF, DSP48, BRAM36; UG1085: 128-bit HP ports; published clock 333 MHz.
BUDGET = (230400, 460800, 1728, 312)
PORT_BITS = 128
F_PUB = 333.0


def check_spec_rows(src, work, db):
    with open(os.path.join(src, "configs/sweeps/cores.json")) as f:
        spec = json.load(f)
    spec["workloads"] = [CONV]
    spec["points"] = [{"CORES": 0}, {"CORES": [{}, {"LOG_BLOCK": 5}]}]
    path = os.path.join(work, "cores_small.json")
    with open(path, "w") as f:
        json.dump(spec, f)
    return path


def expected_designs():
    """(cores, LOG_BLOCK, CLOCK_MHZ, inp, wgt, acc buffer sizes) of the grid, by hand: the
    zcu104's buffers (15, 18, 17) at both arrays."""
    return {(cores, block, clock, 15, 18, 17)
            for cores in (1, 2, 4) for block, clock in ((4, 333), (5, 277))}


def check_rows(rows):
    grid = [r for r in rows if not str(r["CORES"]).startswith("[") and r["CORES"] != 0]
    got = {(r["CORES"], r["LOG_BLOCK"], r["CLOCK_MHZ"], r["LOG_INP_BUFF_SIZE"],
            r["LOG_WGT_BUFF_SIZE"], r["LOG_ACC_BUFF_SIZE"]) for r in grid}
    if got != expected_designs() or len(grid) != 6:
        fail("cores.json's designs: %s, by hand %s" % (sorted(got), sorted(expected_designs())))
    for r in grid:
        if r["status"] != "ok":
            fail("%s: status %s (%s)" % (r["config_label"], r["status"], r["error"]))
        if r["core_count"] != r["CORES"] or r["multicore_mode"] != "replicated":
            fail("%s: core_count %s, multicore_mode %s" % (r["config_label"], r["core_count"],
                                                      r["multicore_mode"]))
    for key in ("point_id", "config_hash"):
        if len({r[key] for r in grid}) != len(grid):
            fail("%s is not distinct over the designs" % key)
    bad = {str(r["CORES"]): r for r in rows if r not in grid}
    zero, mixed = bad.get("0"), bad.get('[{},{"LOG_BLOCK":5}]')
    if zero is None or zero["status"] != "invalid" or "'CORES' = 0 is out of range" not in (
            zero["error"] or ""):
        fail("CORES 0: %s" % (zero and (zero["status"], zero["error"])))
    if mixed is None or mixed["status"] != "invalid" or "identical cores" not in (
            mixed["error"] or ""):
        fail("CORES of two different cores: %s" % (mixed and (mixed["status"], mixed["error"])))
    # Never faster than alone: each core of a system against the single core of its array.
    alone = {r["LOG_BLOCK"]: r["core0_cycles"] for r in grid if r["CORES"] == 1}
    for r in grid:
        for k in range(r["CORES"]):
            c = r["core%d_cycles" % k]
            if c is None or c < alone[r["LOG_BLOCK"]]:
                fail("%s: core %d took %s cycles, alone %s" % (r["config_label"], k, c,
                                                               alone[r["LOG_BLOCK"]]))
        if r["system_cycles"] < max(r["core%d_cycles" % k] for k in range(r["CORES"])):
            fail("%s: system cycles below a core's" % r["config_label"])
    # Area: the cores' plus the interconnect's (explore/README.md, by hand): 128-bit channels,
    # multiplexed bits 2 x 46 + 128 + 16 + 1 = 237 at one LUT each (2 or 4 ports); arbiters
    # 2 x (2N + 8) + 2N.
    one = {r["LOG_BLOCK"]: r for r in grid if r["CORES"] == 1}
    for r in grid:
        n = r["CORES"]
        ic = 0 if n == 1 else 237 + 2 * (2 * n + 8) + 2 * n
        if r["area_interconnect_lut"] != ic:
            fail("%s: interconnect %s LUTs, by hand %d" % (r["config_label"],
                                                          r["area_interconnect_lut"], ic))
        base = one[r["LOG_BLOCK"]]
        if not math.isclose(r["area_lut"], n * base["area_lut"] + ic, rel_tol=1e-9) or \
                r["area_dsp"] != n * base["area_dsp"] or \
                r["area_bram36"] != n * base["area_bram36"]:
            fail("%s: area %s LUT %s DSP %s BRAM36, not %d x the single core's plus the "
                 "interconnect" % (r["config_label"], r["area_lut"], r["area_dsp"],
                                   r["area_bram36"], n))
    print("cores.json: 6 designs (1, 2, 4 cores x 1x16x16 @ 333 MHz, 1x32x32 @ 277 MHz), "
          "replicated rows, distinct ids and hashes, CORES 0 and different cores invalid; every "
          "core no faster than alone; area = cores + interconnect")
    return grid


def by_hand(grid):
    """Throughput, share and fit from the rows' counters and the data sheet; the Pareto set in
    (throughput up, share down) of the designs that fit."""
    designs = {}
    for r in grid:
        macs = (1 << r["LOG_BLOCK"]) ** 2
        clock_est = F_PUB / (1 + 0.10 * max(0.0, math.log2(macs / 256)))
        used = (r["area_lut"] + r["area_lutram"], r["area_ff"], r["area_dsp"], r["area_bram36"])
        share = max(u / b for u, b in zip(used, BUDGET))
        fits = share <= 1 and r["bus_bits"] <= PORT_BITS and r["CLOCK_MHZ"] <= clock_est
        thr = r["CORES"] / (r["system_cycles"] / (r["CLOCK_MHZ"] * 1e6))
        designs[r["point_id"]] = (thr, share, fits)
    fit = {p: v for p, v in designs.items() if v[2]} or designs
    front = {p for p, (t, s, _) in fit.items()
             if not any(t2 >= t and s2 <= s and (t2 > t or s2 < s)
                        for q, (t2, s2, _) in fit.items() if q != p)}
    return designs, front


def check_report(vtasim, db, out, grid, browser):
    p = subprocess.run([vtasim, "sweep", "report", db, "--out", out], capture_output=True,
                       text=True)
    if p.returncode != 0:
        fail("vtasim sweep report: exit %d\n%s" % (p.returncode, p.stderr))
    with open(os.path.join(out, "summary.json")) as f:
        mc = json.load(f).get("multicore")
    if mc is None:
        fail("the report of designs with 1, 2 and 4 cores has no multicore answer")
    designs, front = by_hand(grid)
    for pid, (thr, _, _) in designs.items():
        if not math.isclose(mc["throughput_per_s"][pid], thr, rel_tol=1e-9):
            fail("%s: throughput %s, by hand %s" % (pid, mc["throughput_per_s"][pid], thr))
    if set(mc["pareto_throughput_area"]) != front:
        fail("Pareto set in throughput and area: %s, by hand %s"
             % (sorted(mc["pareto_throughput_area"]), sorted(front)))
    fitting = {p: v for p, v in designs.items() if v[2]}
    best = max(fitting, key=lambda p: (fitting[p][0], -fitting[p][1])) if fitting else None
    if mc["best"] != best:
        fail("highest throughput that fits: %s, by hand %s" % (mc["best"], best))
    smallest = min(designs, key=lambda p: designs[p][1])
    if fitting and smallest not in front:
        fail("the smallest design is not in the Pareto set")
    with open(os.path.join(out, "index.html")) as f:
        page = f.read()
    if "One big core or several small ones?" not in page or "id='multicore-answer'" not in page:
        fail("the page has no multicore section")
    label = {r["point_id"]: r["config_label"] for r in grid}
    print("report: Pareto set in throughput and area %s and the answer %s as by hand"
          % (sorted(label[p] for p in front), label.get(best)))
    if browser is None:
        print("chromium is not installed (scripts/setup.sh installs it): page not opened")
        return

    def pareto_rows(attrs, width):
        if attrs.get("multicore-pareto-rows") != str(len(front)):
            fail("the multicore Pareto table has %s rows, by hand %d"
                 % (attrs.get("multicore-pareto-rows"), len(front)))
    check_page_layout(browser, page, out, check=pareto_rows)
    print("the multicore report in Chromium: %d Pareto rows, nothing clipped or off-screen at "
          "1400 and 390 px, no console errors" % len(front))


def main():
    vtasim, src, work = sys.argv[1:4]
    db = fresh_database(work, "cores.sqlite")
    spec = check_spec_rows(src, work, db)
    sweep(vtasim, spec, db)
    grid = check_rows(summary_rows(db))
    browser = find_browser()
    check_report(vtasim, db, os.path.join(work, "report"), grid, browser)


if __name__ == "__main__":
    main()
