"""Python results carry what the CLI's reports have: time at the design's clock, the bound
ratio, energy and area with the verdict on the config's board."""
import pytest

import vtasim


def test_conv2d_result_has_time_energy_area_and_verdict():
    r = vtasim.conv2d("zcu104", c=16, h=4, w=4, k=16, kernel=1, pad=0, backend="cycle")
    assert r["time_s"] == pytest.approx(r["cycles"] / 333e6)  # configs/zcu104.json: 333 MHz
    assert r["cycles_over_bound"] == pytest.approx(r["cycles"] / r["gemm_lower_bound"])
    assert r["energy"]["total_j"] == pytest.approx(sum(r["energy"]["parts"].values()))
    assert r["area"]["device"] == "xczu7ev"
    assert r["area"]["fits"]  # the published 1x16x16 build at its published clock


def test_design_above_the_clock_estimate_is_marked():
    cfg = vtasim.Config("zcu104", LOG_BLOCK=5)
    r = vtasim.conv2d(cfg, c=32, h=4, w=4, k=32, kernel=1, pad=0, backend="fsim")
    v = r["area"]["verdict"]
    assert v["clock_estimate_mhz"] == pytest.approx(333 / 1.2)  # two doublings past 256 MACs
    assert not v["clock_ok"] and not r["area"]["fits"]
    assert r["area"]["extrapolated"] == []  # 1x32x32 is inside the calibration (1x8 to 1x64)
    assert r["time_s"] is None  # fsim has no cycles
