"""A small design sweep: ResNet-18 C8 on the cycle backend over block size and bus width, plotted
as cycles against peak MACs per cycle (matplotlib).

    PYTHONPATH=build/python /usr/bin/python3 examples/design_sweep.py [OUT.png] [quick]
"""
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import vtasim  # noqa: E402

out = sys.argv[1] if len(sys.argv) > 1 else "design_sweep.png"
quick = len(sys.argv) > 2 and sys.argv[2] == "quick"
layer = "resnet18.C11" if quick else "resnet18.C8"
rows = []
for log_block in (4, 5, 6):
    for log_bus in (6, 7):
        cfg = vtasim.Config("pynq", LOG_BLOCK=log_block, LOG_BUS_WIDTH=log_bus)
        r = vtasim.conv2d(cfg, layer=layer, backend="cycle")
        rows.append((log_block, log_bus, cfg.derived["peak_macs_per_cycle"], r["cycles"]))
        print(f"LOG_BLOCK={log_block} LOG_BUS_WIDTH={log_bus}: {r['cycles']} cycles")

fig, ax = plt.subplots(figsize=(6, 4))
for log_bus in (6, 7):
    pts = [(peak, cyc) for b, bus, peak, cyc in rows if bus == log_bus]
    ax.plot([p for p, _ in pts], [c for _, c in pts], marker="o",
            label=f"{2 ** log_bus}-bit bus")
ax.set_xscale("log", base=2)
ax.set_yscale("log")
ax.set_xlabel("peak MACs per cycle")
ax.set_ylabel(f"{layer} cycles")
ax.legend()
fig.tight_layout()
fig.savefig(out)
print(f"wrote {out}")
