import os

import pytest
import vtasim

from conftest import SOURCE_DIR


def test_preset_and_derived_values():
    cfg = vtasim.Config("pynq")
    keys = cfg.to_dict()
    block = 2 ** keys["LOG_BLOCK"]
    batch = 2 ** keys["LOG_BATCH"]
    assert cfg.block_in == cfg.block_out == block
    assert cfg.derived["peak_macs_per_cycle"] == batch * block * block
    # int8 inputs: a tile is batch x block bytes; the buffer holds 2^LOG_INP_BUFF_SIZE bytes
    assert cfg.inp_buff_depth == 2 ** keys["LOG_INP_BUFF_SIZE"] // (batch * block)
    assert cfg.bus_bytes == 2 ** keys["LOG_BUS_WIDTH"] // 8


def test_file_and_overrides():
    path = os.path.join(SOURCE_DIR, "configs", "small.json")
    small = vtasim.Config(path)
    assert small == vtasim.Config("small")
    wide = vtasim.Config("pynq", LOG_BUS_WIDTH=7)
    assert wide.bus_bytes == 16
    assert wide.replace(LOG_BLOCK=5).block_in == 32


def test_isa_fields_follow_the_layout_rule():
    f = vtasim.Config("pynq").isa_fields
    # the first fields of every instruction: opcode [2:0] and the four dependency flags
    assert f["mem"]["opcode"] == (0, 3)
    assert f["gemm"]["pop_prev_dep"] == (3, 1)
    # uop_bgn follows the flags and reset_reg (8 = 3 + 4 + 1) and has LOG_UOP_BUFF_DEPTH bits
    keys = vtasim.Config("pynq").to_dict()
    assert f["gemm"]["uop_bgn"] == (8, keys["LOG_UOP_BUFF_SIZE"] - 2)


def test_bad_key_value_and_file_name_the_offender():
    with pytest.raises(vtasim.ConfigError, match="LOG_BLOCK"):
        vtasim.Config("pynq", LOG_BLOCK=9)
    with pytest.raises(vtasim.ConfigError, match="NOT_A_KEY"):
        vtasim.Config("pynq", NOT_A_KEY=1)
    with pytest.raises(vtasim.Error, match="nosuchpreset"):
        vtasim.Config("nosuchpreset")
    with pytest.raises(vtasim.Error, match="missing.json"):
        vtasim.Config("/nonexistent/missing.json")


def test_clock_must_be_a_real_number_of_mhz():
    """CLOCK_MHZ=nan was accepted by Python while the CLI rejected it (issue 26)."""
    for bad in (float("nan"), float("inf"), 1e-300, 0.5, 20000):
        with pytest.raises(vtasim.ConfigError, match=r"CLOCK_MHZ.*must be a number of MHz in \[1, 10000\]"):
            vtasim.Config("pynq", CLOCK_MHZ=bad)
    assert vtasim.Config("pynq", CLOCK_MHZ=250.5).to_dict()["CLOCK_MHZ"] == 250.5
