"""Sweeps from Python: vtasim.sweep runs a spec into a SQLite database (resumable), and
vtasim.sweep_results / sweep_dataframe read it back; the rows are checked with Python's own
sqlite3 module and against running the same design point directly."""
import _thread
import json
import sqlite3
import threading
import time

import pytest

import vtasim

CONV = dict(c=32, h=8, w=8, k=32, kernel=3, pad=1)


def write_spec(tmp_path, name, **spec):
    path = tmp_path / name
    path.write_text(json.dumps(spec))
    return str(path)


def test_sweep_rows_resume_and_direct_run(tmp_path):
    spec = write_spec(tmp_path, "s.json", base="pynq", axes={"LOG_BUS_WIDTH": [6, 7]},
                      points=[{"LOG_BLOCK": 3}], backend="cycle",
                      workloads=["conv2d:c=32,hw=8,k=32,kernel=3,pad=1"])
    db = str(tmp_path / "s.sqlite")
    r = vtasim.sweep(spec, db, jobs=2)
    assert (r["points"], r["jobs"], r["ran"], r["ok"], r["invalid"], r["failed"]) == \
        (3, 3, 3, 2, 1, 0)
    rows = vtasim.sweep_results(db)
    with sqlite3.connect(db) as con:
        assert con.execute("SELECT count(*) FROM results").fetchone()[0] == len(rows) == 5
    summaries = [x for x in rows if x["row_kind"] == "summary"]
    assert [x["status"] for x in summaries] == ["ok", "ok", "invalid"]
    assert "GEMM instruction needs" in summaries[2]["error"]
    for row in summaries[:2]:
        cfg = vtasim.Config("pynq", LOG_BUS_WIDTH=row["LOG_BUS_WIDTH"])
        direct = vtasim.conv2d(cfg, backend="cycle", **CONV)
        assert row["cycles"] == direct["cycles"]
    again = vtasim.sweep(spec, db, jobs=2)
    assert (again["ran"], again["skipped"]) == (0, 3)
    assert vtasim.sweep_results(db) == rows


def test_sweep_errors(tmp_path):
    bad = write_spec(tmp_path, "bad.json", base="pynq", axes={"NOPE": [1]},
                     workloads=["matmul:16x16x16"])
    with pytest.raises(vtasim.Error, match="axis 'NOPE': not a config key"):
        vtasim.sweep(bad, str(tmp_path / "x.sqlite"))
    good = write_spec(tmp_path, "good.json", base="pynq", workloads=["matmul:16x16x16"])
    with pytest.raises(vtasim.Error, match="must be I/N"):
        vtasim.sweep(good, str(tmp_path / "x.sqlite"), shard="3/2")
    with pytest.raises(vtasim.Error, match="no such file"):
        vtasim.sweep_results(str(tmp_path / "missing.sqlite"))
    # The CLI's limits hold in Python too, before anything is created.
    for timeout in (-5, float("nan"), float("inf")):
        with pytest.raises(vtasim.Error, match="must be a finite number of seconds >= 0"):
            vtasim.sweep(good, str(tmp_path / "t.sqlite"), timeout=timeout)
    with pytest.raises(vtasim.Error, match="jobs = 5000 is out of range 0..1024"):
        vtasim.sweep(good, str(tmp_path / "t.sqlite"), jobs=5000)
    assert not (tmp_path / "t.sqlite").exists()


def test_sweep_constraint_limits_keep_the_interpreter(tmp_path):
    """10,000 nested parentheses or a sum of 40,000 terms overflowed the parser's stack and took
    the interpreter down (issue 26): now a named error, and the interpreter goes on."""
    db = str(tmp_path / "c.sqlite")
    nested = "(" * 10000 + "LOG_BLOCK" + ")" * 10000 + " > 0"
    flat = "LOG_BLOCK" + "+1" * 40000 + " > 0"
    deep = "(" * 1000 + "LOG_BLOCK" + ")" * 1000 + " > 0"
    for expr, words in ((nested, "longer than the limit of 4096"),
                        (flat, "longer than the limit of 4096"),
                        (deep, "nesting deeper than 256")):
        spec = write_spec(tmp_path, "c.json", base="pynq", axes={"LOG_BLOCK": [4]},
                          constraints=[expr], workloads=["matmul:16x16x16"], backend="fsim")
        with pytest.raises(vtasim.Error, match=words):
            vtasim.sweep(spec, db)
    assert vtasim.Config("pynq").block_in == 16  # still alive


def test_resume_reruns_a_changed_schedule_setting(tmp_path):
    """Resume runs a job again when its schedule setting changes (auto, tune:N): the setting is
    part of the job's identity, the rows of each setting kept apart."""
    db = str(tmp_path / "s.sqlite")
    ran = []
    for schedule in ("tune:2", "tune:2", "tune:3", "auto", "tune:3"):
        spec = write_spec(tmp_path, "s.json", base="pynq", backend="fsim", schedule=schedule,
                          workloads=["conv2d:c=16,hw=4,k=16,kernel=3,pad=1"])
        ran.append(vtasim.sweep(spec, db)["ran"])
    assert ran == [1, 0, 1, 1, 0]
    rows = vtasim.sweep_results(db)
    assert sorted({r["schedule"] for r in rows}) == ["auto", "tune:2", "tune:3"]


def _interrupt_after_first_job(db, fired):
    """Ctrl-C as soon as the database holds a finished job (whatever the machine's speed)."""
    while True:
        try:
            con = sqlite3.connect("file:%s?mode=ro" % db, uri=True, timeout=0.1)
            n = con.execute("SELECT COUNT(*) FROM results WHERE row_kind = 'summary'").fetchone()[0]
            con.close()
            if n > 0:
                _thread.interrupt_main()
                fired.set()
                return
        except sqlite3.Error:
            pass  # not created yet, or busy
        time.sleep(0.02)


def test_ctrl_c_stops_a_sweep_and_keeps_finished_jobs(tmp_path):
    points = 40  # whole networks: the sweep is still running when the first job is committed
    spec = write_spec(tmp_path, "slow.json", base="pynq", backend="cycle",
                      axes={"DRAM_READ_LATENCY_CYCLES": {"from": 1, "to": points}},
                      workloads=["network:resnet18"])
    db = str(tmp_path / "slow.sqlite")
    fired = threading.Event()
    interrupter = threading.Thread(target=_interrupt_after_first_job, args=(db, fired), daemon=True)
    interrupter.start()
    with pytest.raises(KeyboardInterrupt):
        vtasim.sweep(spec, db, jobs=1)
    assert fired.is_set()
    interrupter.join()
    kept = {(x["point_id"], x["layer_index"]): x for x in vtasim.sweep_results(db)}
    done = len([k for k in kept if k[1] == -1])
    assert 0 < done < points
    r = vtasim.sweep(spec, db, jobs=2)
    assert (r["ran"], r["skipped"], r["ok"]) == (points - done, done, points)
    after = {(x["point_id"], x["layer_index"]): x for x in vtasim.sweep_results(db)}
    assert all(after[k] == v for k, v in kept.items())


def test_sweep_dataframe(tmp_path):
    pandas = pytest.importorskip("pandas")
    spec = write_spec(tmp_path, "s.json", base="pynq", workloads=["matmul:16x16x16"],
                      backend="fsim")
    db = str(tmp_path / "s.sqlite")
    vtasim.sweep(spec, db)
    df = vtasim.sweep_dataframe(db)
    assert isinstance(df, pandas.DataFrame) and len(df) == 2
