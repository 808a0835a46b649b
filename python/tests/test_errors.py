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
