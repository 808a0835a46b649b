#!/usr/bin/python3
"""Multi-core scaling table: ResNet-18 and ResNet-50 on 1, 2 and 4 cores of the pynq and zcu104
designs (docs/multicore.md, "Compiler"), on the cycle backend.

    /usr/bin/python3 scripts/multicore_scaling.py [--hw 64] [--batch 1] [--out DIR]
        [--vtasim build/vtasim] [--configs pynq,zcu104] [--cores 1,2,4] [--nets resnet18,resnet50]
        [--set KEY=VALUE ...]   (config keys of the points of several cores)

ResNet-18 is the built-in network (its JSON from `vtasim network resnet18 --print-json`) at an
input of HW x HW; ResNet-50 is torchvision's with seeded weights exported to ONNX at the same
size (scripts/export_torchvision.py). Each point runs `vtasim network NET --config CFG --set
CORES=N --backend cycle` (1 core: the config as it is, no CORES) with the split the cost model
chooses (--split auto), every layer checked against the reference. Per point:

  cycles       the VTA layers' cycles (a run of several cores: first start to last FINISH)
  speed-up     single-core cycles / cycles
  DRAM util    bytes moved / (cycles x peak bytes per cycle); peak = min(2 x the interconnect's
               (or, on one core, the bus's) bytes per cycle, one per channel, read and write,
               the DRAM's bytes per core cycle: DRAM_BUS_BITS / 8 x 2 transfers per tCK x
               DRAM_CHANNELS / CLOCK)
  read util    input, weight and micro-op bytes / (cycles x the read channel's bytes per cycle)
  contention   DRAM contention cycles of each core (cycles its bursts waited behind others')
  bound        max(compute bound = single-core cycles / N, memory bound = the largest of
               (reads + writes) / peak, reads / channel, writes / channel, and the busiest
               core's reads / its bus's bytes per cycle summed over the layers), where reads are
               the input, weight and micro-op bytes (the accumulator loads, counted as 4-byte
               elements by the upstream rules, are left out: a lower bound of the traffic)
  x bound      cycles / bound (>= 1 unless the model is wrong)
  LUT / DSP48 / BRAM36, fits
               the design's area model: every core's plus the interconnect's, and whether the
               sum fits the config's part (docs/multicore.md, "Exploration")
  energy       the energy model of the run: every core's from its own counters over the
               system's cycles, plus the interconnect's per byte

Prints a Markdown table and writes it, with the reports, to DIR (default build/multicore_scaling).
"""
import argparse
import json
import os
import subprocess
import sys


def run(cmd, **kw):
    p = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if p.returncode != 0:
        sys.exit("failed: {}\n{}{}".format(" ".join(cmd), p.stdout[-2000:], p.stderr[-2000:]))
    return p.stdout


def resnet18_json(vtasim, hw, batch, out):
    net = json.loads(run([vtasim, "network", "resnet18", "--print-json", "--batch", str(batch)]))
    net["input"]["h"] = net["input"]["w"] = hw
    net["name"] = "resnet18_{}".format(hw)
    with open(out, "w") as f:
        json.dump(net, f)
    return out


def resnet50_onnx(hw, batch, out):
    if not os.path.exists(out):
        here = os.path.dirname(os.path.abspath(__file__))
        run(["/usr/bin/python3", os.path.join(here, "export_torchvision.py"), "resnet50", out,
             "--input", "{}x3x{}x{}".format(batch, hw, hw)])
    return out


def channel_bytes_per_cycle(cfg, cores):
    bus = 2 ** cfg["LOG_BUS_WIDTH"] / 8
    return (cfg.get("INTERCONNECT_BYTES_PER_CYCLE") or bus) if cores > 1 else bus


def peak_bytes_per_cycle(cfg, cores):
    peak = 2 * channel_bytes_per_cycle(cfg, cores)
    if cfg.get("MEMORY_MODEL") == "dram":
        dram_mhz = 1e6 / cfg["DRAM_TCK_PS"] * 2 * cfg.get("DRAM_CHANNELS", 1)
        peak = min(peak, cfg["DRAM_BUS_BITS"] / 8 * dram_mhz / cfg["CLOCK_MHZ"])
    return peak


def point(vtasim, net, config, cores, out_dir, sets, reuse):
    tag = "{}_{}_{}".format(os.path.basename(net).split(".")[0], config, cores)
    report = os.path.join(out_dir, tag + ".json")
    cmd = [vtasim, "network", net, "--config", config, "--backend", "cycle", "--quiet",
           "--json", report]
    if cores > 1:
        cmd += ["--set", "CORES={}".format(cores)]
        for kv in sets:
            cmd += ["--set", kv]
    if not (reuse and os.path.exists(report)):
        run(cmd)
    with open(report) as f:
        j = json.load(f)
    s = j["summary"]
    mc = j.get("multicore", {})
    writes = sum(l["stats"]["out_store_nbytes"] for l in j["layers"])
    # Bytes the read channel carries at least: inputs, weights and micro-ops as counted (the
    # accumulator loads are counted as 4-byte elements, more than an ACC_8BIT load moves).
    reads = sum(l["stats"][k] for l in j["layers"]
                for k in ("inp_load_nbytes", "wgt_load_nbytes", "uop_load_nbytes"))
    # Each core reads over its own bus: per layer (one run of all cores) its busiest core's.
    read_keys = ("inp_load_nbytes", "wgt_load_nbytes", "uop_load_nbytes")
    core_reads = 0
    for l in j["layers"]:
        st = l["stats"]
        per_core = [sum(st.get("core{}.{}".format(k, key), 0) for key in read_keys)
                    for k in range(1, cores)]
        per_core.append(sum(st[key] for key in read_keys) - sum(per_core))  # core 0's
        core_reads += max(per_core)
    return {
        "cycles": s["cycles"],
        "bytes": s["bytes_moved"],
        "reads": reads,
        "core_reads": core_reads,
        "bus": 2 ** j["config"]["LOG_BUS_WIDTH"] / 8,
        "writes": writes,
        "channel": channel_bytes_per_cycle(j["config"], cores),
        "peak": peak_bytes_per_cycle(j["config"], cores),
        "split": mc.get("split", "-"),
        "contention": [c["dram_contention_cycles"] for c in mc.get("per_core", [])],
        "check": s.get("check"),
        "area": j["area"],
        "energy_j": j["energy"]["total_j"],
    }


def area_cells(area):
    """LUT / DSP48 / BRAM36 of the design (every core plus the interconnect) and its fit."""
    fits = "yes" if area.get("fits") else "no ({} {:.0%})".format(
        area.get("binding", "?"), area.get("utilization", {}).get(area.get("binding"), 0))
    return "{:.1f}K / {:.0f} / {:.1f}".format(area["lut"] / 1e3, area["dsp"], area["bram36"]), fits


def table(rows):
    head = ("| network | config | cores | split | cycles | speed-up | DRAM util | read channel "
            "util | contention per core (cycles) | bound (compute / memory) | x bound | "
            "LUT / DSP48 / BRAM36 | fits the part | energy |\n"
            "| --- | --- | ---: | --- | ---: | ---: | ---: | ---: | --- | --- | ---: | ---: | --- "
            "| ---: |\n")
    lines = []
    for r in rows:
        lines.append("| {net} | {config} | {cores} | {split} | {cycles:,} | {speedup:.2f} | "
                     "{util:.1%} | {read_util:.1%} | {contention} | {bound:,.0f} ({compute:,.0f} / {dram:,.0f}) | "
                     "{over:.2f} | {area} | {fits} | {energy_mj:.2f} mJ |".format(**r))
    return head + "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--vtasim", default="build/vtasim")
    ap.add_argument("--hw", type=int, default=64)
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--out", default="build/multicore_scaling")
    ap.add_argument("--configs", default="pynq,zcu104")
    ap.add_argument("--cores", default="1,2,4")
    ap.add_argument("--nets", default="resnet18,resnet50")
    ap.add_argument("--reuse", action="store_true",
                    help="read the reports already in --out instead of running again")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="config key of the points of several cores (e.g. "
                    "INTERCONNECT_BYTES_PER_CYCLE=32); repeatable")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    nets = []
    for n in a.nets.split(","):
        if n == "resnet18":
            nets.append(resnet18_json(a.vtasim, a.hw, a.batch,
                                      os.path.join(a.out, "resnet18_{}.json".format(a.hw))))
        elif n == "resnet50":
            nets.append(resnet50_onnx(a.hw, a.batch,
                                      os.path.join(a.out, "resnet50_{}.onnx".format(a.hw))))
        else:
            sys.exit("unknown network '{}' (resnet18, resnet50)".format(n))
    rows = []
    for net in nets:
        for config in a.configs.split(","):
            single = None
            for cores in [int(c) for c in a.cores.split(",")]:
                p = point(a.vtasim, net, config, cores, a.out, a.set, a.reuse)
                single = single or p["cycles"]
                compute = single / cores
                # The read and the write channel each carry at most `channel` bytes a cycle.
                dram = max((p["reads"] + p["writes"]) / p["peak"], p["reads"] / p["channel"],
                           p["writes"] / p["channel"], p["core_reads"] / p["bus"])
                bound = max(compute, dram)
                rows.append({
                    "net": os.path.basename(net).split(".")[0], "config": config, "cores": cores,
                    "split": p["split"], "cycles": p["cycles"], "speedup": single / p["cycles"],
                    "util": p["bytes"] / (p["cycles"] * p["peak"]),
                    "read_util": p["reads"] / (p["cycles"] * p["channel"]),
                    "contention": " / ".join("{:,.0f}".format(c) for c in p["contention"]) or "-",
                    "bound": bound, "compute": compute, "dram": dram,
                    "over": p["cycles"] / bound})
                rows[-1]["area"], rows[-1]["fits"] = area_cells(p["area"])
                rows[-1]["energy_mj"] = p["energy_j"] * 1e3
                print(rows[-1], file=sys.stderr)
    text = table(rows)
    with open(os.path.join(a.out, "scaling.md"), "w") as f:
        f.write(text)
    print(text)


if __name__ == "__main__":
    main()
