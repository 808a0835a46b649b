"""`--plot FILE.png` on conv2d, matmul and network draws a PNG (checked by its signature and
its size in the PNG header); a plot that cannot be written is a named error with exit status 1.

usage: check_plot.py VTASIM SOURCE_DIR WORKDIR
"""
import os
import struct
import subprocess
import sys


def png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    if head[:8] != b"\x89PNG\r\n\x1a\n":
        sys.exit("FAIL: %s is not a PNG" % path)
    return struct.unpack(">II", head[16:24])


def main():
    vtasim, src, work = sys.argv[1:4]
    os.makedirs(work, exist_ok=True)
    cases = {
        "conv2d": ["conv2d", "--c", "32", "--h", "8", "--w", "8", "--k", "32", "--backend", "cycle"],
        "matmul": ["matmul", "--m", "8", "--k", "64", "--n", "32", "--backend", "fsim"],
        "network": ["network", src + "/compiler/networks/tiny_resnet.json", "--backend", "cycle",
                    "--quiet"],
    }
    for name, args in cases.items():
        out = os.path.join(work, "plot_%s.png" % name)
        if os.path.exists(out):
            os.remove(out)
        subprocess.run([vtasim] + args + ["--plot", out], check=True, stdout=subprocess.DEVNULL)
        w, h = png_size(out)
        if w < 600 or h < 300:
            sys.exit("FAIL: %s plot is %dx%d" % (name, w, h))
        print("%s: --plot wrote a %dx%d PNG" % (name, w, h))
    p = subprocess.run([vtasim] + cases["matmul"] + ["--plot", "/nonexistent-dir/x.png"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if p.returncode != 1 or "vtasim: error:" not in p.stderr:
        sys.exit("FAIL: unwritable plot: exit %d, %r" % (p.returncode, p.stderr))
    print("unwritable plot: named error, exit 1")


main()
