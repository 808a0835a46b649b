"""Draws the cycle breakdown and the roofline of one `vtasim conv2d|matmul|network` run from its
JSON report (the report `--json` writes; `--plot FILE.png` calls this script).

usage: run_plot.py REPORT.json OUT.png

Left: for each layer, the compute unit's cycles stacked by what it did (busy, waiting for a
token from load or store, waiting for room in a full token queue, stalled on memory, idle), and
beside it the same for the load and store units. Right: the roofline: MAC/cycle against MACs per
DRAM byte, with the design's compute roof (peak MAC/cycle) and bandwidth roof (bus bytes per
cycle); each layer is a point.
"""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from plot_parts import design_roofs, layers_of, plot_breakdown, plot_roofline  # noqa: E402


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: run_plot.py REPORT.json OUT.png")
    with open(sys.argv[1]) as f:
        report = json.load(f)
    layers = layers_of(report)
    fig, (a, b) = plt.subplots(1, 2, figsize=(13, 5))
    plot_breakdown(a, layers)
    plot_roofline(b, *design_roofs(report), layers)
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=110)


main()
