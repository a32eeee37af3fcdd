"""``s4tf.<name>`` is every name of ``s4tf.__all__``; the NumPy-style functions are listed
once, in ``numpy_api.__all__``, and ``s4tf`` exports each of them."""

import s4tf
from s4tf.arrays import numpy_api


def test_every_public_name_is_exported_once():
    assert len(set(s4tf.__all__)) == len(s4tf.__all__)
    assert [name for name in s4tf.__all__ if not hasattr(s4tf, name)] == []


def test_the_numpy_style_functions_are_numpy_apis():
    assert set(numpy_api.__all__) <= set(s4tf.__all__)
    assert [name for name in numpy_api.__all__ if getattr(s4tf, name) is not getattr(numpy_api, name)] == []
