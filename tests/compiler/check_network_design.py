"""A network report's design figures: the area is the config's area model (the same figures a
single layer's report gives for that config), and the energy is the sum over the network's VTA
layers of the energy each layer's counters imply, recomputed here by hand from the energy
model's per-event figures (explore/README.md): a MAC, an ALU lane op, SRAM bytes (per byte
scaled by the square root of the array's size over 8 KiB), DRAM bytes (instructions 16 bytes
each) and static power over the cycles at the clock.

usage: check_network_design.py VTASIM WORKDIR
"""
import json
import math
import os
import subprocess
import sys

CONFIG = "pynq_int4"  # int4 x int4 -> int16: 8-byte inp tiles, 128-byte wgt, 32-byte acc
# Two VTA layers: a 3x3 conv and a 1x1 conv with a 16 -> 32 channel change.
NETWORK = {
    "name": "two", "seed": 7, "input": {"name": "data", "n": 1, "c": 16, "h": 8, "w": 8},
    "layers": [
        {"name": "a", "op": "conv2d", "input": "data", "k": 16, "kernel": 3, "pad": 1,
         "epilogue": {"shift": 3, "relu": True, "clip_hi": 7}},
        {"name": "b", "op": "conv2d", "input": "a", "k": 32, "kernel": 1,
         "epilogue": {"shift": 2, "clip_lo": -8, "clip_hi": 7}}]}


def fail(msg):
    sys.exit("FAIL: " + msg)


def vtasim(exe, args):
    p = subprocess.run([exe] + args + ["--quiet"], capture_output=True, text=True)
    if p.returncode != 0:
        fail("vtasim %s: %s" % (" ".join(args), p.stderr))
    return p.stdout


# The config's geometry, written out for pynq_int4 (configs/pynq_int4.json: pynq's 1x16 array,
# int4 lanes, int16 accumulators, buffer bytes 2^14 / 2^17 / 2^16, uop 2^15, 100 MHz).
BATCH, BLOCK = 1, 16
INP_TILE, WGT_TILE, ACC_TILE, OUT_TILE, UOP_BYTES = 8, 128, 32, 8, 4
SRAM_BYTES = {"uop": 2 ** 15, "inp": 2 ** 14, "wgt": 2 ** 17, "acc": 2 ** 16,
              "out": 2048 * OUT_TILE}  # the out buffer: acc depth (2048) x out tile
CLOCK_HZ = 100e6


def layer_energy(s, p):
    """Joules of one layer's counters `s` (its report's "stats") with per-event figures `p`."""
    g, a = s["gemm_counter"], s["alu_counter"]
    pj = g * BATCH * BLOCK * BLOCK * p["mac_pj"] + a * BATCH * BLOCK * p["alu_op_pj"]
    sram = {  # bytes read + written per SRAM
        "uop": (g + a) * UOP_BYTES + s["uop_load_nbytes"],
        "inp": g * INP_TILE + s["inp_load_nbytes"],
        "wgt": g * WGT_TILE + s["wgt_load_nbytes"],
        "acc": (g + 2 * a) * ACC_TILE + s["acc_load_nbytes"] + (g + a) * ACC_TILE,
        "out": s["out_store_nbytes"] + (g + a) * OUT_TILE,
    }
    for name, n in sram.items():
        pj += n * p["sram_pj_per_byte_8kib"] * math.sqrt(SRAM_BYTES[name] / 8192)
    insns = sum(s["insn_count"].values()) if isinstance(s["insn_count"], dict) \
        else sum(s["insn_count"])
    dram = (s["inp_load_nbytes"] + s["wgt_load_nbytes"] + s["acc_load_nbytes"] +
            s["uop_load_nbytes"] + 16 * insns + s["out_store_nbytes"])
    pj += dram * p["dram_pj_per_byte"]
    return pj * 1e-12 + p["static_mw"] * 1e-3 * s["cycles"] / CLOCK_HZ


def main():
    exe, work = sys.argv[1:3]
    os.makedirs(work, exist_ok=True)
    net_path = os.path.join(work, "two_layers.json")
    with open(net_path, "w") as f:
        json.dump(NETWORK, f)
    net_rep = os.path.join(work, "two_layers.report.json")
    vtasim(exe, ["network", net_path, "--config", CONFIG, "--backend", "cycle", "--json", net_rep])
    layer_rep = os.path.join(work, "two_layers.matmul.json")
    vtasim(exe, ["matmul", "--m", "16", "--k", "16", "--n", "16", "--config", CONFIG,
                 "--backend", "fsim", "--json", layer_rep])
    with open(net_rep) as f:
        rep = json.load(f)
    with open(layer_rep) as f:
        single = json.load(f)

    # Area: the config's area model, whatever ran on it.
    if rep["area"] != single["area"]:
        fail("network area %r != the config's area %r" % (rep["area"], single["area"]))
    for key in ("lut", "ff", "dsp", "bram36", "device", "fits"):
        if key not in rep["area"]:
            fail("network area has no %r" % key)
    if rep["area"]["device"] != "xc7z020" or rep["area"]["fits"] is not True:
        fail("pynq_int4 should fit the xc7z020: %r" % rep["area"])
    print("area: %.0f LUT, %.0f DSP48, %.1f BRAM36, fits the %s" % (
        rep["area"]["lut"], rep["area"]["dsp"], rep["area"]["bram36"], rep["area"]["device"]))

    # Energy: the sum of the two layers' energies, each by hand from its counters.
    layers = rep["layers"]
    if [l["name"] for l in layers] != ["a", "b"]:
        fail("VTA layers %r" % [l["name"] for l in layers])
    params = rep["energy"]["params"]
    want = 0.0
    for l in layers:
        e = layer_energy(l["stats"], params)
        if not math.isclose(l["energy_j"], e, rel_tol=1e-9):
            fail("layer %s energy %r, by hand %r" % (l["name"], l["energy_j"], e))
        want += e
    got = rep["energy"]["total_j"]
    if not math.isclose(got, want, rel_tol=1e-9):
        fail("network energy %r J, by hand %r J" % (got, want))
    if not all(l["stats"]["gemm_counter"] > 0 for l in layers) or got <= 0:
        fail("a layer ran no GEMM")
    print("energy: %.6f mJ = layer a %.6f + layer b %.6f (by hand from their counters)" % (
        1e3 * got, 1e3 * layers[0]["energy_j"], 1e3 * layers[1]["energy_j"]))


if __name__ == "__main__":
    main()
