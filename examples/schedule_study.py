"""Schedule study of one layer: the compiler's best-estimated schedules for ResNet-18 C8, each
run on the cycle-accurate backend, estimated vs measured cycles and the DRAM bytes moved.

    PYTHONPATH=build/python /usr/bin/python3 examples/schedule_study.py [COUNT]
"""
import sys

import vtasim

count = int(sys.argv[1]) if len(sys.argv) > 1 else 6
cfg = vtasim.Config("pynq")
print(f"{'schedule':24} {'est cycles':>12} {'measured cycles':>16} {'MB moved':>9}")
for s in vtasim.schedules(cfg, layer="resnet18.C8", count=count):
    sched = {k: s[k] for k in ("tile_h", "tile_w", "tile_oc_blocks", "tile_ic_blocks", "threads")}
    r = vtasim.conv2d(cfg, layer="resnet18.C8", schedule=sched, backend="cycle")
    name = "h{tile_h} w{tile_w} oc{tile_oc_blocks} ic{tile_ic_blocks} vt{threads}".format(**sched)
    print(f"{name:24} {s['est_cycles']:12.0f} {r['cycles']:16d} {r['bytes_moved'] / 1e6:9.2f}")
