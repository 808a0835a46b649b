import os

import numpy as np
import pytest

SOURCE_DIR = os.environ.get("VTA_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))


@pytest.fixture
def rng(request):
    """A seeded generator; the seed is printed so a failure can be replayed."""
    seed = abs(hash(request.node.name)) % (2**31)
    print(f"seed {seed}")
    return np.random.default_rng(seed)


def ref_conv2d(x, w, stride, pad, bias=None, shift=0, lo=None, hi=None):
    """Plain numpy conv2d with VTA's epilogue: int32 accumulate, + bias, arithmetic >> shift,
    max(lo), min(hi), then the low 8 bits (the STORE truncates)."""
    n, c, h, wd = x.shape
    k, _, kh, kw = w.shape
    xp = np.zeros((n, c, h + 2 * pad, wd + 2 * pad), dtype=np.int64)
    xp[:, :, pad:pad + h, pad:pad + wd] = x
    oh = (h + 2 * pad - kh) // stride + 1
    ow = (wd + 2 * pad - kw) // stride + 1
    acc = np.zeros((n, k, oh, ow), dtype=np.int64)
    for dy in range(kh):
        for dx in range(kw):
            win = xp[:, :, dy:dy + stride * oh:stride, dx:dx + stride * ow:stride]
            acc += np.einsum("nchw,kc->nkhw", win, w[:, :, dy, dx].astype(np.int64))
    if bias is not None:
        acc += bias.astype(np.int64)[None, :, None, None]
    acc >>= shift
    if lo is not None:
        acc = np.maximum(acc, lo)
    if hi is not None:
        acc = np.minimum(acc, hi)
    return (acc & 0xFF).astype(np.uint8).view(np.int8)
