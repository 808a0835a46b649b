"""Writes the self-contained HTML report of a sweep database (`vtasim sweep report DB --out DIR`):
latency against area (LUTs and DSPs) with the Pareto front and the device budget, energy against
latency, the per-layer cycle breakdown and the roofline of the fastest design that fits, and a
table of the Pareto designs with their config keys. Every plot is also written beside it as PNG
and SVG; the HTML inlines the SVGs, so it needs no network access and no other file.

usage: sweep_report.py DB.sqlite OUT_DIR [--workload NAME] [--device BOARD]
"""
import argparse
import html
import io
import json
import os
import sqlite3
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from plot_parts import plot_breakdown, plot_roofline  # noqa: E402

# Device budgets (LUT, DSP) by board; explore/README.md gives the sources.
BUDGETS = {"pynq": ("xc7z020", 53200, 220), "ultra96": ("xczu3eg", 70560, 360),
           "zcu104": ("xczu7ev", 230400, 1728), "de10nano": ("5cseba6", 41509, 224)}
CONFIG_KEYS = ("LOG_BATCH", "LOG_BLOCK", "LOG_UOP_BUFF_SIZE", "LOG_INP_BUFF_SIZE",
               "LOG_WGT_BUFF_SIZE", "LOG_ACC_BUFF_SIZE", "LOG_BUS_WIDTH", "CLOCK_MHZ")


def read_rows(path):
    if not os.path.isfile(path):
        sys.exit("sweep report: error: no database '%s'" % path)
    con = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
    con.row_factory = sqlite3.Row
    try:
        rows = [dict(r) for r in con.execute("SELECT * FROM results")]
    except sqlite3.DatabaseError as e:
        sys.exit("sweep report: error: %s is not a sweep database: %s" % (path, e))
    return rows


def pareto(points, x, y):
    """The points no other point beats in both x and y (lower is better), sorted by x."""
    front, best_y = [], float("inf")
    for p in sorted(points, key=lambda p: (p[x], p[y])):
        if p[y] < best_y:
            front.append(p)
            best_y = p[y]
    return front


def svg_and_files(fig, out_dir, name):
    """Saves `fig` as OUT_DIR/name.png and .svg; returns the SVG text to inline."""
    fig.savefig(os.path.join(out_dir, name + ".png"), dpi=100)
    buf = io.StringIO()
    fig.savefig(buf, format="svg")
    fig.savefig(os.path.join(out_dir, name + ".svg"))
    plt.close(fig)
    text = buf.getvalue()
    return text[text.index("<svg"):]


def area_plot(ax, designs, key, budget, label):
    front = pareto(designs, key, "latency_ms")
    ax.scatter([d[key] for d in designs], [d["latency_ms"] for d in designs], s=14,
               color="#9ecae1", label="designs (%d)" % len(designs), gid="designs-" + key)
    ax.plot([d[key] for d in front], [d["latency_ms"] for d in front], "-", color="#d7191c",
            linewidth=1)
    ax.scatter([d[key] for d in front], [d["latency_ms"] for d in front], s=30, color="#d7191c",
               label="Pareto front (%d)" % len(front), gid="pareto-front-" + key, zorder=3)
    if budget:
        ax.axvline(budget, color="k", linestyle="--", linewidth=1, label="device budget")
    ax.set_xlabel(label)
    ax.set_ylabel("latency (ms at the design's clock)")
    ax.legend(fontsize=7)
    return front


def layer_dicts(rows, point_id, workload):
    out = []
    for r in rows:
        if r.get("point_id") == point_id and r.get("workload") == workload and \
                r.get("row_kind") == "layer" and r.get("status") == "ok":
            out.append({"name": r.get("layer") or str(r.get("layer_index")), "stats": r,
                        "macs": r.get("macs") or 0, "bytes_moved": r.get("bytes_moved") or 0,
                        "cycles": r.get("cycles") or 0})
    return out


def designs_of(rows, workload):
    designs = []
    for r in rows:
        if r.get("row_kind") != "summary" or r.get("status") != "ok" or r.get("workload") != workload:
            continue
        if r.get("time_s") is None or r.get("area_lut") is None:
            continue
        d = dict(r)
        d["latency_ms"] = r["time_s"] * 1e3
        d["lut_total"] = r["area_lut"] + (r.get("area_lutram") or 0)
        designs.append(d)
    return designs


def table(front, keys, device):
    head = "".join("<th>%s</th>" % html.escape(k) for k in keys)
    lines = ["<table id='pareto-table'><tr><th>design</th>%s<th>latency ms</th><th>LUT</th>"
             "<th>DSP</th><th>BRAM36</th><th>energy mJ</th><th>fits %s</th></tr>" % (head, device)]
    for d in front:
        cells = "".join("<td>%s</td>" % html.escape(str(d.get(k))) for k in keys)
        lines.append("<tr><td>%s</td>%s<td>%.3f</td><td>%.0f</td><td>%.0f</td><td>%.1f</td>"
                     "<td>%.3f</td><td>%s</td></tr>" % (
                         html.escape(str(d.get("config_label") or d["point_id"])), cells,
                         d["latency_ms"], d["lut_total"], d["area_dsp"], d["area_bram36"],
                         (d.get("energy_j") or 0) * 1e3, "yes" if d.get("fits") else "no"))
    lines.append("</table>")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(prog="vtasim sweep report")
    ap.add_argument("db")
    ap.add_argument("out")
    ap.add_argument("--workload")
    ap.add_argument("--device", default="pynq")
    a = ap.parse_args()
    if a.device not in BUDGETS:
        sys.exit("sweep report: error: unknown device '%s' (one of %s)"
                 % (a.device, ", ".join(BUDGETS)))
    rows = read_rows(a.db)
    workloads = sorted({r["workload"] for r in rows if r.get("row_kind") == "summary"})
    if not workloads:
        sys.exit("sweep report: error: %s holds no finished design point" % a.db)
    workload = a.workload or workloads[0]
    if workload not in workloads:
        sys.exit("sweep report: error: workload '%s' is not in %s (%s)"
                 % (workload, a.db, ", ".join(workloads)))
    designs = designs_of(rows, workload)
    if not designs:
        untimed = sorted({r.get("backend") for r in rows if r.get("row_kind") == "summary" and
                          r.get("status") == "ok" and r.get("workload") == workload})
        if untimed:  # ok rows without a time: an untimed backend such as fsim
            sys.exit("sweep report: error: the design points of '%s' ran on the %s backend, which "
                     "has no cycles; a report needs a timed backend (cycle or rtl)"
                     % (workload, ", ".join(untimed)))
        sys.exit("sweep report: error: no design point of '%s' finished with status ok" % workload)
    try:
        os.makedirs(a.out, exist_ok=True)
        probe = os.path.join(a.out, ".write_test")
        with open(probe, "w"):
            pass
        os.remove(probe)
    except OSError as e:
        sys.exit("sweep report: error: cannot write the report to --out '%s': %s"
                 % (a.out, e.strerror or e))
    part, lut_budget, dsp_budget = BUDGETS[a.device]
    svgs = []

    fig, (l, r) = plt.subplots(1, 2, figsize=(12, 4.5))
    front = area_plot(l, designs, "lut_total", lut_budget, "LUTs (incl. LUT-RAM), model")
    area_plot(r, designs, "area_dsp", dsp_budget, "DSP48 slices, model")
    fig.suptitle("%s: latency against area (budget of the %s)" % (workload, part))
    fig.tight_layout()
    svgs.append(("Latency against area", svg_and_files(fig, a.out, "latency_area")))

    fig, ax = plt.subplots(figsize=(6.5, 4.5))
    efront = pareto(designs, "latency_ms", "energy_j")
    ax.scatter([d["latency_ms"] for d in designs], [d["energy_j"] * 1e3 for d in designs], s=14,
               color="#9ecae1", label="designs")
    ax.scatter([d["latency_ms"] for d in efront], [d["energy_j"] * 1e3 for d in efront], s=30,
               color="#d7191c", label="Pareto front", zorder=3)
    ax.set_xlabel("latency (ms)")
    ax.set_ylabel("energy (mJ, model)")
    ax.legend(fontsize=7)
    fig.tight_layout()
    svgs.append(("Energy against latency", svg_and_files(fig, a.out, "energy_latency")))

    fitting = [d for d in designs if d.get("fits")] or designs
    best = min(fitting, key=lambda d: d["latency_ms"])
    layers = layer_dicts(rows, best["point_id"], workload)
    fig, (l, r) = plt.subplots(1, 2, figsize=(13, 5))
    if layers:
        plot_breakdown(l, layers)
        peak = best.get("peak_macs_per_cycle") or (1 << (best["LOG_BATCH"] + 2 * best["LOG_BLOCK"]))
        bus = (1 << best["LOG_BUS_WIDTH"]) / 8 / max(1, best.get("DRAM_CYCLES_PER_BEAT") or 1)
        plot_roofline(r, peak, bus, layers)
    fig.suptitle("Fastest design that fits the %s: %s" % (part, best.get("config_label")))
    fig.tight_layout()
    svgs.append(("Layers of the fastest design that fits", svg_and_files(fig, a.out, "layers")))

    varying = [k for k in CONFIG_KEYS if len({d.get(k) for d in designs}) > 1]
    body = ["<h1>Sweep report: %s</h1>" % html.escape(workload),
            "<p>%d design points finished (%d fit the %s). Fastest that fits: <b>%s</b>, "
            "%.3f ms, %.0f LUTs, %.0f DSPs, %.1f BRAM36, %.3f mJ.</p>" % (
                len(designs), sum(1 for d in designs if d.get("fits")), part,
                html.escape(str(best.get("config_label"))), best["latency_ms"], best["lut_total"],
                best["area_dsp"], best["area_bram36"], (best.get("energy_j") or 0) * 1e3),
            "<p>Area is the project's FPGA resource model (Yosys synth_xilinx estimates before "
            "place and route); energy its counter-based model (explore/README.md).</p>"]
    for title, svg in svgs:
        body.append("<h2>%s</h2>\n<div class='plot'>%s</div>" % (html.escape(title), svg))
    body.append("<h2>Pareto designs (latency, LUTs)</h2>")
    body.append(table(front, varying, part))
    script = ("<script>window.addEventListener('load',function(){var g=document.getElementById("
              "'pareto-front-lut_total');document.body.dataset.paretoPoints=g?"
              "g.querySelectorAll('use').length:0;document.body.dataset.loaded='1';});"
              "</script>")
    page = ("<!DOCTYPE html>\n<html><head><meta charset='utf-8'><title>Sweep report</title>"
            "<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}"
            "td,th{border:1px solid #ccc;padding:2px 6px;font-size:13px}</style>%s</head>"
            "<body data-designs='%d' data-pareto='%d'>\n%s\n</body></html>\n"
            % (script, len(designs), len(front), "\n".join(body)))
    with open(os.path.join(a.out, "index.html"), "w") as f:
        f.write(page)
    json.dump({"designs": len(designs), "pareto": [d["point_id"] for d in front],
               "best_fitting": best["point_id"]},
              open(os.path.join(a.out, "summary.json"), "w"), indent=1)
    print("sweep report: %s/index.html (%d designs, %d on the Pareto front)"
          % (a.out, len(designs), len(front)))


main()
