"""Runs `vtasim network` with --trace, --vcd and --json on the cycle backend and checks the trace
as a trace viewer reads it (Chrome trace event format): valid JSON, the required fields of every
event, time stamps non-decreasing per track, no overlapping complete events on one track, every
flow start with its end; one named slice per VTA layer (and per tuning candidate) on top-level
tracks, laid end to end, each with its counters; every instruction span says why it waited. The
VCD goes through the independent VCD checker (vcd2fst round trip).

usage: check_network_trace.py VTASIM VCD_CHECK NETWORK.json WORKDIR
"""
import json
import subprocess
import sys
from collections import defaultdict

REQUIRED = {"X": ("name", "pid", "tid", "ts", "dur"), "s": ("name", "pid", "tid", "ts", "id"),
            "f": ("name", "pid", "tid", "ts", "id"), "M": ("name", "pid", "args")}
EPS = 1e-6  # microseconds; time stamps are cycles / CLOCK_MHZ


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def check_events(events):
    by_track = defaultdict(list)
    flows = defaultdict(list)
    track_names = {}
    for e in events:
        ph = e.get("ph")
        if ph not in REQUIRED:
            fail("unexpected event phase %r in %r" % (ph, e))
        for key in REQUIRED[ph]:
            if key not in e:
                fail("event %r lacks %r" % (e, key))
        if ph == "M":
            if e["name"] == "thread_name":
                track_names[e["tid"]] = e["args"]["name"]
            continue
        by_track[e["tid"]].append(e)
        if ph in "sf":
            flows[e["id"]].append(ph)
    for tid, evs in by_track.items():
        for a, b in zip(evs, evs[1:]):
            if b["ts"] + EPS < a["ts"]:
                fail("track %s: time goes back from %s to %s" % (track_names.get(tid), a, b))
        spans = sorted((e for e in evs if e["ph"] == "X"), key=lambda e: e["ts"])
        for a, b in zip(spans, spans[1:]):
            if a["ts"] + a["dur"] > b["ts"] + EPS:
                fail("track %s: %r overlaps %r" % (track_names.get(tid), a["name"], b["name"]))
    for fid, phs in flows.items():
        if sorted(phs) != ["f", "s"]:
            fail("flow %s has events %s" % (fid, phs))
    return by_track, track_names


def slices_on(by_track, track_names, name):
    tids = [t for t, n in track_names.items() if n == name]
    if len(tids) != 1:
        fail("expected one track named %r, found %d" % (name, len(tids)))
    return [e for e in by_track[tids[0]] if e["ph"] == "X"]


def main():
    vtasim, vcd_check, network, work = sys.argv[1:5]
    trace, vcd, report = work + "/net_trace.json", work + "/net_trace.vcd", work + "/net.json"
    subprocess.run([vtasim, "network", network, "--backend", "cycle", "--quiet", "--tune", "2",
                    "--trace", trace, "--vcd", vcd, "--json", report], check=True,
                   stdout=subprocess.DEVNULL)
    with open(trace) as f:
        doc = json.load(f)
    by_track, names = check_events(doc["traceEvents"])
    with open(report) as f:
        rep = json.load(f)
    layers = [l["name"] for l in rep["layers"]]
    slices = slices_on(by_track, names, "layers")
    if [s["name"] for s in slices] != layers:
        fail("layer slices %s, report layers %s" % ([s["name"] for s in slices], layers))
    for s, l in zip(slices, rep["layers"]):
        if s["args"]["counters"]["gemm_counter"] != l["stats"]["gemm_counter"]:
            fail("slice %s: counters differ from the report" % s["name"])
    candidates = slices_on(by_track, names, "candidates")
    convs = sum(1 for l in rep["layers"] if l["kind"] == "conv2d")
    if len(candidates) < convs:
        fail("%d candidate slices for %d convolutions" % (len(candidates), convs))
    insn = [e for tid in (1, 2, 3) for e in by_track[tid] if e["ph"] == "X"]
    for e in insn:
        if "waited" not in e["args"] or "mem_stall_cycles" not in e["args"]:
            fail("instruction span %r lacks its wait args" % e["name"])
    last_end = max(e["ts"] + e["dur"] for e in insn)
    if slices[-1]["ts"] + slices[-1]["dur"] + EPS < last_end:
        fail("the last layer slice ends before the last instruction")
    subprocess.run([vcd_check, vcd], check=True)
    print("trace ok: %d events, %d layer slices, %d candidate slices, %d instruction spans"
          % (len(doc["traceEvents"]), len(slices), len(candidates), len(insn)))
    # One tuned layer: its slice and one slice per candidate, one after the other.
    subprocess.run([vtasim, "conv2d", "--c", "16", "--h", "8", "--w", "8", "--k", "16", "--tune",
                    "3", "--backend", "cycle", "--trace", trace], check=True,
                   stdout=subprocess.DEVNULL)
    with open(trace) as f:
        by_track, names = check_events(json.load(f)["traceEvents"])
    layer = slices_on(by_track, names, "layers")
    tried = slices_on(by_track, names, "candidates")
    if len(layer) != 1 or len(tried) != 3:
        fail("conv2d --tune 3: %d layer and %d candidate slices" % (len(layer), len(tried)))
    if abs(layer[0]["dur"] - sum(c["dur"] for c in tried)) > 1e-3:
        fail("conv2d --tune 3: the layer slice does not cover exactly its candidates")
    print("conv2d --tune 3 trace ok")


main()
