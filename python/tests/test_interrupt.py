"""Ctrl-C inside one long layer (issue 26): a real SIGINT sent to a Python process that runs a
single big layer (conv2d, or a network of one layer) raises KeyboardInterrupt from inside the
layer and the process exits cleanly. The layer runs on the rtl backend, where one layer takes
long enough to be sure the signal arrives inside it (about 7 M cycles, over 10 s uninterrupted;
the cycle backend simulates it in a fraction of a second, and its stop check inside a run is
tested by test_programs.py's never-finishing program). The child reports what happened on
stdout; the bound on the wait only turns a run that ignores the signal into a failure instead of
a hung suite.
"""
import json
import signal
import subprocess
import sys
import textwrap

import pytest

import vtasim

# 7.3 M cycles on pynq; nothing of it is checked.
BIG = dict(c=256, h=56, w=56, k=256, kernel=3, pad=1)
HANG_BOUND_S = 120  # generous: the stop check is asked every 2^20 cycles

# The child: a thread says "running" once the main thread is inside the call (the call holds no
# GIL), so the signal cannot come before it.
CHILD = textwrap.dedent("""
    import json, sys, threading, time
    import vtasim
    call, arg = sys.argv[1], json.loads(sys.argv[2])
    inside = threading.Event()
    def announce():
        inside.wait()
        time.sleep(0.5)
        print("running", flush=True)
    threading.Thread(target=announce, daemon=True).start()
    try:
        inside.set()
        if call == "conv2d":
            vtasim.conv2d("pynq", backend="rtl", check=False, **arg)
        else:
            vtasim.network(arg, "pynq", backend="rtl", check=False)
        print("finished", flush=True)
    except KeyboardInterrupt:
        # the module still works after the interrupt
        r = vtasim.conv2d("pynq", c=16, h=4, w=4, k=16, kernel=1, pad=0, backend="rtl")
        print("interrupted", r["mismatches"], flush=True)
""")


def one_layer_network(path):
    net = {
        "name": "one_big_layer",
        "seed": 3,
        "input": {"name": "data", "n": 1, "c": BIG["c"], "h": BIG["h"], "w": BIG["w"]},
        "layers": [{"name": "big", "op": "conv2d", "input": "data", "k": BIG["k"],
                    "kernel": BIG["kernel"], "pad": BIG["pad"]}],
    }
    path.write_text(json.dumps(net))
    return str(path)


def interrupt_child(call, arg):
    proc = subprocess.Popen([sys.executable, "-c", CHILD, call, json.dumps(arg)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = proc.stdout.readline().strip()
    assert line == "running", line + proc.stderr.read()
    proc.send_signal(signal.SIGINT)
    try:
        out, err = proc.communicate(timeout=HANG_BOUND_S)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        pytest.fail(f"{call}: SIGINT did not stop the layer within {HANG_BOUND_S} s")
    return proc.returncode, out, err


@pytest.mark.skipif("rtl" not in vtasim.backends(), reason="no rtl backend in this build")
@pytest.mark.parametrize("call", ["conv2d", "network"])
def test_sigint_stops_a_long_layer(tmp_path, call):
    arg = BIG if call == "conv2d" else one_layer_network(tmp_path / "net.json")
    code, out, err = interrupt_child(call, arg)
    assert code == 0, err
    assert out.split() == ["interrupted", "0"], out + err
