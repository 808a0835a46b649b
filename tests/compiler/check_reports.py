"""Validates the --json report of every vtasim command against compiler/report.schema.json
(python3-jsonschema, Debian), on an untimed and a timed backend, and checks that a network whose
second layer fails still writes its report (the first layer, the failure named) and exits 1.

usage: check_reports.py VTASIM SOURCE_DIR WORKDIR
"""
import json
import subprocess
import sys

import jsonschema


def run(vtasim, args, status=0):
    p = subprocess.run([vtasim] + args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       text=True)
    if p.returncode != status:
        sys.exit("FAIL: vtasim %s exited %d (expected %d): %s"
                 % (" ".join(args), p.returncode, status, p.stderr))
    return p.stderr


def fnv1a_12(text):
    h = 0xcbf29ce484222325
    for b in text.encode():
        h = ((h ^ b) * 0x100000001b3) % (1 << 64)
    return "%016x" % h


def check_config_identity(work):
    """The config keys, hash, label and time at the clock of the reports (configs/README.md)."""
    with open(work + "/report_matmul_set.json") as f:
        rep = json.load(f)
    cfg = rep["config"]
    if cfg["LOG_BLOCK"] != 5 or cfg["CLOCK_MHZ"] != 250 or cfg["LOG_BUS_WIDTH"] != 7:
        sys.exit("FAIL: resolved config %r" % cfg)
    if rep["config_label"] != "ultra96+CLOCK_MHZ=250,LOG_BLOCK=5":
        sys.exit("FAIL: label %r" % rep["config_label"])
    canonical = json.dumps(cfg, sort_keys=True, separators=(",", ":"))
    if rep["config_hash"] != fnv1a_12(canonical)[:12]:
        sys.exit("FAIL: hash %r of %s" % (rep["config_hash"], canonical))
    if abs(rep["time_s"] - rep["cycles"] / 250e6) > 1e-15:
        sys.exit("FAIL: time_s %r for %d cycles at 250 MHz" % (rep["time_s"], rep["cycles"]))
    with open(work + "/report_matmul.json") as f:
        plain = json.load(f)
    if plain["config_label"] != "pynq" or plain["config_hash"] == rep["config_hash"]:
        sys.exit("FAIL: pynq report label / hash %r %r" % (plain["config_label"],
                                                          plain["config_hash"]))
    print("config identity: keys, FNV-1a hash, label and time at the clock")


def main():
    vtasim, src, work = sys.argv[1:4]
    with open(src + "/compiler/report.schema.json") as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    image = work + "/reports_demo.vtaimg"
    cases = [
        ("conv2d", ["conv2d", "--layer", "resnet18.C8", "--backend", "fsim", "--schedule",
                    src + "/compiler/schedules/tutorial_c8.json"]),
        ("conv2d_tune", ["conv2d", "--c", "16", "--h", "8", "--w", "8", "--k", "16", "--tune", "2",
                         "--backend", "cycle"]),
        ("matmul", ["matmul", "--m", "4", "--k", "32", "--n", "16", "--backend", "cycle"]),
        ("matmul_fixed", ["matmul", "--m", "4", "--k", "32", "--n", "16", "--backend", "cycle",
                          "--config", src + "/configs/pynq_fixed.json"]),
        ("matmul_dram_set", ["matmul", "--m", "4", "--k", "32", "--n", "16", "--backend", "cycle",
                             "--config", "zcu104_fixed", "--set", "MEMORY_MODEL=dram",
                             "--set", "DRAM_SCHEDULER=fcfs"]),
        ("matmul_set", ["matmul", "--m", "4", "--k", "32", "--n", "16", "--backend", "cycle",
                        "--config", "ultra96", "--set", "LOG_BLOCK=5", "--set", "CLOCK_MHZ=250"]),
        ("network", ["network", src + "/compiler/networks/tiny_resnet.json", "--backend", "fsim",
                     "--quiet"]),
        # A system of two cores split by the compiler: the multicore key, the summed area.
        ("network_cores", ["network", src + "/compiler/networks/tiny_resnet.json", "--backend",
                           "cycle", "--set", "CORES=2", "--quiet"]),
        ("demo", ["demo", "--backend", "cycle", "--save-image", image]),
        ("run", ["run", image, "--backend", "fsim"]),
    ]
    for name, args in cases:
        out = "%s/report_%s.json" % (work, name)
        run(vtasim, args + ["--json", out])
        with open(out) as f:
            validator.validate(json.load(f))
        print("%s: report valid" % name)
    check_config_identity(work)
    # A failing layer: the report so far is written, the failure named, exit status 1.
    out = work + "/report_failure.json"
    err = run(vtasim, ["network", src + "/tests/compiler/data/net_second_layer_fails.json",
                       "--backend", "cycle", "--quiet", "--json", out], status=1)
    with open(out) as f:
        rep = json.load(f)
    validator.validate(rep)
    if [l["name"] for l in rep["layers"]] != ["first"] or rep["failure"]["layer"] != "second":
        sys.exit("FAIL: failure report %s" % json.dumps(rep)[:400])
    if "accumulator tile needs" not in rep["failure"]["error"] or "'second'" not in err:
        sys.exit("FAIL: failure not named: %r / %r" % (rep["failure"]["error"], err))
    print("network failure: report with 1 layer and the failure, exit 1")


main()
