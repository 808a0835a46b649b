"""Seeded, bounded fuzzers over the surfaces users feed by hand: sweep specs, ONNX models and the
Python module's arguments (tests/reliability/README.md).

    fuzz_surfaces.py sweep|onnx|python VTASIM WORKDIR

Each case is a mutation of a valid input. Oracles: the process is never killed by a signal and
never hangs (a time limit per case); it exits 0 or with a named error (status 1 or 2 and a line
"vtasim: error: ..." on stderr; in Python a vtasim.Error, TypeError, ValueError or
OverflowError). VTA_FUZZ_SEED and VTA_FUZZ_ITERS override the seed and the case count; the seed is
printed so that a failure can be replayed.
"""
import collections
import copy
import json
import os
import random
import signal
import subprocess
import sys

SEED = int(os.environ.get("VTA_FUZZ_SEED", "20261125"))
LIMIT_S = 120  # per case: far above any legal run of these small inputs
STATUSES = collections.Counter()  # exit statuses seen, printed at the end

# Values that have broken parsers before: huge, negative, fractional, non-finite, wrong types.
JUNK = [0, -1, 1, 2**31, 2**53 + 1, 2**63, -2**63 - 1, 1e308, -1e-300, 0.5, float("nan"),
        float("inf"), "", "x" * 300, "1/0", None, True, [], {}, [[[[[]]]]], {"a": {"b": {}}},
        "conv2d:c=0", "network:/dev/zero", "../../etc/passwd", "\u00e9\u0000"]


def run_case(args, what, stdin=None):
    """Runs one case; returns an error text when an oracle fails, else None."""
    try:
        p = subprocess.run(args, capture_output=True, text=True, timeout=LIMIT_S, input=stdin,
                           errors="replace")
    except subprocess.TimeoutExpired:
        return f"{what}: no answer within {LIMIT_S} s"
    STATUSES[p.returncode] += 1
    if p.returncode < 0:
        return f"{what}: killed by {signal.Signals(-p.returncode).name}\n{p.stderr[-2000:]}"
    if p.returncode not in (0, 1, 2):
        return f"{what}: exit status {p.returncode}\n{p.stderr[-2000:]}"
    if p.returncode != 0 and "error" not in p.stderr:
        return f"{what}: exit status {p.returncode} without an error message\n{p.stderr[-2000:]}"
    for bad in ("terminate called", "Traceback", "AddressSanitizer", "runtime error:"):
        if bad in p.stderr:
            return f"{what}: '{bad}' on stderr\n{p.stderr[-2000:]}"
    return None


def junk(rng):
    """A fresh copy of a junk value (later mutations must not change the list)."""
    return copy.deepcopy(rng.choice(JUNK))


def mutate_json(value, rng):
    """One random change somewhere in a JSON value: replace, delete or add a key, or wrap."""
    if isinstance(value, dict) and value and rng.random() < 0.8:
        key = rng.choice(sorted(value))
        roll = rng.random()
        if roll < 0.15:
            del value[key]
        elif roll < 0.25:
            value["unknown_" + key] = junk(rng)
        else:
            value[key] = mutate_json(value[key], rng)
        return value
    if isinstance(value, list) and value and rng.random() < 0.8:
        i = rng.randrange(len(value))
        if rng.random() < 0.2:
            value.insert(i, junk(rng))
        else:
            value[i] = mutate_json(value[i], rng)
        return value
    roll = rng.random()
    if roll < 0.1:
        return [value]
    if roll < 0.2:
        return {"from": value, "to": copy.deepcopy(value), "step": 0}
    return junk(rng)


def base_spec():
    return {"name": "fuzz", "base": "pynq",
            "axes": {"LOG_BLOCK": [4], "LOG_BUS_WIDTH": [6, 7]},
            "workloads": ["conv2d:n=1,c=16,h=8,w=8,k=16,kernel=3,pad=1"],
            "backend": "fsim", "check": True,
            "constraints": ["LOG_BUS_WIDTH >= LOG_BLOCK + 2 || CLOCK_MHZ < 200"]}


def must_pass(args, what):
    """The unmutated input runs: the mutations start from something valid."""
    p = subprocess.run(args, capture_output=True, text=True, timeout=LIMIT_S)
    if p.returncode != 0:
        sys.exit(f"{what} fails: {p.stderr[-2000:]}")


def fuzz_sweeps(vtasim, work, iters):
    rng = random.Random(SEED)
    base = os.path.join(work, "base_spec.json")
    with open(base, "w") as f:
        json.dump(base_spec(), f)
    must_pass([vtasim, "sweep", base, "--db", os.path.join(work, "base.db"), "--quiet", "-j", "1"],
              "the base sweep spec")
    failures = []
    for i in range(iters):
        spec = base_spec()
        for _ in range(rng.randint(1, 3)):
            spec = mutate_json(spec, rng)
        path = os.path.join(work, f"spec_{i}.json")
        text = json.dumps(spec, allow_nan=True)
        if rng.random() < 0.1:  # a truncated file
            text = text[:rng.randrange(len(text) + 1)]
        with open(path, "w") as f:
            f.write(text)
        db = os.path.join(work, f"sweep_{i}.db")
        err = run_case([vtasim, "sweep", path, "--db", db, "--quiet", "-j", "1"],
                       f"sweep case {i} ({text[:300]})")
        if err:
            failures.append(err)
    return failures


def small_model_bytes():
    """Conv (with a BatchNormalization), Relu, MaxPool, Conv, Add, GlobalAveragePool, Gemm."""
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    rng = np.random.default_rng(7)
    inits = []

    def const(name, shape):
        inits.append(numpy_helper.from_array(rng.normal(0, 0.3, shape).astype(np.float32), name))
        return name

    nodes = [
        helper.make_node("Conv", ["x", const("w1", (8, 3, 3, 3))], ["c1"], pads=[1, 1, 1, 1],
                         name="conv1"),
        helper.make_node("BatchNormalization", ["c1", const("g", (8,)), const("b", (8,)),
                                                const("m", (8,)), const("v", (8,))], ["bn"],
                         name="bn"),
        helper.make_node("Relu", ["bn"], ["r"], name="relu"),
        helper.make_node("MaxPool", ["r"], ["p"], kernel_shape=[2, 2], strides=[2, 2],
                         name="pool"),
        helper.make_node("Conv", ["p", const("w2", (8, 8, 3, 3))], ["c2"], pads=[1, 1, 1, 1],
                         name="conv2"),
        helper.make_node("Add", ["c2", "p"], ["s"], name="add"),
        helper.make_node("GlobalAveragePool", ["s"], ["g1"], name="gap"),
        helper.make_node("Flatten", ["g1"], ["f"], axis=1, name="flatten"),
        helper.make_node("Gemm", ["f", const("fc", (4, 8))], ["y"], transB=1, name="fc"),
    ]
    # BatchNormalization's variance must stay positive in the valid model.
    inits[4] = numpy_helper.from_array(np.abs(numpy_helper.to_array(inits[4])) + 0.5, "v")
    graph = helper.make_graph(nodes, "fuzz", [helper.make_tensor_value_info(
        "x", TensorProto.FLOAT, [1, 3, 8, 8])], [helper.make_tensor_value_info(
            "y", TensorProto.FLOAT, [1, 4])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    return model.SerializeToString(), model


def mutate_model(model, rng):
    """A structural change: an attribute, a dim, an input name, an initializer or a node."""
    import onnx
    m = onnx.ModelProto()
    m.CopyFrom(model)
    g = m.graph
    roll = rng.random()
    if roll < 0.3:
        node = rng.choice(list(g.node))
        if node.attribute:
            a = rng.choice(list(node.attribute))
            if a.ints:
                a.ints[rng.randrange(len(a.ints))] = rng.choice([-1, 0, 2**31 - 1, 2**40, 100])
            else:
                a.i = rng.choice([-5, 0, 2**40])
                a.f = rng.choice([float("nan"), -1.0, 1e30])
    elif roll < 0.5:
        d = g.input[0].type.tensor_type.shape.dim[rng.randrange(4)]
        d.dim_value = rng.choice([0, 1, 3, 4096, 2**20])
    elif roll < 0.65:
        node = rng.choice(list(g.node))
        node.input[rng.randrange(len(node.input))] = rng.choice(["nope", "x", "y", ""])
    elif roll < 0.8 and g.initializer:
        t = rng.choice(list(g.initializer))
        if t.dims:
            t.dims[rng.randrange(len(t.dims))] = rng.choice([0, 1, 2**31, 7])
    elif roll < 0.9:
        del g.node[rng.randrange(len(g.node))]
    else:
        rng.choice(list(g.node)).op_type = rng.choice(["Conv", "Gemm", "Softmax", "Add", ""])
    return m.SerializeToString()


def fuzz_onnx(vtasim, work, iters):
    rng = random.Random(SEED)
    data, model = small_model_bytes()
    base = os.path.join(work, "base.onnx")
    with open(base, "wb") as f:
        f.write(data)
    must_pass([vtasim, "network", base, "--backend", "fsim", "--calib", "1", "--quiet"],
              "the base ONNX model")
    failures = []
    for i in range(iters):
        if rng.random() < 0.5:
            blob = mutate_model(model, rng)
        else:  # raw byte damage: flips, a cut, or inserted bytes
            b = bytearray(data)
            for _ in range(rng.randint(1, 6)):
                b[rng.randrange(len(b))] = rng.randrange(256)
            if rng.random() < 0.3:
                b = b[:rng.randrange(len(b))]
            blob = bytes(b)
        path = os.path.join(work, f"model_{i}.onnx")
        with open(path, "wb") as f:
            f.write(blob)
        err = run_case([vtasim, "network", path, "--backend", "fsim", "--calib", "1", "--quiet"],
                       f"onnx case {i}")
        if err:
            failures.append(err)
    return failures


PY_CASES = r"""
import math, random, sys
import numpy as np
import vtasim
rng = random.Random(int(sys.argv[1]))
iters = int(sys.argv[2])
junk = [0, -1, 1, 3, 2**31, 2**63, -2**70, 0.5, math.nan, math.inf, "", "x", None, True, [], {},
        (1, 2), np.zeros((2, 2), np.int8), np.zeros(3, np.float64), "resnet18.C99"]
ok = (vtasim.Error, TypeError, ValueError, OverflowError)
outcomes = {}
calls = [
    ("conv2d", lambda kw: vtasim.conv2d("pynq", backend="fsim", **kw),
     ["n", "c", "h", "w", "k", "kernel", "stride", "pad", "shift", "clip", "layer", "x",
      "weights", "bias_values", "schedule", "seed"]),
    ("matmul", lambda kw: vtasim.matmul("pynq", kw.pop("a", np.ones((4, 16), np.int8)),
                                        kw.pop("b", np.ones((16, 16), np.int8)),
                                        backend="fsim", **kw),
     ["a", "b", "bias_values", "shift", "clip", "schedule"]),
    ("schedules", lambda kw: vtasim.schedules("pynq", **kw),
     ["n", "c", "h", "w", "k", "kernel", "stride", "pad", "count", "layer"]),
    ("Config", lambda kw: vtasim.Config("pynq", **{k.upper(): v for k, v in kw.items()}),
     ["clock_mhz", "log_block", "log_bus_width", "log_acc_buff_size", "memory_model"]),
]
for i in range(iters):
    name, call, keys = rng.choice(calls)
    kw = {k: rng.choice(junk) for k in rng.sample(keys, rng.randint(1, 2))}
    print(f"case {i}: {name}({kw!r})"[:300], flush=True)
    try:
        call(kw)
        outcome = "returned"
    except ok as e:
        outcome = type(e).__name__
    except Exception as e:  # anything else is a defect: an unnamed error
        print(f"FAIL case {i}: {name}({kw!r}) raised {type(e).__name__}: {e}", flush=True)
        sys.exit(3)
    outcomes[outcome] = outcomes.get(outcome, 0) + 1
print("outcomes", dict(sorted(outcomes.items())))
print("done", flush=True)
"""


def fuzz_python(work, iters):
    path = os.path.join(work, "py_cases.py")
    with open(path, "w") as f:
        f.write(PY_CASES)
    try:
        p = subprocess.run(["/usr/bin/python3", path, str(SEED), str(iters)], capture_output=True,
                           text=True, timeout=LIMIT_S * 4)
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b"").decode(errors="replace") if isinstance(e.stdout, bytes) else ""
        return [f"python: no answer within {LIMIT_S * 4} s; last: {out[-300:]}"]
    last = p.stdout.strip().splitlines()[-1:] or ["(nothing)"]
    if p.returncode < 0:
        return [f"python: killed by {signal.Signals(-p.returncode).name} at {last[0]}"]
    if p.returncode != 0 or last[0] != "done":
        return [f"python: status {p.returncode}, last line {last[0]}\n{p.stderr[-2000:]}"]
    print(p.stdout.strip().splitlines()[-2])
    return []


def main():
    mode, vtasim, work = sys.argv[1], sys.argv[2], sys.argv[3]
    iters = int(os.environ.get("VTA_FUZZ_ITERS", {"sweep": "40", "onnx": "80",
                                                  "python": "200"}[mode]))
    os.makedirs(work, exist_ok=True)
    print(f"{mode} fuzzer: seed {SEED}, {iters} cases (VTA_FUZZ_SEED / VTA_FUZZ_ITERS)")
    if mode == "sweep":
        failures = fuzz_sweeps(vtasim, work, iters)
    elif mode == "onnx":
        failures = fuzz_onnx(vtasim, work, iters)
    else:
        failures = fuzz_python(work, iters)
    for f in failures[:5]:
        print("FAIL", f)
    if failures:
        sys.exit(f"{len(failures)} of {iters} cases failed (seed {SEED})")
    print(f"{iters} cases: every one finished with a result or a named error "
          f"(exit statuses {dict(sorted(STATUSES.items()))})")


if __name__ == "__main__":
    main()
