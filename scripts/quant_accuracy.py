#!/usr/bin/python3
"""Per-tensor against per-channel weight scales: output cosine vs the float model and VTA cycles.

    /usr/bin/python3 scripts/quant_accuracy.py [--models resnet18,mobilenet_v2,...]
        [--input 1x3x64x64] [--calib 4] [--config pynq] [--backend cycle] [--out DIR]

Exports each torchvision model with scripts/export_torchvision.py (seeded random weights), runs
`vtasim network M.onnx --quant max` and `--quant max,per-channel` on the backend and prints a
Markdown table: the lowest and mean output cosine over the calibration inputs, the top-1
agreement, the VTA cycles of both and their ratio (with --backend fsim: no cycles).
"""
import argparse
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_MODELS = "mobilenet_v2,efficientnet_b0,resnet18,regnet_x_400mf"


def run(vtasim, model, quant, args, out):
    report = os.path.join(out, f"{os.path.basename(model)[:-5]}.{quant.replace(',', '_')}.json")
    cmd = [vtasim, "network", model, "--quant", quant, "--calib", str(args.calib), "--config",
           args.config, "--backend", args.backend, "--quiet", "--json", report]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"quant_accuracy: {' '.join(cmd)} failed:\n{p.stderr}")
    with open(report) as f:
        return json.load(f)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", default=DEFAULT_MODELS)
    ap.add_argument("--input", default="1x3x64x64")
    ap.add_argument("--calib", type=int, default=4)
    ap.add_argument("--config", default="pynq")
    ap.add_argument("--backend", default="cycle")
    ap.add_argument("--out", default="quant_accuracy")
    ap.add_argument("--vtasim", default=os.path.join(ROOT, "build", "vtasim"))
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    print("| model | cosine per-tensor (lowest / mean) | cosine per-channel (lowest / mean) | "
          "top-1 agreement | cycles per-tensor | cycles per-channel | cycle cost |")
    print("| --- | --- | --- | --- | ---: | ---: | ---: |")
    for name in args.models.split(","):
        model = os.path.join(args.out, name + ".onnx")
        if not os.path.exists(model):
            subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "export_torchvision.py"),
                            name, model, "--input", args.input], check=True,
                           stdout=subprocess.DEVNULL)
        pt = run(args.vtasim, model, "max", args, args.out)
        pc = run(args.vtasim, model, "max,per-channel", args, args.out)
        for rep, quant in ((pt, "max"), (pc, "max,per-channel")):
            bad = [l["name"] for l in rep["layers"] if l["mismatches"] or not l["checked"]]
            if bad or not rep["frontend"]["output_matches_reference"]:
                sys.exit(f"quant_accuracy: {name} --quant {quant}: VTA differs from the int8 "
                         f"reference ({', '.join(bad) or 'output'})")
        ft, fc = pt["frontend"], pc["frontend"]
        ct, cc = pt.get("cycles"), pc.get("cycles")
        cost = f"{100 * (cc / ct - 1):+.2f} %" if ct and cc else "-"
        ct, cc = (f"{c:,}" if c else "-" for c in (ct, cc))
        print(f"| {name} | {ft['cosine_similarity']:.4f} / {ft['cosine_similarity_mean']:.4f} | "
              f"{fc['cosine_similarity']:.4f} / {fc['cosine_similarity_mean']:.4f} | "
              f"{100 * ft['top1_agreement']:.0f} % / {100 * fc['top1_agreement']:.0f} % | "
              f"{ct} | {cc} | {cost} |", flush=True)


if __name__ == "__main__":
    main()
