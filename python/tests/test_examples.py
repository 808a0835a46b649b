import os
import subprocess
import sys

from conftest import SOURCE_DIR

EXAMPLES = os.path.join(SOURCE_DIR, "examples")


def run_example(name, *args):
    out = subprocess.run([sys.executable, os.path.join(EXAMPLES, name), *args], check=True,
                         capture_output=True, text=True, env=os.environ.copy())
    return out.stdout


def test_schedule_study_example():
    out = run_example("schedule_study.py", "3")
    assert "measured cycles" in out
    assert len([l for l in out.splitlines() if l.startswith("h")]) == 3


def test_design_sweep_example(tmp_path):
    png = tmp_path / "sweep.png"
    out = run_example("design_sweep.py", str(png), "quick")
    assert png.exists() and png.stat().st_size > 1000
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "LOG_BLOCK" in out
