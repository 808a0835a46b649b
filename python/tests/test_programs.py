import _thread
import struct
import threading

import pytest
import vtasim


def test_dump_load_disassemble_and_run(tmp_path):
    path = str(tmp_path / "c.vtaprog")
    layer = vtasim.conv2d("pynq", c=32, h=6, w=6, k=32, backend="cycle", dump_program=path)
    prog = vtasim.Program.load(path)
    assert prog.insn_count > 0
    assert prog.config == vtasim.Config("pynq")
    lines = prog.disassemble()
    assert len(lines) == prog.insn_count
    assert lines[-1].startswith("FINISH")
    assert len(prog.disassemble(limit=3)) == 3
    again = prog.run("cycle")
    assert again["status"] == "ok"
    assert again["cycles"] == layer["cycles"]  # same program, same design: same cycles
    functional = prog.run("fsim")
    assert functional["stats"]["gemm_counter"] == layer["stats"]["gemm_counter"]


def test_bad_program_file(tmp_path):
    bad = tmp_path / "bad.vtaprog"
    bad.write_bytes(b"not an image")
    with pytest.raises(vtasim.Error, match="bad.vtaprog"):
        vtasim.Program.load(str(bad))
    with pytest.raises(vtasim.Error):
        vtasim.Program.load(str(tmp_path / "missing.vtaprog"))


def _insn_offset(data, index):
    """File offset of instruction `index` in a program image (program_image.cc's layout)."""
    pos = 8 + 4  # magic, version
    insn_phys, _count, cfg_len = struct.unpack_from("<III", data, pos)
    pos += 12 + cfg_len
    (nseg,) = struct.unpack_from("<I", data, pos)
    pos += 4
    for _ in range(nseg):
        phys, size = struct.unpack_from("<II", data, pos)
        pos += 8
        at = insn_phys + 16 * index
        if phys <= at < phys + size:
            return pos + at - phys
        pos += size
    raise AssertionError("instruction %d outside the image's segments" % index)


def _never_finishing_program(tmp_path):
    """A small conv2d whose first GEMM (a reset) loops 16383 x 16383 x 8191 times: 2.2e12
    micro-ops, hours of work on any backend. Fields of pynq's GEMM encoding (hw_spec.h)."""
    path = str(tmp_path / "small.vtaprog")
    vtasim.conv2d("pynq", c=16, h=4, w=4, k=16, backend="fsim", dump_program=path)
    lines = vtasim.Program.load(path).disassemble()
    index = next(k for k, line in enumerate(lines) if line.startswith("GEMM") and "reset=1" in line)
    data = bytearray(open(path, "rb").read())
    off = _insn_offset(data, index)
    word = int.from_bytes(data[off:off + 16], "little")
    # (low bit, width, value): uop_bgn, uop_end, iter_out, iter_in, dst_factor_out/in
    for lo, width, value in ((8, 13, 0), (21, 14, 8191), (35, 14, 16383), (49, 14, 16383),
                             (64, 11, 0), (75, 11, 0)):
        word = (word & ~(((1 << width) - 1) << lo)) | (value << lo)
    data[off:off + 16] = word.to_bytes(16, "little")
    huge = tmp_path / "huge.vtaprog"
    huge.write_bytes(bytes(data))
    prog = vtasim.Program.load(str(huge))
    assert "uop_end=8191 iter_out=16383 iter_in=16383" in prog.disassemble()[index]
    return prog, vtasim.Program.load(path)


@pytest.mark.parametrize("backend", ["fsim", "cycle"])
def test_budget_stops_a_never_finishing_program(tmp_path, backend):
    huge, small = _never_finishing_program(tmp_path)
    with pytest.raises(vtasim.Error, match="did not finish within wait_cycles=1000000"):
        huge.run(backend, wait_cycles=1000000)
    assert small.run(backend, wait_cycles=1000000)["status"] == "ok"  # enough for the real one


@pytest.mark.parametrize("backend", ["fsim", "cycle"])
def test_ctrl_c_stops_a_never_finishing_run(tmp_path, backend):
    huge, small = _never_finishing_program(tmp_path)
    timer = threading.Timer(0.2, _thread.interrupt_main)
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        huge.run(backend)  # no budget: only Ctrl-C ends it
    timer.join()
    expected = small.run(backend)
    assert expected["status"] == "ok" and expected["outputs_match"]  # the module still works
