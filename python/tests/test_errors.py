"""A value of the wrong type met inside a call is vtasim.Error naming the types, not pybind's
bare RuntimeError (a layer name that is a number, a pad that is a string)."""
import pytest

import vtasim


@pytest.mark.parametrize("kwargs", [dict(layer=5), dict(pad="x")])
def test_wrong_argument_type_is_vtasim_error(kwargs):
    with pytest.raises(vtasim.Error) as e:
        vtasim.conv2d("pynq", backend="fsim", **kwargs)
    msg = str(e.value)
    assert msg.startswith("an argument has the wrong type: Unable to cast Python instance of "
                          "type <class '%s'>" % type(next(iter(kwargs.values()))).__name__), msg


def test_tensor_size_limits_hold_in_python(tmp_path):
    """The size limits of the CLI hold for Python calls, before anything is allocated: a
    conv2d's tensors (1 GiB of simulated DRAM per layer) and a network file's input."""
    with pytest.raises(vtasim.Error, match="more than the 1024 MiB a layer may use"):
        vtasim.conv2d("pynq", c=16, h=40960, w=40960, backend="fsim")
    net = tmp_path / "huge.json"
    net.write_text('{"name": "h", "input": {"name": "data", "n": 1, "c": 16, "h": 40960, '
                   '"w": 40960}, "layers": [{"name": "a", "op": "conv2d", "input": "data", '
                   '"k": 16, "kernel": 1}]}')
    with pytest.raises(vtasim.Error, match="input 1x16x40960x40960 is larger than 1024 MiB"):
        vtasim.network(str(net), backend="fsim")
