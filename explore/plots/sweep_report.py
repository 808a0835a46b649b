"""Writes the self-contained HTML report of a sweep database (`vtasim sweep report DB --out DIR`):
a headline that names the device, clock and port assumptions and lists the near-ties of the
fastest design that fits; latency against area (LUTs and DSPs) with the Pareto front and the
devices' budgets; energy against latency; the per-layer cycle breakdown and the roofline of the
fastest design that fits; and the Pareto set in latency, energy and area together. Every plot is
also written beside it as PNG and SVG; the HTML inlines the SVGs, so it needs no network access.

The fit of each design on each device comes from VERDICTS.json, which `vtasim sweep report`
computes from the stored resources with the one C++ rule (explore/src/design_verdict.cc).

When the workload's rows carry the accuracy of the quantized network (`cosine`, `cosine_mean`,
`top1_agreement`: network:MODEL.onnx workloads), the report also answers "which precision?":
the fastest design that fits with cosine >= --min-cosine (default 0.99), a table by precision,
accuracy against latency and against area (LUTs) with the designs coloured by precision, and
the Pareto set in latency, LUTs and cosine together. Designs of several precisions (the
`precision` column) are coloured by it and, without accuracy, tabulated by it.

usage: sweep_report.py DB.sqlite OUT_DIR --verdicts VERDICTS.json [--workload NAME]
                       [--min-cosine C]
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

CONFIG_KEYS = ("LOG_BATCH", "LOG_BLOCK", "LOG_UOP_BUFF_SIZE", "LOG_INP_BUFF_SIZE",
               "LOG_WGT_BUFF_SIZE", "LOG_ACC_BUFF_SIZE", "LOG_BUS_WIDTH", "CLOCK_MHZ")
NEAR_TIE = 0.01  # designs within 1 % of the fastest are listed with their energy and area
WIDTH_KEYS = ("LOG_INP_WIDTH", "LOG_WGT_WIDTH", "LOG_ACC_WIDTH")
# Colours of the precision groups, narrowest first (a colour-blind-safe qualitative set).
PRECISION_COLORS = ("#e66101", "#5e3c99", "#1b7837", "#b2182b", "#2166ac", "#8c510a", "#01665e")
ACCURACY_KEYS = ("latency_ms", "lut_total", "cosine_loss")  # the accuracy Pareto (lower better)
STYLE = ("body{font-family:sans-serif;margin:1em;max-width:100%}h1{font-size:1.4em;"
         "overflow-wrap:anywhere}p,li{overflow-wrap:anywhere}.plot svg{max-width:100%;"
         "height:auto}.scroll{overflow-x:auto;max-width:100%}table{border-collapse:collapse}"
         "td,th{border:1px solid #ccc;padding:2px 6px;font-size:13px}.flag{color:#b35806}")


def fail(msg):
    sys.exit("sweep report: error: " + msg)


def read_rows(path):
    if not os.path.isfile(path):
        fail("no database '%s'" % path)
    con = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
    con.row_factory = sqlite3.Row
    try:
        rows = [dict(r) for r in con.execute("SELECT * FROM results")]
    except sqlite3.DatabaseError as e:
        fail("%s is not a sweep database: %s" % (path, e))
    return rows


def pareto(points, x, y):
    """The points no other point beats in both x and y (lower is better), sorted by x."""
    front, best_y = [], float("inf")
    for p in sorted(points, key=lambda p: (p[x], p[y])):
        if p[y] < best_y:
            front.append(p)
            best_y = p[y]
    return front


def pareto_nd(points, keys):
    """The points no other point beats in every one of `keys` (lower is better)."""
    def beats(a, b):
        return all(a[k] <= b[k] for k in keys) and any(a[k] < b[k] for k in keys)
    return sorted((p for p in points if not any(beats(q, p) for q in points)),
                  key=lambda p: p[keys[0]])


def svg_and_files(fig, out_dir, name):
    """Saves `fig` as OUT_DIR/name.png and .svg; returns the SVG text to inline."""
    fig.savefig(os.path.join(out_dir, name + ".png"), dpi=100)
    buf = io.StringIO()
    fig.savefig(buf, format="svg")
    fig.savefig(os.path.join(out_dir, name + ".svg"))
    plt.close(fig)
    text = buf.getvalue()
    return text[text.index("<svg"):]


def scatter_fit(ax, designs, x, y, part):
    """The designs, those that do not fit `part` (resources, ports or clock) as grey crosses;
    when the designs have several precisions, those that fit in a colour per precision."""
    size = 14 if len(designs) < 300 else 4  # thousands of points stay distinguishable
    fit = [d for d in designs if d["fits"]]
    other = [d for d in designs if not d["fits"]]
    labels = sorted({d.get("precision") for d in designs}, key=precision_order)
    if len(labels) > 1:
        for i, label in enumerate(labels):
            group = [d for d in fit if d.get("precision") == label]
            ax.scatter([d[x] for d in group], [d[y] for d in group], s=size,
                       color=PRECISION_COLORS[i % len(PRECISION_COLORS)],
                       label="%s, fit the %s (%d)" % (label, part, len(group)),
                       gid="designs-%s-%d" % (x, i))
    else:
        ax.scatter([d[x] for d in fit], [d[y] for d in fit], s=size, color="#9ecae1",
                   label="fit the %s (%d)" % (part, len(fit)), gid="designs-" + x)
    if other:
        ax.scatter([d[x] for d in other], [d[y] for d in other], s=size, marker="x",
                   color="#999999", linewidths=0.8, label="do not fit it (%d)" % len(other))
    return fit


def draw_fronts(ax, designs, fit, x, y):
    """The front of all designs (grey, dashed) and, where some do not fit, the front of those
    that fit (red): the one a design decision can use. Returns the front of all designs."""
    front = pareto(designs, x, y)
    fit_front = pareto(fit, x, y)
    same = [id(d) for d in front] == [id(d) for d in fit_front]
    style = dict(color="#d7191c", s=30) if same else dict(color="#636363", s=12)
    ax.plot([d[x] for d in front], [d[y] for d in front], "-" if same else "--",
            color=style["color"], linewidth=1)
    ax.scatter([d[x] for d in front], [d[y] for d in front], zorder=3, gid="pareto-front-" + x,
               label="Pareto front (%d)" % len(front) if same else
               "Pareto front of all designs (%d)" % len(front), **style)
    if not same and fit_front:
        ax.plot([d[x] for d in fit_front], [d[y] for d in fit_front], "-", color="#d7191c",
                linewidth=1)
        ax.scatter([d[x] for d in fit_front], [d[y] for d in fit_front], s=30, color="#d7191c",
                   zorder=4, gid="pareto-fit-" + x,
                   label="Pareto front of those that fit (%d)" % len(fit_front))
    return front


def area_plot(ax, designs, key, budgets, label, part):
    fit = scatter_fit(ax, designs, key, "latency_ms", part)
    front = draw_fronts(ax, designs, fit, key, "latency_ms")
    for i, (budget_part, budget) in enumerate(budgets):
        ax.axvline(budget, color="k", linestyle=("--", ":", "-.", "-")[i % 4], linewidth=1,
                   label="%s budget" % budget_part)
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


def precision_of(r):
    """The row's `precision` column, or the same spelling from its width keys (databases written
    before the column): "int8" for N-bit inputs and weights over an int32 accumulator, else
    "int4/int4/int16"."""
    if r.get("precision"):
        return r["precision"]
    logs = [r.get(k) for k in WIDTH_KEYS]
    if any(not isinstance(v, int) or not 0 <= v <= 30 for v in logs):
        return None
    if logs[0] == logs[1] and logs[2] == 5:
        return "int%d" % (1 << logs[0])
    return "/".join("int%d" % (1 << v) for v in logs)


def precision_order(label):
    """Sort key of precision labels: by input, weight, accumulator bits."""
    try:
        bits = [int(p[3:]) for p in str(label).split("/")]
    except ValueError:
        return (1 << 30,)
    return tuple(bits + [32] * (3 - len(bits)))


def designs_of(rows, workload, verdicts, primary):
    """The ok designs of `workload`, each with its verdicts by part and the primary's `fits`."""
    designs = []
    for r in rows:
        if r.get("row_kind") != "summary" or r.get("status") != "ok" or r.get("workload") != workload:
            continue
        if r.get("time_s") is None or r.get("area_lut") is None:
            continue
        d = dict(r)
        d["latency_ms"] = r["time_s"] * 1e3
        d["lut_total"] = r["area_lut"] + (r.get("area_lutram") or 0)
        d["energy_mj"] = (r.get("energy_j") or 0) * 1e3
        d["verdicts"] = verdicts.get(r["point_id"], {})
        v = d["verdicts"].get(primary)
        d["fits"] = bool(v and v["fits"])
        d["share"] = max(v["util_lut"], v["util_ff"], v["util_dsp"], v["util_bram36"]) if v else 0
        d["precision"] = precision_of(r)
        if r.get("cosine") is not None:
            d["cosine_loss"] = 1 - r["cosine"]
        designs.append(d)
    return designs


def flags(d, part):
    """What is a guess or refused about a design on `part`, as short words."""
    out = []
    if d.get("area_extrapolated"):
        out.append("area extrapolated (%s)" % d.get("area_extrapolation"))
    if d.get("energy_extrapolated"):
        out.append("energy extrapolated")
    v = d["verdicts"].get(part)
    if v and v["clock_extrapolated"]:
        out.append("clock estimate extrapolated")
    if v and not v["clock_ok"]:
        out.append("clock above the estimated %.0f MHz" % v["clock_estimate_mhz"])
    if v and not v["port_ok"]:
        out.append("bus wider than the %d-bit ports" % v["port_width_bits"])
    return out


def fit_cell(d, part):
    v = d["verdicts"].get(part)
    if not v:
        return "?"
    return "yes" if v["fits"] else "no: " + html.escape(v["why_not"] or "")


def table(designs, keys, parts, table_id):
    head = "".join("<th>%s</th>" % html.escape(k) for k in keys)
    fits = "".join("<th>fits %s</th>" % html.escape(p) for p in parts)
    lines = ["<div class='scroll'><table id='%s'><tr><th>design</th>%s<th>latency ms</th>"
             "<th>energy mJ</th><th>LUT</th><th>DSP</th><th>BRAM36</th>%s<th>flags</th></tr>"
             % (table_id, head, fits)]
    for d in designs:
        cells = "".join("<td>%s</td>" % html.escape(str(d.get(k))) for k in keys)
        lines.append("<tr><td>%s</td>%s<td>%.3f</td><td>%.3f</td><td>%.0f</td><td>%.0f</td>"
                     "<td>%.1f</td>%s<td class='flag'>%s</td></tr>" % (
                         html.escape(str(d.get("config_label") or d["point_id"])), cells,
                         d["latency_ms"], d["energy_mj"], d["lut_total"], d["area_dsp"],
                         d["area_bram36"], "".join("<td>%s</td>" % fit_cell(d, p) for p in parts),
                         html.escape("; ".join(flags(d, parts[0])))))
    lines.append("</table></div>")
    return "\n".join(lines)


def device_lines(devices, designs, verdict_info):
    """One line per device: its assumptions (ports, clock) and how many designs fit it."""
    out = []
    for dev in devices:
        part, ports = dev["part"], dev["memory_ports"]
        fit = sum(1 for d in designs if d["verdicts"].get(part, {}).get("fits"))
        out.append("<li><b>%s</b> (%s, board %s): %d of %d designs fit. Memory ports: %d x %d-bit "
                   "%s (a wider bus is not buildable); clock estimate %g MHz at the 1x16x16 GEMM "
                   "(%s), lower for larger arrays%s.</li>" % (
                       html.escape(part), html.escape(dev["family"]), html.escape(dev["board"]),
                       fit, len(designs), ports["count"], ports["width_bits"],
                       html.escape(ports["name"]), dev["reference_clock_mhz"],
                       html.escape(dev["clock_source"]),
                       "" if verdict_info["count_clock"] else
                       "; designs above it still count as fitting (--ignore-clock-estimate)"))
    return "<ul id='devices'>%s</ul>" % "".join(out)


def near_ties(designs, best):
    """The fitting designs within NEAR_TIE of the fastest fitting one, fastest first."""
    limit = best["latency_ms"] * (1 + NEAR_TIE)
    return sorted((d for d in designs if d["fits"] and d["latency_ms"] <= limit),
                  key=lambda d: (d["latency_ms"], d["energy_mj"]))


def headline(workload, designs, best, devices, verdict_info, varying):
    part = devices[0]["part"]
    parts = [dev["part"] for dev in devices]
    out = ["<h1>Sweep report: %s</h1>" % html.escape(workload), device_lines(devices, designs,
                                                                              verdict_info)]
    if best is None:
        out.append("<p id='headline'>No design fits the %s.</p>" % html.escape(part))
        return out
    ties = near_ties(designs, best)
    f = flags(best, part)
    out.append("<p id='headline'>Fastest design that fits the %s: <b>%s</b>, %.3f ms at %g MHz, "
               "%.3f mJ, %.0f LUTs, %.0f DSPs, %.1f BRAM36, %d-bit bus%s. %s within %g %% of "
               "it:</p>" % (
                   html.escape(part), html.escape(str(best.get("config_label"))),
                   best["latency_ms"], best.get("CLOCK_MHZ") or 0,
                   best["energy_mj"], best["lut_total"], best["area_dsp"], best["area_bram36"],
                   best.get("bus_bits") or 0,
                   (" <span class='flag'>(" + html.escape("; ".join(f)) + ")</span>") if f else "",
                   "No other design" if len(ties) == 1 else
                   "%d other design(s) (listed after it)" % (len(ties) - 1), NEAR_TIE * 100))
    out.append(table(ties, varying, parts, "near-ties"))
    return out


def accuracy_front(designs):
    """The Pareto set in latency, LUTs and cosine: the designs with accuracy that no other beats
    in all three (at least as fast, as small and as accurate, better in one), among those that
    fit the primary device (all with accuracy when none fits), fastest first."""
    acc = [d for d in designs if "cosine_loss" in d]
    return pareto_nd([d for d in acc if d["fits"]] or acc, ACCURACY_KEYS)


def best_accurate(designs, min_cosine):
    """The fastest design that fits with cosine >= min_cosine (ties: the more accurate, then the
    lower energy), or None."""
    ok = [d for d in designs if d["fits"] and "cosine_loss" in d and d["cosine"] >= min_cosine]
    return min(ok, key=lambda d: (d["latency_ms"], -d["cosine"], d["energy_mj"])) if ok else None


def percent(v):
    return "-" if v is None else "%.1f %%" % (100 * v)


def cosine_range(group):
    lo, hi = min(d["cosine"] for d in group), max(d["cosine"] for d in group)
    return "%.5f" % lo if hi - lo < 5e-6 else "%.5f..%.5f" % (lo, hi)


def precision_answer(designs, best, min_cosine, part):
    """The line that answers "which precision?" for the accuracy floor `min_cosine`."""
    acc = [d for d in designs if "cosine_loss" in d]
    if best:
        return ("<p id='precision-answer'><b>Which precision?</b> The fastest design that fits "
                "the %s with output cosine &gt;= %g: <b>%s</b> (<b>%s</b>), %.3f ms, cosine %.5f, "
                "top-1 agreement %s, %.0f LUTs, %.0f DSPs.</p>" % (
                    html.escape(part), min_cosine, html.escape(str(best.get("precision"))),
                    html.escape(str(best.get("config_label"))), best["latency_ms"],
                    best["cosine"], percent(best.get("top1_agreement")), best["lut_total"],
                    best["area_dsp"]))
    top = max(acc, key=lambda d: (d["cosine"], -d["latency_ms"]))
    return ("<p id='precision-answer'><b>Which precision?</b> No design that fits the %s reaches "
            "output cosine &gt;= %g; the most accurate design is %s (%s), cosine %.5f, %.3f ms "
            "(--min-cosine sets the floor).</p>" % (
                html.escape(part), min_cosine, html.escape(str(top.get("precision"))),
                html.escape(str(top.get("config_label"))), top["cosine"], top["latency_ms"]))


def precision_table(designs, min_cosine):
    """One line per precision: its accuracy and its fastest design, fitting and accurate."""
    acc = [d for d in designs if "cosine_loss" in d]
    lines = ["<div class='scroll'><table id='precision-table'><tr><th>precision</th>"
             "<th>designs</th><th>fit</th><th>cosine</th><th>cosine mean</th><th>top-1 "
             "agreement</th><th>fastest that fits, ms</th><th>its LUTs</th><th>fastest that fits "
             "with cosine &gt;= %g, ms</th></tr>" % min_cosine]
    for label in sorted({d["precision"] for d in acc}, key=precision_order):
        group = [d for d in acc if d["precision"] == label]
        fit = [d for d in group if d["fits"]]
        fast = min(fit, key=lambda d: d["latency_ms"]) if fit else None
        good = best_accurate(group, min_cosine)
        lines.append("<tr><td>%s</td><td>%d</td><td>%d</td><td>%s</td><td>%s</td><td>%s</td>"
                     "<td>%s</td><td>%s</td><td>%s</td></tr>" % (
                         html.escape(str(label)), len(group), len(fit), cosine_range(group),
                         "%.5f" % max(d.get("cosine_mean") or 0 for d in group),
                         percent(max(d.get("top1_agreement") or 0 for d in group)),
                         "%.3f" % fast["latency_ms"] if fast else "none fits",
                         "%.0f" % fast["lut_total"] if fast else "-",
                         "%.3f" % good["latency_ms"] if good else "none"))
    lines.append("</table></div>")
    return "\n".join(lines)


def accuracy_table(front, keys, parts):
    head = "".join("<th>%s</th>" % html.escape(k) for k in keys)
    lines = ["<div class='scroll'><table id='accuracy-pareto'><tr><th>design</th>"
             "<th>precision</th>%s<th>latency ms</th><th>LUT</th><th>DSP</th><th>cosine</th>"
             "<th>cosine mean</th><th>top-1 agreement</th><th>fits %s</th></tr>"
             % (head, html.escape(parts[0]))]
    for d in front:
        lines.append("<tr><td>%s</td><td>%s</td>%s<td>%.3f</td><td>%.0f</td><td>%.0f</td>"
                     "<td>%.5f</td><td>%s</td><td>%s</td><td>%s</td></tr>" % (
                         html.escape(str(d.get("config_label") or d["point_id"])),
                         html.escape(str(d.get("precision"))),
                         "".join("<td>%s</td>" % html.escape(str(d.get(k))) for k in keys),
                         d["latency_ms"], d["lut_total"], d["area_dsp"], d["cosine"],
                         "-" if d.get("cosine_mean") is None else "%.5f" % d["cosine_mean"],
                         percent(d.get("top1_agreement")), fit_cell(d, parts[0])))
    lines.append("</table></div>")
    return "\n".join(lines)


def accuracy_plot(designs, front, min_cosine, out, part):
    """Cosine against latency and against LUTs, a colour per precision (crosses: does not fit
    `part`), the Pareto set in the three circled, the accuracy floor dashed."""
    acc = [d for d in designs if "cosine_loss" in d]
    labels = sorted({d["precision"] for d in acc}, key=precision_order)
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
    for ax, x, xlabel in ((axes[0], "latency_ms", "latency (ms at the design's clock)"),
                          (axes[1], "lut_total", "LUTs (incl. LUT-RAM), model")):
        for i, label in enumerate(labels):
            color = PRECISION_COLORS[i % len(PRECISION_COLORS)]
            group = [d for d in acc if d["precision"] == label]
            fit = [d for d in group if d["fits"]]
            other = [d for d in group if not d["fits"]]
            ax.scatter([d[x] for d in fit], [d["cosine"] for d in fit], s=16, color=color,
                       label="%s (%d)" % (label, len(group)), gid="precision-%d-%s" % (i, x))
            if other:
                ax.scatter([d[x] for d in other], [d["cosine"] for d in other], s=16, marker="x",
                           color=color, linewidths=0.8)
        ax.scatter([d[x] for d in front], [d["cosine"] for d in front], s=80, facecolors="none",
                   edgecolors="#d7191c", linewidths=1.2, zorder=3, gid="pareto-accuracy-" + x,
                   label="Pareto set: latency, LUTs, cosine (%d)" % len(front))
        ax.axhline(min_cosine, color="k", linestyle="--", linewidth=1,
                   label="cosine %g" % min_cosine)
        ax.set_xlabel(xlabel)
        ax.set_ylabel("output cosine (quantized vs float)")
        ax.legend(fontsize=7)
    fig.suptitle("Accuracy against latency and area%s" % (
        "" if all(d["fits"] for d in acc) else " (crosses: do not fit the %s)" % part),
        fontsize=10, wrap=True)
    fig.tight_layout()
    return svg_and_files(fig, out, "accuracy")


def precision_speed_table(designs, part):
    """Without accuracy, one line per precision (when there are several): its fastest design
    that fits `part` and that design's area."""
    lines = ["<div class='scroll'><table id='precision-table'><tr><th>precision</th>"
             "<th>designs</th><th>fit</th><th>fastest that fits</th><th>ms</th><th>energy mJ</th>"
             "<th>LUT</th><th>DSP</th><th>BRAM36</th></tr>"]
    for label in sorted({d["precision"] for d in designs}, key=precision_order):
        group = [d for d in designs if d["precision"] == label]
        fit = [d for d in group if d["fits"]]
        fast = min(fit, key=lambda d: (d["latency_ms"], d["energy_mj"])) if fit else None
        cells = ("<td>%s</td><td>%.3f</td><td>%.3f</td><td>%.0f</td><td>%.0f</td><td>%.1f</td>"
                 % (html.escape(str(fast.get("config_label"))), fast["latency_ms"],
                    fast["energy_mj"], fast["lut_total"], fast["area_dsp"], fast["area_bram36"])
                 if fast else "<td colspan='6'>none fits the %s</td>" % html.escape(part))
        lines.append("<tr><td>%s</td><td>%d</td><td>%d</td>%s</tr>" % (
            html.escape(str(label)), len(group), len(fit), cells))
    lines.append("</table></div>")
    return "\n".join(lines)


def accuracy_section(designs, varying, parts, min_cosine, out):
    """The accuracy parts of the page (answer line, tables, plot) and their summary.json entry;
    without accuracy, the table by precision when the designs have several, else nothing."""
    if not any("cosine_loss" in d for d in designs):
        several = len({d["precision"] for d in designs}) > 1
        return ([precision_speed_table(designs, parts[0])] if several else []), None
    front = accuracy_front(designs)
    best = best_accurate(designs, min_cosine)
    body = [precision_answer(designs, best, min_cosine, parts[0]),
            precision_table(designs, min_cosine),
            "<h2>Accuracy against latency and area</h2>\n<div class='plot scroll'>%s</div>"
            % accuracy_plot(designs, front, min_cosine, out, parts[0]),
            "<h2>Pareto set in latency, LUTs and cosine, of the designs with accuracy that %s</h2>"
            % ("fit the " + html.escape(parts[0]) if any(d["fits"] for d in front) else
               "ran (none fits)"),
            accuracy_table(front, varying, parts)]
    answer = {"min_cosine": min_cosine, "best": best["point_id"] if best else None,
              "best_precision": best["precision"] if best else None,
              "pareto_latency_area_accuracy": [d["point_id"] for d in front],
              "designs": sum(1 for d in designs if "cosine_loss" in d)}
    return body, answer


def cores_of(d):
    """Cores of a design: the row's `core_count` column (1 for databases from before systems)."""
    return d.get("core_count") or 1


def copies_of(d):
    """Copies of the workload one run does: the row's `copies` (a system in the replicated mode
    runs one per core; split over the cores, one), else its cores (databases from before)."""
    return d.get("copies") or cores_of(d)


def throughput_of(d):
    """Copies of the workload per second: the row's throughput_per_s (a system in the
    replicated mode runs one copy per core in its time, in the split mode one), else one copy
    in time_s."""
    t = d.get("throughput_per_s")
    return t if t is not None else 1.0 / d["time_s"]


def array_of(d):
    """The GEMM array of one core, BATCH x BLOCK_IN x BLOCK_OUT, from the config keys."""
    if d.get("LOG_BLOCK") is None:
        return "?"
    return "%dx%dx%d" % (1 << (d.get("LOG_BATCH") or 0), 1 << d["LOG_BLOCK"], 1 << d["LOG_BLOCK"])


def mode_of(d):
    """How a design ran its workload: "single core", or its multicore_mode: "replicated", or
    "split" with the compiler's choice ("split: channels")."""
    if cores_of(d) < 2:
        return "single core"
    mode = d.get("multicore_mode") or "-"
    return "%s: %s" % (mode, d["split"]) if mode == "split" and d.get("split") else mode


def multicore_table(designs, parts, table_id):
    lines = ["<div class='scroll'><table id='%s'><tr><th>design</th><th>cores</th>"
             "<th>array per core</th><th>mode</th><th>per second</th><th>latency ms</th>"
             "<th>contention %%</th><th>energy mJ per copy</th><th>LUT</th><th>DSP</th>"
             "<th>BRAM36</th><th>area share</th>%s</tr>"
             % (table_id, "".join("<th>fits %s</th>" % html.escape(p) for p in parts))]
    for d in designs:
        lines.append("<tr><td>%s</td><td>%d</td><td>%s</td><td>%s</td><td>%.1f</td><td>%.3f</td>"
                     "<td>%.1f</td><td>%.3f</td><td>%.0f</td><td>%.0f</td><td>%.1f</td>"
                     "<td>%s</td>%s</tr>" % (
                         html.escape(str(d.get("config_label") or d["point_id"])), cores_of(d),
                         array_of(d), html.escape(mode_of(d)),
                         d["throughput"], d["latency_ms"], d["contention_pct"],
                         d["energy_mj"] / copies_of(d), d["lut_total"], d["area_dsp"],
                         d["area_bram36"], percent(d["share"]),
                         "".join("<td>%s</td>" % fit_cell(d, p) for p in parts)))
    lines.append("</table></div>")
    return "\n".join(lines)


def contention_pct(d):
    """Cycles the cores' bursts waited behind other cores' at the interconnect, as a share of
    the cores' cycles (0 for a single core)."""
    n = cores_of(d)
    waited = sum(d.get("core%d_dram_contention_cycles" % k) or 0 for k in range(n))
    busy = sum(d.get("core%d_cycles" % k) or 0 for k in range(n))
    return 100.0 * waited / busy if busy else 0.0


def multicore_section(designs, parts):
    """"One big core or several small ones?": when the designs differ in their number of cores,
    the highest throughput that fits the first part against the best single core, and the
    Pareto set in throughput and area (share of the part) of the designs that fit it (of all
    designs when none does). Returns the page's parts and summary.json's entry."""
    if len({cores_of(d) for d in designs}) < 2:
        return [], None
    part = parts[0]
    for d in designs:
        d["throughput"] = throughput_of(d)
        d["period"] = 1.0 / d["throughput"]
        d["contention_pct"] = contention_pct(d)
    fitting = [d for d in designs if d["fits"]]
    pool = fitting or designs
    front = sorted(pareto_nd(pool, ("period", "share")), key=lambda d: -d["throughput"])
    best = max(fitting, key=lambda d: (d["throughput"], -d["share"])) if fitting else None
    singles = [d for d in fitting if cores_of(d) == 1]
    single = max(singles, key=lambda d: (d["throughput"], -d["share"])) if singles else None
    if best is None:
        line = "No design fits the %s." % html.escape(part)
    else:
        line = ("Highest throughput that fits the %s: <b>%s</b>, %d core(s) of %s (%s), %.1f per "
                "second (%s of the part)"
                % (html.escape(part), html.escape(str(best.get("config_label"))), cores_of(best),
                   array_of(best), html.escape(mode_of(best)), best["throughput"],
                   percent(best["share"])))
        if single is not None and single is not best:
            line += ("; the best single core, <b>%s</b> (%s), does %.1f per second: %.2fx"
                     % (html.escape(str(single.get("config_label"))), array_of(single),
                        single["throughput"], best["throughput"] / single["throughput"]))
        elif single is None:
            line += "; no single core fits"
        line += "."
    body = ["<h2>One big core or several small ones?</h2>",
            "<p id='multicore-answer'>%s Throughput is copies of the workload per second at each "
            "design's clock. The mode says how a system ran it: 'replicated', one copy per core "
            "at once, each in the latency shown; 'split', one copy split over the cores by the "
            "compiler (its choice of split after the colon), in the latency shown. The cores "
            "share the DRAM (contention: cycles their bursts waited behind other cores'). Area is "
            "every core's plus the interconnect's.</p>" % line,
            "<h3>Pareto set in throughput and area (share of the %s), of the designs that %s</h3>"
            % (html.escape(part), "fit it" if fitting else "ran (none fits)"),
            multicore_table(front, parts, "multicore-pareto"),
            "<h3>Every design by cores</h3>",
            multicore_table(sorted(designs, key=lambda d: (cores_of(d), -d["throughput"])), parts,
                            "multicore-table")]
    answer = {"best": best["point_id"] if best else None,
              "best_cores": cores_of(best) if best else None,
              "best_single_core": single["point_id"] if single else None,
              "pareto_throughput_area": [d["point_id"] for d in front],
              "throughput_per_s": {d["point_id"]: d["throughput"] for d in designs}}
    return body, answer


def prepare_out(out):
    try:
        os.makedirs(out, exist_ok=True)
        probe = os.path.join(out, ".write_test")
        with open(probe, "w"):
            pass
        os.remove(probe)
    except OSError as e:
        fail("cannot write the report to --out '%s': %s" % (out, e.strerror or e))


def select_designs(rows, a, verdicts, primary):
    workloads = sorted({r["workload"] for r in rows if r.get("row_kind") == "summary"})
    if not workloads:
        fail("%s holds no finished design point" % a.db)
    workload = a.workload or workloads[0]
    if workload not in workloads:
        fail("workload '%s' is not in %s (%s)" % (workload, a.db, ", ".join(workloads)))
    designs = designs_of(rows, workload, verdicts, primary)
    if not designs:
        untimed = sorted({r.get("backend") for r in rows if r.get("row_kind") == "summary" and
                          r.get("status") == "ok" and r.get("workload") == workload})
        if untimed:  # ok rows without a time: an untimed backend such as fsim
            fail("the design points of '%s' ran on the %s backend, which has no cycles; a report "
                 "needs a timed backend (cycle or rtl)" % (workload, ", ".join(untimed)))
        fail("no design point of '%s' finished with status ok" % workload)
    return workload, designs


def plots(rows, workload, designs, devices, best, out):
    """The report's figures as (title, inline SVG); returns them and the LUT Pareto front."""
    svgs = []
    fig, (l, r) = plt.subplots(1, 2, figsize=(12, 4.5))
    part = devices[0]["part"]
    front = area_plot(l, designs, "lut_total", [(d["part"], d["budget"]["lut"]) for d in devices],
                      "LUTs (incl. LUT-RAM), model", part)
    area_plot(r, designs, "area_dsp", [(d["part"], d["budget"]["dsp"]) for d in devices],
              "DSP48 slices, model", part)
    fig.suptitle("%s: latency against area" % workload, fontsize=10, wrap=True)
    fig.tight_layout()
    svgs.append(("Latency against area", svg_and_files(fig, out, "latency_area")))

    fig, ax = plt.subplots(figsize=(6.5, 4.5))
    fit = scatter_fit(ax, designs, "latency_ms", "energy_mj", part)
    draw_fronts(ax, designs, fit, "latency_ms", "energy_mj")
    ax.set_xlabel("latency (ms)")
    ax.set_ylabel("energy (mJ, model)")
    ax.legend(fontsize=7)
    fig.tight_layout()
    svgs.append(("Energy against latency", svg_and_files(fig, out, "energy_latency")))

    shown = best or min(designs, key=lambda d: d["latency_ms"])
    layers = layer_dicts(rows, shown["point_id"], workload)
    fig, (l, r) = plt.subplots(1, 2, figsize=(13, 5))
    if layers:
        plot_breakdown(l, layers)
        peak = shown.get("peak_macs_per_cycle") or shown.get("gemm_macs") or 1
        bus = (shown.get("bus_bits") or 64) / 8 / max(1, shown.get("DRAM_CYCLES_PER_BEAT") or 1)
        plot_roofline(r, peak, bus, layers)
    fig.suptitle("%s on the %s" % ("Fastest design that fits" if best else "Fastest design (none "
                 "fits)", devices[0]["part"]), fontsize=10)
    fig.tight_layout()
    svgs.append(("Layers of the fastest design that fits", svg_and_files(fig, out, "layers")))
    return svgs, front


def page(body, designs, front):
    # The points of the LUT plot's fronts (of all designs; of those that fit, which is the same
    # front when no group of its own is drawn) and of the accuracy plot's Pareto set (-1: no
    # accuracy plot), for the browser test.
    script = ("<script>window.addEventListener('load',function(){function n(id){var g="
              "document.getElementById(id);return g?g.querySelectorAll('use').length:-1;}"
              "var a=n('pareto-front-lut_total'),f=n('pareto-fit-lut_total');"
              "document.body.dataset.paretoPoints=Math.max(a,0);"
              "document.body.dataset.paretoFitPoints=f<0?Math.max(a,0):f;"
              "document.body.dataset.paretoAccuracyPoints=n('pareto-accuracy-latency_ms');"
              "var t=document.getElementById('multicore-pareto');"
              "document.body.dataset.multicoreParetoRows=t?t.rows.length-1:-1;"
              "document.body.dataset.loaded='1';});</script>")
    return ("<!DOCTYPE html>\n<html><head><meta charset='utf-8'>"
            "<meta name='viewport' content='width=device-width, initial-scale=1'>"
            "<title>Sweep report</title><style>%s</style>%s</head>"
            "<body data-designs='%d' data-pareto='%d'>\n%s\n</body></html>\n"
            % (STYLE, script, len(designs), len(front), "\n".join(body)))


def main():
    ap = argparse.ArgumentParser(prog="vtasim sweep report")
    ap.add_argument("db")
    ap.add_argument("out")
    ap.add_argument("--workload")
    ap.add_argument("--verdicts", required=True)
    ap.add_argument("--json", help="also write summary.json's content to this file")
    ap.add_argument("--quiet", action="store_true")
    ap.add_argument("--min-cosine", type=float, default=0.99,
                    help="accuracy floor of the precision answer (output cosine, -1..1)")
    a = ap.parse_args()
    if not -1 <= a.min_cosine <= 1:
        fail("--min-cosine %g is not a cosine (-1..1)" % a.min_cosine)
    with open(a.verdicts) as f:
        info = json.load(f)
    devices = info["devices"]
    parts = [d["part"] for d in devices]
    rows = read_rows(a.db)
    workload, designs = select_designs(rows, a, info["verdicts"], parts[0])
    prepare_out(a.out)
    fitting = [d for d in designs if d["fits"]]
    best = min(fitting, key=lambda d: (d["latency_ms"], d["energy_mj"])) if fitting else None
    svgs, front = plots(rows, workload, designs, devices, best, a.out)
    varying = [k for k in ("precision", "core_count", "multicore_mode", "split") + CONFIG_KEYS
               if len({d.get(k) for d in designs}) > 1]
    # The decision is among designs that can be built: the front of those that fit, if any do.
    front3 = pareto_nd(fitting or designs, ("latency_ms", "energy_mj", "share"))
    body = headline(workload, designs, best, devices, info, varying)
    accuracy_body, accuracy = accuracy_section(designs, varying, parts, a.min_cosine, a.out)
    # The precision answer and table right after the devices (the table alone without accuracy).
    head = 2 if accuracy else len(accuracy_body)
    body[2:2] = accuracy_body[:head]
    body.append("<p>Area is the project's FPGA resource model (Yosys synth_xilinx estimates before "
                "place and route); energy its counter-based model; the clock estimate a model "
                "calibrated on the published VTA builds (explore/README.md). Flags mark estimates "
                "outside a model's calibrated range.</p>")
    for title, svg in svgs:
        body.append("<h2>%s</h2>\n<div class='plot scroll'>%s</div>" % (html.escape(title), svg))
    body.extend(accuracy_body[head:])
    multicore_body, multicore = multicore_section(designs, parts)
    body.extend(multicore_body)
    body.append("<h2>Pareto set in latency, energy and area (share of the %s), of the designs "
                "that %s</h2>" % (parts[0], "fit it" if fitting else "ran (none fits)"))
    body.append(table(front3, varying, parts, "pareto-table"))
    with open(os.path.join(a.out, "index.html"), "w") as f:
        f.write(page(body, designs, front))
    summary(a.out, designs, front, front3, best, info, a.json, accuracy, multicore)
    if not a.quiet:
        print("sweep report: %s/index.html (%d designs, %d on the Pareto front, %d fit the %s)"
          % (a.out, len(designs), len(front), len(fitting), parts[0]))


def summary(out, designs, front, front3, best, info, json_path, accuracy=None, multicore=None):
    """summary.json: the report's answer and every design's verdicts and flags, per device; with
    accuracy in the rows, the precision answer and the accuracy Pareto set ("accuracy")."""
    parts = [d["part"] for d in info["devices"]]
    answer = {"devices": info["devices"], "count_clock": info["count_clock"],
              "designs": len(designs), "pareto": [d["point_id"] for d in front],
              "pareto_latency_energy_area": [d["point_id"] for d in front3],
              "best_fitting": best["point_id"] if best else None,
              "near_ties": [d["point_id"] for d in near_ties(designs, best)] if best else [],
              "verdicts": {d["point_id"]: dict(d["verdicts"], flags=flags(d, parts[0]),
                                               area_extrapolated=bool(d.get("area_extrapolated")),
                                               area_extrapolation=d.get("area_extrapolation"),
                                               energy_extrapolated=bool(
                                                   d.get("energy_extrapolated")))
                           for d in designs}}
    if accuracy is not None:
        answer["accuracy"] = accuracy
    if multicore is not None:
        answer["multicore"] = multicore
    for path in [os.path.join(out, "summary.json")] + ([json_path] if json_path else []):
        try:
            with open(path, "w") as f:
                json.dump(answer, f, indent=1)
        except OSError as e:
            fail("cannot write '%s': %s" % (path, e.strerror or e))


if __name__ == "__main__":
    main()
