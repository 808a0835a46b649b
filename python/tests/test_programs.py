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
