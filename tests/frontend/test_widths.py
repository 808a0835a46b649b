"""An ONNX model quantized to the config's element widths (docs/element_widths.md): a Conv + BN +
ReLU graph at int4 x int4 -> int16 and int4 x int4 -> int32 on fsim, its output recomputed in
numpy from the report's exponents (int4 lanes, the accumulator wrapped at ACC_WIDTH, the ReLU's
clip at the int4 lane) and equal to the VTA run. int16 lanes: test_widths_int16.py.

Environment as test_frontend.py (VTASIM, VTA_SOURCE_DIR). Run with /usr/bin/python3.
"""
import json
import os

import jsonschema
import numpy as np
import torch
import torch.nn.functional as F

from test_frontend import Graph, SRC, bn_torch, conv_torch, rng, round_away, t, vtasim


def wrap(v, bits):
    """v modulo 2^bits as a signed lane (two's complement)."""
    m = 1 << bits
    return ((v + m // 2) % m) - m // 2


def conv_bn_relu(tmp_path, r, cin, cout, hw):
    g = Graph([1, cin, hw, hw], r)
    y = g.node("Relu", [g.bn(g.conv("x", cin, cout, "conv"), cout, "bn")], "relu")
    model = g.save(str(tmp_path / "m.onnx"), y, [1, cout, hw, hw])
    x = r.normal(0, 1, (1, cin, hw, hw)).astype(np.float32)
    x.astype("<f4").tofile(str(tmp_path / "m.in.f32"))
    return g, model, x


def expected_int4(g, x, q, acc_bits):
    """The int4 output from the float parameters and the report's exponents, in numpy."""
    e_in, e_w, shift = q["input_exponent"], q["weight_exponent"], q["shift"]
    p = g.params
    a = p["bn.g"].astype(np.float64) / np.sqrt(p["bn.var"].astype(np.float64) + np.float32(1e-5))
    w = (p["conv.w"].astype(np.float64) * a[:, None, None, None]).astype(np.float32)
    b = ((p["conv.b"].astype(np.float64) - p["bn.mean"]) * a + p["bn.beta"]).astype(np.float32)
    xq = np.clip(round_away(x.astype(np.float64) * 2.0 ** e_in), -8, 7)
    wq = np.clip(round_away(w.astype(np.float64) * 2.0 ** e_w), -8, 7)
    bq = round_away(b.astype(np.float64) * 2.0 ** (e_in + e_w)) + ((1 << shift) >> 1)
    bq = np.clip(bq, -(1 << (acc_bits - 1)), (1 << (acc_bits - 1)) - 1).astype(np.int64)
    acc = F.conv2d(torch.from_numpy(xq), torch.from_numpy(wq), None, 1, 1).numpy()
    acc = wrap(wrap(acc.astype(np.int64), acc_bits) + bq[None, :, None, None], acc_bits)
    return np.clip(acc >> shift, 0, 7).astype(np.int8).ravel()


def test_widths_conv_bn_relu_int4(tmp_path):
    r = rng()
    g, model, x = conv_bn_relu(tmp_path, r, 8, 16, 6)
    with torch.no_grad():
        ref = F.relu(bn_torch(conv_torch(t(x), g, "conv"), g, "bn")).numpy()
    outputs = {}
    for config, acc_bits in (("pynq_int4", 16), ("pynq_int4_acc32", 32)):
        rep, out, _ = vtasim(str(tmp_path), model, "--config", config, "--input",
                             str(tmp_path / "m.in.f32"), "--calib", "2")
        with open(os.path.join(SRC, "compiler/report.schema.json")) as f:
            jsonschema.Draft202012Validator(json.load(f)).validate(rep)
        fe = rep["frontend"]
        assert fe["widths"] == f"int4 x int4 -> int{acc_bits}"
        assert fe["output_matches_reference"], out
        assert all(l["mismatches"] == 0 and l["checked"] for l in rep["layers"]), out
        got = np.asarray(fe["reference_output"])
        assert got.min() >= 0 and got.max() <= 7
        assert list(expected_int4(g, x, fe["layers"][0], acc_bits)) == list(got), config
        outputs[config] = got
        # The int4 output dequantized follows the float model (16 levels: a coarse bound).
        deq = got * 2.0 ** -fe["output_exponent"]
        cos = float(np.dot(deq, ref.ravel()) / (np.linalg.norm(deq) * np.linalg.norm(ref) + 1e-12))
        assert cos > 0.8, cos
    # int8 keeps the same model closer to float than int4 does.
    rep8, _, _ = vtasim(str(tmp_path), model, "--input", str(tmp_path / "m.in.f32"), "--calib",
                        "2")
    assert "widths" not in rep8["frontend"]
    assert rep8["frontend"]["cosine_similarity"] > rep["frontend"]["cosine_similarity"]
