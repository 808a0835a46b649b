#!/usr/bin/python3
"""Golden files of the network compiler's IR: `vtasim network NET --print-after all` (every
pass of the pipeline, up to the last, no run) for the built-in resnet18, tiny_resnet.json and a
small ONNX model built here with onnx's helper (seeded weights), compared with
tests/compiler/golden/<name>.ir.

Check:       ir_golden.py VTASIM WORKDIR [--no-onnx]
Regenerate:  ir_golden.py VTASIM WORKDIR --update   (or: cmake --build build --target ir_goldens)
"""
import difflib
import os
import subprocess
import sys

SRC = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GOLDEN = os.path.join(SRC, "tests", "compiler", "golden")


def small_onnx(path):
    """Conv+BatchNormalization+Relu, MaxPool, Conv+Add (residual)+Relu, GlobalAveragePool,
    Flatten, Gemm: every pass has something to do."""
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    r = np.random.default_rng(22)
    inits, nodes = [], []

    def const(name, shape, scale=0.3):
        inits.append(numpy_helper.from_array(r.normal(0, scale, shape).astype(np.float32), name))
        return name

    def node(op, inputs, name, **attrs):
        nodes.append(helper.make_node(op, inputs, [name], name=name, **attrs))
        return name

    def conv(x, cin, cout, name):
        return node("Conv", [x, const(name + ".w", (cout, cin, 3, 3)), const(name + ".b", cout, 0.1)],
                    name, kernel_shape=[3, 3], pads=[1] * 4, strides=[1, 1])

    c = conv("x", 3, 8, "/stem/Conv")
    ones = np.ones(8, np.float32)
    for n, v in (("g", ones * 1.1), ("beta", ones * 0.05), ("mean", ones * 0.02), ("var", ones)):
        inits.append(numpy_helper.from_array(v, "bn." + n))
    b = node("BatchNormalization", [c, "bn.g", "bn.beta", "bn.mean", "bn.var"], "/stem/bn")
    a = node("Relu", [b], "/stem/Relu")
    p = node("MaxPool", [a], "/pool/MaxPool", kernel_shape=[2, 2], strides=[2, 2])
    c2 = conv(p, 8, 8, "/block/conv/Conv")
    s = node("Add", [c2, p], "/block/Add")
    s = node("Relu", [s], "/block/Relu")
    g = node("GlobalAveragePool", [s], "/gap/GlobalAveragePool")
    f = node("Flatten", [g], "/flatten/Flatten", axis=1)
    y = node("Gemm", [f, const("fc.w", (5, 8)), const("fc.b", 5, 0.1)], "/fc/Gemm", transB=1)
    graph = helper.make_graph(nodes, "small_onnx",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])],
                              [helper.make_tensor_value_info(y, TensorProto.FLOAT, [1, 5])], inits)
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), path)


def ir_text(vtasim, source):
    """The IR after every pass (the quantization report that follows it left out)."""
    p = subprocess.run([vtasim, "network", source, "--print-after", "all", "--stop-after",
                        "lower", "--config", "pynq", "--calib", "2"],
                       capture_output=True, text=True, check=False)
    if p.returncode != 0:
        sys.exit(f"vtasim network {source} failed:\n{p.stderr}")
    lines = p.stdout.splitlines(keepends=True)
    last = max(i for i, l in enumerate(lines) if l.startswith("  output %"))
    return "".join(lines[:last + 1])


def check_cli(vtasim, work, source):
    """--list-passes lists the passes in order; --dump-ir writes the IR after the last pass (the
    same text --print-after prints); --print-before prints the IR a pass starts from."""
    run = lambda *a: subprocess.run([vtasim, "network", source, *a], capture_output=True,
                                    text=True, check=True).stdout
    names = [l.split()[1] for l in run("--list-passes").splitlines()]
    if names != ["import", "quantize", "infer-types", "place", "schedule", "pack-layout",
                 "lower"]:
        sys.exit(f"--list-passes: {names}")
    dump = os.path.join(work, "place.ir")
    after = run("--print-after", "place", "--stop-after", "place", "--dump-ir", dump)
    before = run("--print-before", "schedule", "--stop-after", "schedule")
    with open(dump) as f:
        text = f.read()
    header = "// ---- IR after pass 'place' ----\n"
    if after != header + text or before != "// ---- IR before pass 'schedule' ----\n" + text:
        sys.exit(f"--dump-ir / --print-before differ from --print-after:\n{after}\n{text}")


def main():
    vtasim, work = sys.argv[1], sys.argv[2]
    update, onnx_too = "--update" in sys.argv, "--no-onnx" not in sys.argv
    os.makedirs(work, exist_ok=True)
    sources = {"resnet18": "resnet18",
               "tiny_resnet": os.path.join(SRC, "compiler", "networks", "tiny_resnet.json")}
    if onnx_too:
        sources["small_onnx"] = os.path.join(work, "small_onnx.onnx")
        small_onnx(sources["small_onnx"])
    check_cli(vtasim, work, sources["tiny_resnet"])
    failed = []
    for name, source in sources.items():
        text = ir_text(vtasim, source).replace(SRC + "/", "")
        path = os.path.join(GOLDEN, name + ".ir")
        if update:
            with open(path, "w") as f:
                f.write(text)
            print(f"wrote {path}")
            continue
        with open(path) as f:
            want = f.read()
        if text != want:
            sys.stdout.writelines(difflib.unified_diff(want.splitlines(True), text.splitlines(True),
                                                       path, "vtasim"))
            failed.append(name)
    if failed:
        sys.exit(f"IR differs from the golden files: {', '.join(failed)} (regenerate with "
                 f"cmake --build build --target ir_goldens, then review the diff)")
    print(f"IR of {', '.join(sources)} equals the golden files")


if __name__ == "__main__":
    main()
