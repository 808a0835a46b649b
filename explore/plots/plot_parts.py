"""Drawing pieces shared by the run plot (run_plot.py) and the sweep report (sweep_report.py): the
per-unit cycle breakdown of layers and the roofline. A layer is a dict with "name", "stats" (the
counters of the JSON report or of a results-database row), "macs", "bytes_moved" and "cycles".
"""
UNIT_PARTS = {
    "load": [("busy", "load.busy_cycles"), ("token", "load.stall_g2l_cycles"),
             ("queue full", "load.stall_l2g_full_cycles"), ("memory", "load.mem_stall_cycles"),
             ("idle", "load.idle_cycles")],
    "compute": [("busy", "compute.busy_cycles"),
                ("token", ("compute.stall_l2g_cycles", "compute.stall_s2g_cycles")),
                ("queue full", ("compute.stall_g2l_full_cycles", "compute.stall_g2s_full_cycles")),
                ("memory", "compute.mem_stall_cycles"), ("idle", "compute.idle_cycles")],
    "store": [("busy", "store.busy_cycles"), ("token", "store.stall_g2s_cycles"),
              ("queue full", "store.stall_s2g_full_cycles"), ("memory", "store.mem_stall_cycles"),
              ("idle", "store.idle_cycles")],
}
MAX_LABELS = 24  # layer names a plot shows before it names only every k-th
COLORS = {"busy": "#2b8cbe", "token": "#fdae61", "queue full": "#d7191c", "memory": "#7b3294",
          "idle": "#cccccc"}


def layers_of(report):
    """The report's layers ({name, stats, macs, bytes_moved}); a single-layer report is one."""
    if "layers" in report:
        return report["layers"]
    return [dict(report, name=report.get("program", "layer"), stats=report)]


def get(stats, name):
    """A counter by its report name ("load.busy_cycles") or its database column
    ("load_busy_cycles")."""
    value = stats.get(name)
    if value is None:
        value = stats.get(name.replace(".", "_"))
    return value or 0


def counter(stats, names):
    names = names if isinstance(names, tuple) else (names,)
    value = sum(get(stats, n) for n in names)
    if names[0].endswith(".busy_cycles"):  # memory stalls are part of busy (sim/README.md)
        value -= get(stats, names[0].replace("busy", "mem_stall"))
    return value


def plot_breakdown(ax, layers):
    names = [l["name"] for l in layers]
    width = 0.27
    for u, (unit, parts) in enumerate(UNIT_PARTS.items()):
        bottom = [0.0] * len(layers)
        xs = [i + (u - 1) * width for i in range(len(layers))]
        for label, keys in parts:
            vals = [counter(l["stats"], keys) for l in layers]
            ax.bar(xs, vals, width, bottom=bottom, color=COLORS[label],
                   label=label if u == 1 else None, edgecolor="white", linewidth=0.3)
            bottom = [b + v for b, v in zip(bottom, vals)]
    # Past MAX_LABELS layers only every k-th is named, so that the labels never overlap.
    step = max(1, -(-len(layers) // MAX_LABELS))
    ticks = list(range(0, len(layers), step))
    ax.set_xticks(ticks)
    ax.set_xticklabels([names[i] for i in ticks], rotation=60, ha="right", fontsize=7)
    if step > 1:
        ax.set_xlabel("layer (one in %d named; %d layers)" % (step, len(layers)))
    ax.set_ylabel("cycles (bars: load | compute | store)")
    ax.set_title("Cycle breakdown per unit")
    ax.legend(fontsize=7)


def design_roofs(report):
    """(peak MAC/cycle, peak DRAM bytes/cycle) of the report's design."""
    layer = layers_of(report)[0]
    peak = layer.get("peak_macs_per_cycle") or report.get("peak_macs_per_cycle")
    cfg = report.get("config") if isinstance(report.get("config"), dict) else {}
    bus = (1 << cfg.get("LOG_BUS_WIDTH", 6)) / 8 / max(1, cfg.get("DRAM_CYCLES_PER_BEAT", 1))
    return peak, bus


def plot_roofline(ax, peak, bus, layers):
    """Roofs: `peak` MAC/cycle and `bus` DRAM bytes/cycle; one point per timed layer."""
    pts = [(l["macs"] / max(1, l["bytes_moved"]), l["macs"] / max(1, l["cycles"]), l["name"])
           for l in layers if l.get("cycles") and l.get("macs")]
    if not pts:
        ax.text(0.5, 0.5, "no timed layers (fsim has no cycles)", ha="center", va="center")
        return
    lo = min(p[0] for p in pts) / 4
    hi = max(max(p[0] for p in pts) * 4, peak / bus * 4)
    xs = [lo * (hi / lo) ** (i / 100) for i in range(101)]
    ax.plot(xs, [min(peak, bus * x) for x in xs], "k-", linewidth=1.5, label="roof")
    ax.scatter([p[0] for p in pts], [p[1] for p in pts], s=18, color="#2b8cbe", zorder=3,
               label="layers")
    # Many layers: only the MAX_LABELS / 3 least efficient are named (the rest would overlap).
    named = pts if len(pts) <= MAX_LABELS else sorted(pts, key=lambda p: p[1])[:MAX_LABELS // 3]
    for x, y, name in named:
        ax.annotate(name, (x, y), fontsize=6, xytext=(3, 2), textcoords="offset points")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("MACs per DRAM byte")
    ax.set_ylabel("MAC / cycle")
    ax.set_title("Roofline (compute %g MAC/cycle, bus %g B/cycle)" % (peak, bus))
    ax.legend(fontsize=7)

