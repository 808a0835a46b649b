import _thread
import os
import re
import threading
import time

import numpy as np
import pytest
import vtasim

from conftest import SOURCE_DIR, ref_conv2d


@pytest.mark.parametrize("backend", ["fsim", "cycle"])
def test_conv2d_with_numpy_inputs_matches_a_numpy_reference(rng, backend):
    x = rng.integers(-128, 128, size=(1, 32, 9, 7), dtype=np.int8)
    w = rng.integers(-128, 128, size=(24, 32, 3, 3), dtype=np.int8)
    b = rng.integers(-2000, 2000, size=24, dtype=np.int32)
    r = vtasim.conv2d("pynq", c=32, h=9, w=7, k=24, kernel=3, stride=2, pad=1, x=x, weights=w,
                      bias_values=b, shift=6, clip=(-100, 90), backend=backend)
    expected = ref_conv2d(x, w, stride=2, pad=1, bias=b, shift=6, lo=-100, hi=90)
    assert r["output"].dtype == np.int8
    assert r["output"].shape == expected.shape
    assert np.array_equal(r["output"], expected)
    assert r["mismatches"] == 0 and r["checked"]
    if backend == "cycle":
        assert r["cycles"] > 0
    else:
        assert r["cycles"] is None


@pytest.mark.parametrize("backend", ["fsim", "cycle"])
def test_conv2d_per_channel_shifts_match_a_numpy_reference(rng, backend):
    """shift as a list: one right shift per output channel (per-channel weight scales)."""
    x = rng.integers(-128, 128, size=(1, 16, 6, 6), dtype=np.int8)
    w = rng.integers(-128, 128, size=(24, 16, 3, 3), dtype=np.int8)
    b = rng.integers(-2000, 2000, size=24, dtype=np.int32)
    shifts = [4 + k % 9 for k in range(24)]  # 4..12
    r = vtasim.conv2d("pynq", c=16, h=6, w=6, k=24, kernel=3, pad=1, x=x, weights=w,
                      bias_values=b, shift=shifts, relu=True, backend=backend)
    expected = ref_conv2d(x, w, stride=1, pad=1, bias=b,
                          shift=np.array(shifts)[None, :, None, None], lo=0, hi=None)
    assert np.array_equal(r["output"], expected)
    assert r["mismatches"] == 0 and r["checked"]
    assert r["epilogue"]["shift"] == shifts


def test_matmul_per_channel_shifts_match_numpy(rng):
    a = rng.integers(-128, 128, size=(20, 40), dtype=np.int8)
    b = rng.integers(-128, 128, size=(40, 24), dtype=np.int8)
    shifts = np.arange(24) % 5 + 5  # 5..9, a numpy array
    r = vtasim.matmul("pynq", a, b, shift=shifts, backend="fsim")
    acc = (a.astype(np.int64) @ b.astype(np.int64)) >> shifts[None, :]
    assert np.array_equal(r["output"], (acc & 0xFF).astype(np.uint8).view(np.int8))


@pytest.mark.parametrize("shift,words", [
    ([7] * 23, "conv2d: 23 per-channel shifts for 24 output channels"),
    ([], "shift: a per-channel list needs one value per output channel (got none)"),
    ([7] * 23 + [32], "epilogue: shift 32 of output channel 23 out of range 0..31"),
    ("7", "shift: expected an int or a list of ints, one per output channel"),
])
def test_conv2d_bad_per_channel_shifts_are_named(shift, words):
    with pytest.raises(Exception, match=re.escape(words)):
        vtasim.conv2d("pynq", c=16, h=6, w=6, k=24, shift=shift, backend="fsim")


def test_conv2d_counters_follow_the_upstream_rules():
    # 1x1 conv, 16->16 channels, 4x4: one GEMM micro-op per output pixel (block 16)
    r = vtasim.conv2d("pynq", c=16, h=4, w=4, k=16, kernel=1, pad=0, backend="fsim")
    assert r["stats"]["gemm_counter"] == 16
    assert r["stats"]["out_store_nbytes"] == 16 * 16


def test_matmul_matches_numpy(rng):
    a = rng.integers(-128, 128, size=(20, 40), dtype=np.int8)
    b = rng.integers(-128, 128, size=(40, 24), dtype=np.int8)
    r = vtasim.matmul("pynq", a, b, shift=7, relu=True, backend="fsim")
    acc = a.astype(np.int64) @ b.astype(np.int64)
    expected = (np.maximum(acc >> 7, 0) & 0xFF).astype(np.uint8).view(np.int8)
    assert np.array_equal(r["output"], expected)


def test_bad_shapes_and_dtypes_name_the_argument():
    with pytest.raises(vtasim.Error, match="x: has 10 elements"):
        vtasim.conv2d("pynq", c=16, h=4, w=4, k=16, x=np.zeros(10, dtype=np.int8))
    with pytest.raises(vtasim.Error, match="weights: dtype float64 is not int8"):
        vtasim.conv2d("pynq", c=16, h=4, w=4, k=16, kernel=1, weights=np.zeros((16, 16, 1, 1)))
    with pytest.raises(vtasim.Error, match="matching K"):
        vtasim.matmul("pynq", np.zeros((4, 5), np.int8), np.zeros((6, 4), np.int8))
    with pytest.raises(vtasim.Error):
        vtasim.conv2d("pynq", c=0)


def test_schedules_and_an_explicit_schedule():
    cands = vtasim.schedules("pynq", layer="resnet18.C8", count=3)
    assert 1 <= len(cands) <= 3
    # Ranked by score = estimated cycles + a share of the DRAM traffic's cycles.
    assert cands[0]["score"] <= cands[-1]["score"]
    assert all(c["score"] >= c["est_cycles"] and c["est_bytes"] > 0 for c in cands)
    s = {k: cands[0][k] for k in ("tile_h", "tile_w", "tile_oc_blocks", "tile_ic_blocks",
                                  "threads")}
    r = vtasim.conv2d("pynq", layer="resnet18.C8", schedule=s, backend="fsim")
    assert r["schedule"]["tile_h"] == s["tile_h"]
    with pytest.raises(vtasim.Error, match="schedule"):
        vtasim.conv2d("pynq", layer="resnet18.C8", schedule=42)


def test_network_json_gives_a_layer_table():
    net = vtasim.network(os.path.join(SOURCE_DIR, "compiler", "networks", "tiny_resnet.json"),
                         "pynq", backend="fsim")
    assert len(net["layers"]) >= 2
    assert all(layer["mismatches"] == 0 for layer in net["layers"])
    rows = vtasim.layer_table(net)
    assert rows[0]["name"] == net["layers"][0]["name"]
    assert "stats.gemm_counter" in rows[0]
    assert net["output"].dtype == np.int8


def test_network_at_int16_lanes_returns_its_int32_tensor():
    path = os.path.join(SOURCE_DIR, "compiler", "networks", "tiny_resnet.json")
    wide = vtasim.network(path, "pynq_int16", backend="fsim")
    narrow = vtasim.network(path, "pynq", backend="fsim")
    assert all(layer["mismatches"] == 0 for layer in wide["layers"])
    out = wide["output"]
    assert out.dtype == np.int32 and out.size == narrow["output"].size > 0
    assert out.min() >= -32768 and out.max() <= 32767


def test_bad_network_file():
    with pytest.raises(vtasim.Error):
        vtasim.network("/nonexistent/net.json", "pynq", backend="fsim")


def test_runs_release_the_gil():
    ticks = []
    done = threading.Event()

    def spin():
        while not done.is_set():
            ticks.append(1)
            time.sleep(0.001)

    t = threading.Thread(target=spin)
    t.start()
    try:
        vtasim.conv2d("pynq", layer="resnet18.C8", backend="cycle")
    finally:
        done.set()
        t.join()
    assert len(ticks) > 3  # the other thread ran while the simulation did


@pytest.mark.parametrize("backends", [("fsim", "fsim"), ("cycle", "fsim"), ("cycle", "cycle")])
def test_two_threads_run_two_designs_at_the_same_time(rng, backends):
    # Each call has its own runtime: two designs on two threads give what they give alone.
    x = rng.integers(-128, 128, size=(1, 32, 9, 7), dtype=np.int8)
    w = rng.integers(-128, 128, size=(24, 32, 3, 3), dtype=np.int8)
    designs = [("pynq", backends[0]), ("block32", backends[1])]

    def run(config, backend):
        return vtasim.conv2d(config, c=32, h=9, w=7, k=24, kernel=3, stride=1, pad=1, x=x,
                             weights=w, shift=6, clip=(-100, 90), backend=backend)

    alone = [run(*d) for d in designs]
    results, errors = [[], []], []

    def worker(i):
        try:
            for _ in range(3):
                results[i].append(run(*designs[i]))
        except Exception as e:  # reported on the main thread
            errors.append(e)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    expected = ref_conv2d(x, w, stride=1, pad=1, shift=6, lo=-100, hi=90)
    for i in range(2):
        assert len(results[i]) == 3
        for r in results[i]:
            assert np.array_equal(r["output"], expected)
            assert r["cycles"] == alone[i]["cycles"]
            assert r["stats"] == alone[i]["stats"]


def test_ctrl_c_stops_a_network_between_layers():
    threading.Timer(0.2, _thread.interrupt_main).start()
    with pytest.raises(KeyboardInterrupt):
        # One run can finish in less than the timer's 0.2 s: the interruption lands in one of
        # these calls, never after the loop (which would take minutes).
        for _ in range(1000):
            vtasim.network("resnet18", "pynq", backend="fsim", check=False)
    # the simulator is usable afterwards
    r = vtasim.conv2d("pynq", c=16, h=4, w=4, k=16, kernel=1, pad=0, backend="fsim")
    assert r["mismatches"] == 0


@pytest.mark.parametrize("backend", ["fsim", "cycle"])
def test_conv2d_at_int4_lanes_clips_to_the_int4_range(rng, backend):
    # int4 x int4 -> int16 (configs/pynq_int4.json): |acc| <= 32*9*64 + 2000 < 2^15 never wraps,
    # so the int32 numpy reference with the clip narrowed to int4's [-8, 7] is the answer.
    x = rng.integers(-8, 8, size=(1, 32, 9, 7), dtype=np.int8)
    w = rng.integers(-8, 8, size=(24, 32, 3, 3), dtype=np.int8)
    b = rng.integers(-2000, 2000, size=24, dtype=np.int32)
    r = vtasim.conv2d("pynq_int4", c=32, h=9, w=7, k=24, kernel=3, stride=2, pad=1, x=x,
                      weights=w, bias_values=b, shift=4, clip=(-100, 90), backend=backend)
    expected = ref_conv2d(x, w, stride=2, pad=1, bias=b, shift=4, lo=-8, hi=7)
    assert np.array_equal(r["output"], expected)
    assert r["mismatches"] == 0 and r["checked"]
    with pytest.raises(vtasim.Error, match="input value 8 at index 0 does not fit a 4-bit lane"):
        x[0, 0, 0, 0] = 8
        vtasim.conv2d("pynq_int4", c=32, h=9, w=7, k=24, x=x, weights=w, backend="fsim")
