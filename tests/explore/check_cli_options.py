"""The options every vtasim command shares, and the verdict line of a compiler command:
`--version`; `--quiet` accepted by conv2d (results still printed, nothing on stderr); a 1x32x32
design at 333 MHz on the zcu104 is above the clock estimate (333 / (1 + 0.1 x log2(1024 / 256))
= 277.5 MHz, by hand) and outside the area model's calibrated designs (1024 MACs > 256), and the
--json report says both. Every command accepts `--json FILE` (a JSON file that parses),
`--quiet` and `--progress` (DESIGN.md section 7).

usage: check_cli_options.py VTASIM
"""
import json
import os
import subprocess
import sys
import tempfile


def fail(msg):
    sys.exit("FAIL: " + msg)


def run(vtasim, args):
    return subprocess.run([vtasim] + args, capture_output=True, text=True, timeout=300)


def main():
    vtasim = sys.argv[1]
    p = run(vtasim, ["--version"])
    if p.returncode != 0 or not p.stdout.startswith("vtasim ") or "ISA 0.0.2" not in p.stdout:
        fail("--version: exit %d, %r" % (p.returncode, p.stdout))
    p = run(vtasim, ["conv2d", "--backend", "fsim", "--quiet"])
    if p.returncode != 0 or "check passed" not in p.stdout or p.stderr:
        fail("conv2d --quiet: exit %d, stdout %r, stderr %r" % (p.returncode, p.stdout[-200:],
                                                                p.stderr))
    with tempfile.TemporaryDirectory() as tmp:
        report = os.path.join(tmp, "r.json")
        p = run(vtasim, ["conv2d", "--backend", "fsim", "--config", "zcu104", "--set",
                         "LOG_BLOCK=5", "--set", "CLOCK_MHZ=333", "--json", report])
        line = "333 MHz above the xczu7ev's estimated 278 MHz"
        if p.returncode != 0 or "does not fit the xczu7ev" not in p.stdout or line not in p.stdout:
            fail("1x32x32 at 333 MHz on the zcu104: %r" % p.stdout[-400:])
        with open(report) as f:
            area = json.load(f)["area"]
    v = area["verdict"]
    if area["fits"] or v["clock_ok"] or abs(v["clock_estimate_mhz"] - 277.5) > 1e-6:
        fail("--json verdict: %s" % v)
    if area["extrapolated"] != []:  # 1x32x32 is inside the calibration (1x8 to 1x64)
        fail("--json area extrapolation: %s" % area["extrapolated"])
    print("--version, conv2d --quiet, and a design above its clock estimate: as expected")
    check_every_command(vtasim)


def check_every_command(vtasim):
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    with tempfile.TemporaryDirectory() as tmp:
        def path(name):
            return os.path.join(tmp, name)
        spec = path("s.json")
        with open(spec, "w") as f:
            json.dump({"base": "pynq", "axes": {"LOG_BUS_WIDTH": [6, 7]},
                       "workloads": ["matmul:16x16x16"], "backend": "cycle"}, f)
        prog = path("p.vtaprog")
        setup = run(vtasim, ["matmul", "--m", "16", "--k", "16", "--n", "16", "--backend", "fsim",
                             "--dump-program", prog])
        if setup.returncode != 0:
            fail("matmul --dump-program: %s" % setup.stderr)
        commands = {
            "conv2d": ["conv2d", "--backend", "fsim"],
            "matmul": ["matmul", "--m", "16", "--k", "16", "--n", "16", "--backend", "fsim"],
            "network": ["network", os.path.join(src, "compiler", "networks", "tiny_resnet.json"),
                        "--backend", "fsim"],
            "demo": ["demo", "--backend", "fsim"],
            "run": ["run", prog, "--backend", "fsim"],
            "disasm": ["disasm", prog],
            "sweep": ["sweep", spec, "--db", path("s.sqlite")],
            "sweep export": ["sweep", "export", path("s.sqlite"), "--csv", path("s.csv")],
            "sweep merge": ["sweep", "merge", path("m.sqlite"), path("s.sqlite")],
            "sweep report": ["sweep", "report", path("s.sqlite"), "--out", path("rep")],
        }
        for name, args in commands.items():  # in order: the sweep's database comes first
            for extra in (["--quiet"], ["--progress"]):
                p = run(vtasim, args + extra)
                if p.returncode != 0:
                    fail("%s %s: exit %d: %s" % (name, extra[0], p.returncode, p.stderr[-300:]))
            out = path(name.replace(" ", "_") + ".json")
            p = run(vtasim, args + ["--json", out])
            if p.returncode != 0 or not os.path.exists(out):
                fail("%s --json: exit %d: %s" % (name, p.returncode, p.stderr[-300:]))
            with open(out) as f:
                if not json.load(f):
                    fail("%s --json wrote an empty document" % name)
        with open(path("disasm.json")) as f:
            listing = json.load(f)
        if listing["instruction_count"] != len(listing["instructions"]) or \
                not listing["instructions"][-1].startswith("FINISH"):
            fail("disasm --json: %s" % str(listing)[:300])
    print("every command accepts --json FILE, --quiet and --progress")


main()
