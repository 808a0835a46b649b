"""Swin's shifted windows end to end: swin_t exported by scripts/export_torchvision.py at
1x3x32x32, the smallest input whose windows shift (8x8 tokens padded to 14x14, two 7x7 windows
a side; at 16x16 one window covers the map and nothing shifts). Its second block rolls the tokens
by 3 (Slices and Concats of the activation) and adds the shifted-window mask (0 within a region,
-100 across regions) to its attention scores: the mask is built by torch's export from Range,
index grids, ScatterND, Sub, Equal, Not and Where of the padded map's shape, all folded at import
into one constant that an add_constant applies.

Independent references: torch's output of the model (onnx_float_check, at 1e-4 of the largest
logit: without the mask the float output moves by 5.5e-3 of it at seed 1), the int8 reference of the
quantized graph (every layer and the output bit for bit on fsim), and the block structure worked
out from torchvision's rule (a block shifts when its padded map is larger than a window).

At 224x224 the q / k / v Gather has more values behind its axis than a view's dim holds: a
graph built here with onnx.helper checks that case against numpy.

Environment: as test_frontend.py (VTASIM, FLOAT_CHECK, VTA_SOURCE_DIR).
"""
import os
import subprocess

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from test_frontend import ATTENTION_COSINE_FLOOR, SEED, SRC, check_run, float_check, rng

SIZE = 32
WINDOW = 7
DEPTHS = (2, 2, 6, 2)  # swin_t's blocks per stage; odd blocks shift


def shifted_blocks(size):
    """The attention blocks of swin_t that shift at input size x size: torchvision's rule, the
    odd block of a stage whose tokens (padded to whole windows) are more than one window."""
    blocks, tokens = [], size // 4
    for stage, depth in enumerate(DEPTHS):
        padded = -(-tokens // WINDOW) * WINDOW
        if padded > WINDOW:
            blocks += [f"features.{2 * stage + 1}.{b}" for b in range(1, depth, 2)]
        tokens = (tokens + 1) // 2
    return blocks


def test_swin_t_shifted_windows(tmp_path):
    model = str(tmp_path / "swin_t.onnx")
    subprocess.run(["/usr/bin/python3", os.path.join(SRC, "scripts/export_torchvision.py"),
                    "swin_t", model, "--seed", str(SEED), "--input", f"1x3x{SIZE}x{SIZE}",
                    "--sample-out", model[:-5]], check=True)
    print(f"exported swin_t seed {SEED} input 1x3x{SIZE}x{SIZE}")
    expected = np.fromfile(model[:-5] + ".out.f32", dtype="<f4")
    x = np.fromfile(model[:-5] + ".in.f32", dtype="<f4")
    float_check(model, x, expected, tol=1e-4)
    rep, out = check_run(str(tmp_path), model, x)
    print(out)
    fe = rep["frontend"]
    assert fe["cosine_similarity"] >= ATTENTION_COSINE_FLOOR, out
    hosted = rep["host_ops"]
    # Every block adds its relative position bias (Add_1); the shifted one also its mask.
    bias = [h for h in hosted if "add_constant" in h and "/attn/Add_1:" in h]
    assert len(bias) == sum(DEPTHS)
    masks = [h.split(":")[0] for h in hosted if "add_constant" in h and "/attn/Add_1:" not in h]
    assert shifted_blocks(SIZE) == ["features.1.1"]
    assert masks == [f"/features/features.1/{b}/attn/Add_11" for b in shifted_blocks(SIZE)]
    # The roll of the padded map's 14 rows by 3, there (rows 3..13, then 0..2) and back (11..13,
    # then 0..10).
    roll = [h.split(": ")[1] for h in hosted
            if "features.1.1/attn/Slice_" in h and " h=0:14 w=0:96" in h]
    assert roll[:4] == ["slice c=3:14 h=0:14 w=0:96 on host", "slice c=0:3 h=0:14 w=0:96 on host",
                        "slice c=11:14 h=0:14 w=0:96 on host",
                        "slice c=0:11 h=0:14 w=0:96 on host"], roll


def test_swin_qkv_gather_beyond_a_view_dim(tmp_path):
    """Swin's q / k / v at 224x224: a Gather along axis 0 of [3, windows, heads, tokens, dim] with
    64 x 3 x 49 x 32 = 301056 values behind it, more than a view's 65535 in one dim. Here
    [3, 2, 17, 2000, 2] (136000 behind axis 0, and 2 x 17 x 2000 = 68000 still too many): the
    view splits them as [34, 4000]. Checked against numpy's x[1] (float) and bit for bit (int8)."""
    x = rng().normal(0, 1, (3, 2, 34000, 2)).astype(np.float32)
    inits = [numpy_helper.from_array(np.array([3, 2, 17, 2000, 2], np.int64), "five_d"),
             numpy_helper.from_array(np.array(1, np.int64), "k_index"),
             numpy_helper.from_array(np.array([1, 2, 34000, 2], np.int64), "four_d")]
    nodes = [helper.make_node("Reshape", ["x", "five_d"], ["qkv"], name="qkv"),
             helper.make_node("Gather", ["qkv", "k_index"], ["k"], name="k", axis=0),
             helper.make_node("Reshape", ["k", "four_d"], ["y"], name="y")]
    graph = helper.make_graph(
        nodes, "qkv_gather", [helper.make_tensor_value_info("x", TensorProto.FLOAT, x.shape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 2, 34000, 2])], inits)
    model = str(tmp_path / "qkv_gather.onnx")
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), model)
    float_check(model, x, x[1].ravel(), tol=0)
    rep, out = check_run(str(tmp_path), model, x)
    hosted = " ".join(rep["host_ops"])
    assert "k/index: slice c=1:2 h=0:34 w=0:4000" in hosted, hosted
