#!/usr/bin/python3
"""Attention's two products (Q K^T, A V) on VTA or the host: one encoder block, measured.

    /usr/bin/python3 scripts/attention_vta.py [--tokens 128] [--dim 128] [--heads 2]
        [--configs pynq,block32] [--backend cycle] [--seed 16] [--out DIR]

Builds a pre-norm transformer encoder block in torch (seeded weights; the block of
tests/frontend/test_frontend.py's sequence tests), exports it to ONNX and runs `vtasim network`
on each config: prints each batch_matmul layer's placement (VTA's estimate with the host's
repacking of B against the host model's time), its cycles on VTA when it runs there, and the
model's end-to-end line (VTA + host, serial).
"""
import argparse
import json
import math
import os
import subprocess
import sys

import torch
import torch.nn.functional as F

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class EncoderBlock(torch.nn.Module):
    def __init__(self, d, heads, seq):
        super().__init__()
        self.d, self.heads, self.seq, self.dh = d, heads, seq, d // heads
        self.ln1, self.ln2 = torch.nn.LayerNorm(d), torch.nn.LayerNorm(d)
        self.q, self.k, self.v, self.o = (torch.nn.Linear(d, d) for _ in range(4))
        self.fc1, self.fc2 = torch.nn.Linear(d, 2 * d), torch.nn.Linear(2 * d, d)

    def split(self, t):
        return t.reshape(-1, self.seq, self.heads, self.dh).transpose(1, 2)

    def forward(self, x):
        h = self.ln1(x)
        q, k, v = self.split(self.q(h)), self.split(self.k(h)), self.split(self.v(h))
        a = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(self.dh), -1)
        o = (a @ v).transpose(1, 2).reshape(-1, self.seq, self.d)
        x = x + self.o(o)
        return x + self.fc2(F.gelu(self.fc1(self.ln2(x))))


def vtasim(args, *extra):
    cmd = [args.vtasim, "network", args.model, "--backend", args.backend] + list(extra)
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"attention_vta: {' '.join(cmd)} failed:\n{p.stdout}\n{p.stderr}")
    return p.stdout


def report(args, config):
    placed = [line.strip() for line in vtasim(args, "--config", config, "--print-after",
                                              "place").splitlines()
              if "= batch_matmul(" in line]
    path = os.path.join(args.out, f"attention.{config}.json")
    out = vtasim(args, "--config", config, "--quiet", "--json", path)
    with open(path) as f:
        rep = json.load(f)
    print(f"{config} ({args.backend}):")
    for line in placed:
        name = line.split(" = ")[0]
        where = line.split(" placed=")[1]
        runs = [l for l in rep["layers"] if "%" + l["name"].lstrip("/") == name.replace("%/", "%")]
        cycles = f", measured {runs[0]['cycles']} cycles" if runs else ""
        print(f"  {name}: {where}{cycles}")
    print("  " + next(l.strip() for l in out.splitlines() if "end to end (serial" in l))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tokens", type=int, default=128)
    ap.add_argument("--dim", type=int, default=128)
    ap.add_argument("--heads", type=int, default=2)
    ap.add_argument("--configs", default="pynq,block32")
    ap.add_argument("--backend", default="cycle")
    ap.add_argument("--seed", type=int, default=16)
    ap.add_argument("--out", default="attention_vta")
    ap.add_argument("--vtasim", default=os.path.join(ROOT, "build", "vtasim"))
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    torch.manual_seed(args.seed)
    net = EncoderBlock(args.dim, args.heads, args.tokens).eval()
    args.model = os.path.join(args.out, "attention.onnx")
    torch.onnx.export(net, torch.randn(1, args.tokens, args.dim), args.model, opset_version=13)
    print(f"encoder block: {args.tokens} tokens, {args.dim} features, {args.heads} heads, "
          f"seed {args.seed}")
    for config in args.configs.split(","):
        report(args, config)


if __name__ == "__main__":
    main()
