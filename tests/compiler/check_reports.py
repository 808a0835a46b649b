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
        ("matmul_dram", ["matmul", "--m", "4", "--k", "32", "--n", "16", "--backend", "cycle",
                         "--config", src + "/configs/pynq_ddr.json"]),
        ("network", ["network", src + "/compiler/networks/tiny_resnet.json", "--backend", "fsim",
                     "--quiet"]),
        ("demo", ["demo", "--backend", "cycle", "--save-image", image]),
        ("run", ["run", image, "--backend", "fsim"]),
    ]
    for name, args in cases:
        out = "%s/report_%s.json" % (work, name)
        run(vtasim, args + ["--json", out])
        with open(out) as f:
            validator.validate(json.load(f))
        print("%s: report valid" % name)
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
