"""ONNX models quantized to int16 x int16 -> int32 lanes (docs/element_widths.md, "the fan-in
rule"): a Conv + BN + ReLU, a residual Conv + Add + ReLU and a Gemm built here with onnx.helper,
run on fsim and cycle, the output recomputed in numpy from the report's exponents and lanes and
equal to the VTA run bit for bit; the fan-in rule on a layer where 16-bit scales chosen from the
lane alone would overflow the 32-bit accumulator (hand-computed bits); an operator without an
int16 path is a named error.

Environment as test_frontend.py (VTASIM, VTA_SOURCE_DIR). Run with /usr/bin/python3.
"""
import json
import os

import jsonschema
import numpy as np
import torch
import torch.nn.functional as F

from test_frontend import Graph, SRC, bn_torch, conv_torch, rng, round_away, t, vtasim

ACC = 32  # pynq_int16: int16 x int16 -> int32


def lane(v, bits):
    """v saturated to a signed `bits`-bit lane."""
    return np.clip(v, -(1 << (bits - 1)), (1 << (bits - 1)) - 1)


def product_bits(k, acc=ACC):
    """The fan-in rule: the largest p with k * 2^p <= 2^(acc-2)."""
    p = 0
    while k << (p + 1) <= 1 << (acc - 2):
        p += 1
    return p


def folded(g, conv, bn):
    """The Conv's weights and bias with the BatchNormalization folded in (float32, as ONNX)."""
    p = g.params
    a = p[bn + ".g"].astype(np.float64) / np.sqrt(p[bn + ".var"].astype(np.float64) +
                                                  np.float32(1e-5))
    w = (p[conv + ".w"].astype(np.float64) * a[:, None, None, None]).astype(np.float32)
    b = ((p[conv + ".b"].astype(np.float64) - p[bn + ".mean"]) * a + p[bn + ".beta"])
    return w, b.astype(np.float32)


def accumulate(xq, w, b, q, conv=True):
    """A layer's int64 accumulator from its quantized input and the report's exponents: weights
    in their lane, the bias (with the shift's half unit) within ACC - 1 bits; checks the sums
    never leave the int32 accumulator (the fan-in rule)."""
    e_in, e_w, shift = q["input_exponent"], q["weight_exponent"], q["shift"]
    wq = lane(round_away(w.astype(np.float64) * 2.0 ** e_w), q["weight_bits"])
    bq = lane(round_away(b.astype(np.float64) * 2.0 ** (e_in + e_w)) + ((1 << shift) >> 1),
              ACC - 1).astype(np.int64)
    x64, w64 = torch.from_numpy(xq.astype(np.float64)), torch.from_numpy(wq)
    if conv:
        acc = F.conv2d(x64, w64, None, 1, 1).numpy().astype(np.int64) + bq[None, :, None, None]
    else:
        acc = (x64.reshape(xq.shape[0], -1) @ w64.T).numpy().astype(np.int64) + bq[None, :]
    assert np.abs(acc).max() < 1 << (ACC - 1)
    return acc


def residual_graph(tmp_path, r):
    """x 1x8x6x6 -> Conv+BN+ReLU (a) -> Conv+BN + a -> ReLU (b) -> Flatten -> Gemm (10)."""
    g = Graph([1, 8, 6, 6], r)
    a = g.node("Relu", [g.bn(g.conv("x", 8, 16, "c1"), 16, "bn1")], "a")
    s = g.node("Add", [g.bn(g.conv(a, 16, 16, "c2"), 16, "bn2"), a], "sum")
    b = g.node("Relu", [s], "b")
    f = g.node("Flatten", [b], "flat", axis=1)
    w = g.const("fc.w", r.normal(0, 0.05, (10, 16 * 36)))
    y = g.node("Gemm", [f, w, g.const("fc.b", r.normal(0, 0.1, 10))], "fc", transB=1)
    model = g.save(str(tmp_path / "m.onnx"), y, [1, 10])
    x = r.normal(0, 1, (1, 8, 6, 6)).astype(np.float32)
    x.astype("<f4").tofile(str(tmp_path / "m.in.f32"))
    return g, model, x


def expected_int16(g, x, layers):
    """The network's int16 output from the float parameters and the report, in numpy."""
    q1, q2, q3 = layers
    xq = lane(round_away(x.astype(np.float64) * 2.0 ** q1["input_exponent"]), q1["input_bits"])
    w1, b1 = folded(g, "c1", "bn1")
    a = np.clip(accumulate(xq, w1, b1, q1) >> q1["shift"], 0, (1 << (q1["output_bits"] - 1)) - 1)
    # The residual layer: VTA stops at the shift, saturated to the int16 lane; the host adds the
    # residual rounded by residual_shift (its exponent minus the output's, at most 8) and
    # applies the ReLU within the output's bits.
    w2, b2 = folded(g, "c2", "bn2")
    y = lane(accumulate(a, w2, b2, q2) >> q2["shift"], 16)
    s = min(q1["output_exponent"] - q2["output_exponent"], 8)
    res = (a + ((1 << s) >> 1)) >> s
    b = np.clip(y + res, 0, (1 << (q2["output_bits"] - 1)) - 1)
    p = g.params
    out = accumulate(b, p["fc.w"], p["fc.b"], q3, conv=False) >> q3["shift"]
    return lane(out, q3["output_bits"]).ravel()


def float_model(g, x):
    with torch.no_grad():
        a = F.relu(bn_torch(conv_torch(t(x), g, "c1"), g, "bn1"))
        b = F.relu(bn_torch(conv_torch(a, g, "c2"), g, "bn2") + a)
        return (b.reshape(1, -1) @ t(g.params["fc.w"]).T + t(g.params["fc.b"])).numpy().ravel()


def cosine(a, b):
    return float(np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b) + 1e-30))


def run_int16(tmp_path, model, backend, calib=2):
    rep, out, _ = vtasim(str(tmp_path), model, "--config", "pynq_int16", "--input",
                         str(tmp_path / "m.in.f32"), "--calib", str(calib), backend=backend)
    with open(os.path.join(SRC, "compiler/report.schema.json")) as f:
        jsonschema.Draft202012Validator(json.load(f)).validate(rep)
    fe = rep["frontend"]
    assert fe["widths"] == "int16 x int16 -> int32"
    assert fe["output_matches_reference"], out
    assert all(l["mismatches"] == 0 and l["checked"] for l in rep["layers"]), out
    return fe, out


def test_int16_conv_bn_relu_residual_gemm(tmp_path):
    r = rng()
    g, model, x = residual_graph(tmp_path, r)
    fe, out = run_int16(tmp_path, model, "fsim")
    layers = fe["layers"]
    assert [l["ops"] for l in layers] == ["Conv+Relu", "Conv+Add+Relu", "Gemm"], out
    # The fan-in rule's bits, by hand: K x 2^p <= 2^30 < K x 2^(p+1), inputs take p // 2 + 1
    # bits (or fewer, shared with another consumer), weights the rest, both within int16.
    for l, k, p in zip(layers, (72, 144, 576), (23, 22, 20)):
        assert l["fan_in"] == k and product_bits(k) == p, l
        assert l["input_bits"] <= p // 2 + 1, l
        assert (l["input_bits"] - 1) + (l["weight_bits"] - 1) == p, l
    got = np.asarray(fe["reference_output"])
    assert list(expected_int16(g, x, layers)) == list(got), out
    # The cycle model runs the same program and gives the same output.
    fe_cycle, out = run_int16(tmp_path, model, "cycle")
    assert fe_cycle["reference_output"] == fe["reference_output"], out
    # int16 keeps the output closer to float than int8 does (same model, same input).
    ref = float_model(g, x)
    deq = got * 2.0 ** -fe["output_exponent"]
    rep8, _, _ = vtasim(str(tmp_path), model, "--input", str(tmp_path / "m.in.f32"), "--calib",
                        "2")
    fe8 = rep8["frontend"]
    deq8 = np.asarray(fe8["reference_output"]) * 2.0 ** -fe8["output_exponent"]
    assert cosine(deq, ref) > 0.9999 and cosine(deq, ref) >= cosine(deq8, ref)
    assert fe["cosine_similarity"] >= fe8["cosine_similarity"]


def test_int16_fan_in_rule_keeps_a_wide_sum_in_the_accumulator(tmp_path):
    # A 3x3 Conv over 64 channels (fan-in 576) whose inputs and weights are all positive: every
    # product adds up. Scales chosen from the int16 lane alone (|x|, |w| up to 2^15 - 1) would
    # sum far beyond 2^31; the rule gives p = 20 (576 x 2^20 = 603979776 <= 2^30 <
    # 576 x 2^21), 11-bit inputs (|x| <= 1024) and 11-bit weights.
    r = rng()
    g = Graph([1, 64, 4, 4], r)
    w = g.const("c.w", r.uniform(0.01, 1.0, (16, 64, 3, 3)))
    y = g.node("Conv", ["x", w, g.const("c.b", r.uniform(0, 0.1, 16))], "c", kernel_shape=[3, 3],
               pads=[1] * 4)
    model = g.save(str(tmp_path / "m.onnx"), y, [1, 16, 4, 4])
    x = r.uniform(0.01, 1.0, (1, 64, 4, 4)).astype(np.float32)
    x.astype("<f4").tofile(str(tmp_path / "m.in.f32"))
    fe, out = run_int16(tmp_path, model, "fsim", calib=1)
    q = fe["layers"][0]
    assert (q["fan_in"], q["input_bits"], q["weight_bits"]) == (576, 11, 11), q
    xq = lane(round_away(x.astype(np.float64) * 2.0 ** q["input_exponent"]), 11)
    assert xq.max() <= 1023 and xq.max() >= 512  # the exponent uses the 11-bit lane
    # Naive 16-bit scales: the largest exponents whose int16 lane holds x and w.
    e_x, e_w = (int(np.floor(np.log2(32767 / v.max()))) for v in (x, g.params["c.w"]))
    naive = F.conv2d(t(np.round(x * 2.0 ** e_x)).double(),
                     t(np.round(g.params["c.w"] * 2.0 ** e_w)).double(), None, 1, 1).numpy()
    assert naive.max() > 2 ** 31, naive.max()
    acc = accumulate(xq, g.params["c.w"], g.params["c.b"], q)  # asserts |acc| < 2^31
    expect = lane(acc >> q["shift"], q["output_bits"]).ravel()
    assert list(expect) == fe["reference_output"], out
    with torch.no_grad():
        ref = conv_torch(t(x), g, "c").numpy().ravel()
    assert cosine(expect * 2.0 ** -fe["output_exponent"], ref) > 0.99999


def test_int16_operator_without_a_wide_path_is_named(tmp_path):
    r = rng()
    g = Graph([1, 3, 4, 4], r)
    y = g.node("Sigmoid", [g.node("Relu", [g.conv("x", 3, 16, "c")], "r")], "sig")
    model = g.save(str(tmp_path / "m.onnx"), y, [1, 16, 4, 4])
    _, _, err = vtasim(str(tmp_path), model, "--config", "pynq_int16", status=1)
    assert "to int16 x int16 -> int32 lanes" in err, err
    assert "operators without an int16 path: sigmoid (node 'sig')" in err, err
    # int32 lanes: no quantization (the fan-in rule leaves them int16's precision).
    _, _, err = vtasim(str(tmp_path), model, "--config", "pynq_int32", status=1)
    assert "lanes of 1 to 16 bits" in err, err


def test_int16_transformer_block(tmp_path):
    # A one-layer ViT (torchvision's VisionTransformer, 32x32 input, 16x16 patches, 2 heads of
    # 16): the patch Conv, the class token and position embedding (add_constant), LayerNorm,
    # the attention's batch matmuls and Softmax, GELU, views and permutes. At int16 the host
    # runs them on its int32 lanes; the output equals the network's reference on fsim and cycle
    # and follows torch's float output at least as closely as int8 does.
    from torchvision.models.vision_transformer import VisionTransformer
    seed = 36
    print(f"seed {seed}")
    torch.manual_seed(seed)
    model = VisionTransformer(image_size=32, patch_size=16, num_layers=1, num_heads=2,
                              hidden_dim=32, mlp_dim=64, num_classes=10).eval()
    with torch.no_grad():  # torchvision starts the head at zero
        model.heads.head.weight.normal_(0, 0.3)
        model.heads.head.bias.normal_(0, 0.1)
    x = torch.randn((1, 3, 32, 32), generator=torch.Generator().manual_seed(seed + 1))
    path = str(tmp_path / "m.onnx")
    torch.onnx.export(model, x, path, opset_version=13, do_constant_folding=True,
                      input_names=["input"], output_names=["output"])
    x.numpy().astype("<f4").tofile(str(tmp_path / "m.in.f32"))
    with torch.no_grad():
        ref = model(x).numpy().ravel()
    outputs = []
    for backend in ("fsim", "cycle"):
        fe, out = run_int16(tmp_path, path, backend, calib=1)
        outputs.append(fe["reference_output"])
    assert outputs[0] == outputs[1]
    for op in ("layer_norm", "softmax", "gelu", "batch_matmul", "add_constant"):
        assert f": {op}" in out, (op, out)
    deq = np.asarray(outputs[0]) * 2.0 ** -fe["output_exponent"]
    rep8, _, _ = vtasim(str(tmp_path), path, "--input", str(tmp_path / "m.in.f32"), "--calib",
                        "1")
    fe8 = rep8["frontend"]
    deq8 = np.asarray(fe8["reference_output"]) * 2.0 ** -fe8["output_exponent"]
    assert cosine(deq, ref) > 0.9999 and cosine(deq, ref) >= cosine(deq8, ref), (
        cosine(deq, ref), cosine(deq8, ref))
