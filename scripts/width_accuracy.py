#!/usr/bin/python3
"""Networks at every element width: VTA cycles and accuracy against the float model per config.

    /usr/bin/python3 scripts/width_accuracy.py [--models resnet18:1x3x64x64,vit_b_16:1x3x32x32]
        [--configs pynq_int4,pynq_int4_acc32,pynq,pynq_int16,zcu104_int4,...] [--calib 4]
        [--backend cycle] [--out DIR]
    /usr/bin/python3 scripts/width_accuracy.py --builtin resnet18:1x3x64x64
        [--configs pynq,pynq_int16,zcu104,zcu104_int16]

Exports each torchvision model with scripts/export_torchvision.py (seeded random weights) at the
given input, runs `vtasim network M.onnx --config C --calib N` on every config (the quantizer
takes the config's input and weight widths, docs/element_widths.md; zcu104_int4, zcu104_int4_acc32
and zcu104_int16 are zcu104 with the width keys of the pynq presets, see WIDTH_SETS) and prints a Markdown table:
the widths, the VTA cycles, the bytes moved, the end-to-end time (VTA + host), the lowest and mean
output cosine against the float model over the calibration inputs, the top-1 agreement, and the
design's area (LUT, DSP48, BRAM36 of the area model; whether it fits its board's part) and the
run's energy (the energy model over every VTA layer's counters). Every
run's VTA output must equal the network's reference at its widths (the script stops otherwise).
A config whose widths networks do not run at gives its error in the table. Long-running (minutes
per model and config on the cycle backend); not part of ctest.

int16 configs (pynq_int16, zcu104_int16) quantize under the fan-in rule (docs/element_widths.md):
each layer's inputs and weights keep to the bits that hold its sums in the 32-bit accumulator.

--builtin runs the built-in network (`vtasim network --network resnet18 --print-json`, its
input resized) with its seeded random weights and input at every config instead: the cycles,
bytes and VTA time of each width, every VTA layer checked against the reference at its widths,
no accuracy (no float model).
"""
import argparse
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_MODELS = "resnet18:1x3x64x64,vit_b_16:1x3x32x32"
DEFAULT_CONFIGS = ("pynq_int4,pynq_int4_acc32,pynq,pynq_int16,"
                   "zcu104_int4,zcu104_int4_acc32,zcu104,zcu104_int16")
# zcu104 at the width keys of pynq_int4, pynq_int4_acc32 and pynq_int16 (--set over the preset;
# not presets of their own: the RTL of a 64-bit int4 tile on the 128-bit bus does not lint yet).
WIDTH_SETS = {
    "int4": ["LOG_INP_WIDTH=2", "LOG_WGT_WIDTH=2", "LOG_ACC_WIDTH=4", "LOG_INP_BUFF_SIZE=14",
             "LOG_WGT_BUFF_SIZE=17", "LOG_ACC_BUFF_SIZE=16"],
    "int4_acc32": ["LOG_INP_WIDTH=2", "LOG_WGT_WIDTH=2", "LOG_INP_BUFF_SIZE=14",
                   "LOG_WGT_BUFF_SIZE=17"],
    "int16": ["LOG_INP_WIDTH=4", "LOG_WGT_WIDTH=4", "LOG_INP_BUFF_SIZE=16",
              "LOG_WGT_BUFF_SIZE=19"],
}

# The lanes of a config by its name's suffix (pynq_int16, zcu104_int16, ...; none: int8).
LANES = {"": "int8 x int8 -> int32", "int4": "int4 x int4 -> int16",
         "int4_acc32": "int4 x int4 -> int32", "int16": "int16 x int16 -> int32",
         "int32": "int32 x int32 -> int32"}


# The design's area and the run's energy (the report's "area" and "energy": explore/'s models).
DESIGN_HEADER = " area LUT / DSP / BRAM36 | fits the part | energy (VTA) |"
DESIGN_RULE = " ---: | --- | ---: |"


def design_cells(rep):
    """The added cells of a row: area LUT / DSP48 / BRAM36, whether it fits its board's part
    (the binding resource's use when not), the energy of everything the run counted in mJ."""
    a = rep["area"]
    fits = "-"
    if "device" in a:
        use = 100 * a["utilization"][a["binding"]]
        fits = f"yes ({a['device']})" if a["fits"] else f"no ({a['binding']} {use:.0f}%)"
    return (f" {a['lut'] / 1e3:.1f}K / {a['dsp']:.0f} / {a['bram36']:.1f} | {fits} | "
            f"{1e3 * rep['energy']['total_j']:.2f} mJ |")


def config_args(config):
    """--config (and --set) of a name: a preset, or zcu104_<widths> (WIDTH_SETS)."""
    base, _, widths = config.partition("_")
    if base == "zcu104" and widths in WIDTH_SETS:
        return ["--config", "zcu104"] + [a for kv in WIDTH_SETS[widths] for a in ("--set", kv)]
    return ["--config", config]


def run(args, model, config):
    """The report of one run, or the error line of a refused one."""
    report = os.path.join(args.out, f"{os.path.basename(model)[:-5]}.{config}.json")
    cmd = [args.vtasim, "network", model, *config_args(config), "--calib", str(args.calib),
           "--backend", args.backend, "--quiet", "--json", report]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        lines = [l for l in p.stderr.splitlines() if l.startswith("vtasim: error:")]
        if not lines:
            sys.exit(f"width_accuracy: {' '.join(cmd)} failed:\n{p.stderr}")
        return lines[-1][len("vtasim: error: "):]
    with open(report) as f:
        return json.load(f)


def row(name, config, rep):
    if isinstance(rep, str):
        return f"| {name} | `{config}` | refused: {rep} ||||||||"
    bad = [l["name"] for l in rep["layers"] if l["mismatches"] or not l["checked"]]
    fe = rep["frontend"]
    if bad or not fe["output_matches_reference"]:
        sys.exit(f"width_accuracy: {name} on {config}: VTA differs from the reference at its "
                 f"widths ({', '.join(bad) or 'output'})")
    s = rep["summary"]
    widths = fe.get("widths", "int8 x int8 -> int32")
    cycles = s.get("cycles")
    e2e = s.get("end_to_end_us")
    return (f"| {name} | `{config}` | {widths} | {cycles if cycles is not None else '-'} | "
            f"{s['bytes_moved'] / 1e6:.2f} MB | "
            f"{f'{e2e:.0f} us' if e2e is not None else '-'} | "
            f"{fe['cosine_similarity']:.5f} / {fe['cosine_similarity_mean']:.5f} | "
            f"{100 * fe['top1_agreement']:.0f}% |" + design_cells(rep))


def builtin_row(args, spec, config):
    """The row of the built-in network `spec` (name:NxCxHxW) at `config`, random weights."""
    name, shape = spec.split(":")
    n, c, h, w = (int(v) for v in shape.split("x"))
    net = json.loads(subprocess.run([args.vtasim, "network", "--network", name, "--print-json"],
                                    check=True, capture_output=True, text=True).stdout)
    net["name"] = f"{name}_{h}x{w}"
    net["input"].update(n=n, c=c, h=h, w=w)
    path = os.path.join(args.out, f"{net['name']}.json")
    with open(path, "w") as f:
        json.dump(net, f)
    report = os.path.join(args.out, f"{net['name']}.{config}.json")
    cmd = [args.vtasim, "network", "--network", path, *config_args(config), "--backend",
           args.backend, "--quiet", "--json", report]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        return (f"| {name} {shape} | `{config}` | refused: {p.stderr.strip().splitlines()[-1]} "
                "||||||||")
    with open(report) as f:
        rep = json.load(f)
    bad = [l["name"] for l in rep["layers"] if l["mismatches"] or not l["checked"]]
    if bad:
        sys.exit(f"width_accuracy: {name} on {config}: VTA differs from the reference at its "
                 f"widths ({', '.join(bad)})")
    s = rep["summary"]
    widths = LANES.get(config.partition("_")[2], "")
    return (f"| {name} {shape} (random weights) | `{config}` | {widths} | "
            f"{s['cycles'] / 1e6:.2f}M | {s['bytes_moved'] / 1e6:.2f} MB | "
            f"{1e6 * rep['time_s']:.0f} us (VTA) | - | - |" + design_cells(rep))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", default=DEFAULT_MODELS)
    ap.add_argument("--configs", default=DEFAULT_CONFIGS)
    ap.add_argument("--calib", type=int, default=4)
    ap.add_argument("--backend", default="cycle")
    ap.add_argument("--out", default="width_accuracy")
    ap.add_argument("--vtasim", default=os.path.join(ROOT, "build", "vtasim"))
    ap.add_argument("--builtin", help="NAME:NxCxHxW: the built-in network, random weights")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    if args.builtin:
        print("| model | config | inp x wgt -> acc | VTA cycles | bytes moved | VTA time | "
              "cosine | top-1 |" + DESIGN_HEADER)
        print("| --- | --- | --- | ---: | ---: | ---: | --- | ---: |" + DESIGN_RULE)
        for config in args.configs.split(","):
            print(builtin_row(args, args.builtin, config), flush=True)
        return
    print("| model | config | inp x wgt -> acc | VTA cycles | bytes moved | end to end | "
          "cosine (lowest / mean) | top-1 agreement |" + DESIGN_HEADER)
    print("| --- | --- | --- | ---: | ---: | ---: | --- | ---: |" + DESIGN_RULE)
    for spec in args.models.split(","):
        name, shape = spec.split(":")
        model = os.path.join(args.out, f"{name}_{shape.split('x')[-1]}.onnx")
        if not os.path.exists(model):
            subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "export_torchvision.py"),
                            name, model, "--input", shape], check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for config in args.configs.split(","):
            print(row(f"{name} {shape}", config, run(args, model, config)), flush=True)


if __name__ == "__main__":
    main()
