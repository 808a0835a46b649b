"""Turns Yosys' `stat -json` of one synthesized VTA core into the project's resource report.

usage: synth_report.py STAT.json CONFIG.json DESIGN_HASH SECONDS > report.json

The report sums Yosys' cell counts into the FPGA resource classes the area model predicts
(LUT, FF, DSP, BRAM36 = RAMB36E1 + RAMB18E1 / 2, LUTRAM/SRL cells, CARRY4) and keeps every raw
count, the design's generated parameters (parsed from the vta_params.vh beside STAT.json) and
the config as given.
"""
import json
import os
import re
import sys

CLASSES = {
    "lut": re.compile(r"^LUT[1-6]$"),
    "lutram": re.compile(r"^(RAM(32|64|128|256)X1[SD]|RAM32M|RAM64M|SRL16E|SRLC32E)$"),
    "ff": re.compile(r"^FD[RSCP]E$"),
    "dsp": re.compile(r"^DSP48E1$"),
    "carry4": re.compile(r"^CARRY4$"),
}


def main():
    stat_path, config_path, design_hash, seconds = sys.argv[1:5]
    stat = json.load(open(stat_path))
    cells = stat["design"]["num_cells_by_type"] if "design" in stat else None
    if cells is None:  # a single top module
        (top,) = stat["modules"].values()
        cells = top["num_cells_by_type"]
    res = {k: sum(n for c, n in cells.items() if rx.match(c)) for k, rx in CLASSES.items()}
    res["bram36"] = cells.get("RAMB36E1", 0) + cells.get("RAMB18E1", 0) / 2
    params = {}
    with open(os.path.join(os.path.dirname(stat_path), "vta_params.vh")) as f:
        for line in f:
            m = re.match(r"`define VTA_(\w+) (-?\d+)\b", line)
            if m:
                params[m.group(1)] = int(m.group(2))
    config = json.load(open(config_path))
    label = "%dx%d i%dw%da%d bus%d uop%d inp%d wgt%d acc%d" % (
        params["BATCH"], params["BLOCK_IN"], params.get("INP_WIDTH", 8),
        params.get("WGT_WIDTH", 8), params.get("ACC_WIDTH", 32), params.get("BUS_BYTES", 0) * 8,
        params["LOG_UOP_DEPTH"], params["LOG_INP_DEPTH"], params["LOG_WGT_DEPTH"],
        params["LOG_ACC_DEPTH"])
    json.dump({"tool": "yosys synth_xilinx -family xc7 -flatten (VTA_GEMM_PACKED)",
               "design_hash": design_hash, "label": label, "synth_seconds": int(seconds),
               "resources": res, "cells": cells, "params": params, "config": config},
              sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")


main()
