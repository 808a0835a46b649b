"""What the sweep CLI checks share: running vtasim with an expected exit status, writing a spec
into the work folder, failing with a message."""
import json
import os
import subprocess
import sys


class SweepCli:
    def __init__(self, vtasim, work):
        self.vtasim_path = vtasim
        self.work = work

    def run(self, args, status=0):
        p = subprocess.run([self.vtasim_path] + args, capture_output=True, text=True)
        if p.returncode != status:
            fail("vtasim %s exited %d (expected %d)\nstdout: %s\nstderr: %s"
                 % (" ".join(args), p.returncode, status, p.stdout, p.stderr))
        return p

    def write_spec(self, name, spec):
        path = os.path.join(self.work, name)
        with open(path, "w") as f:
            json.dump(spec, f)
        return path


def fail(msg):
    sys.exit("FAIL: " + msg)
