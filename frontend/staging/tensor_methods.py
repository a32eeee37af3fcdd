"""NumPy-style operators and methods on :class:`s4tf.Tensor` (and so on tracers).

```python
y = (x @ w + b).T.reshape(-1)[:3] * 2 ** x.sum(axis=0, keepdims=True)
```

Each operator calls the ``s4tf.<name>`` function of the same meaning, so staged and
eager code share one definition; arithmetic and comparisons come with
:class:`s4tf.dialects.composition.ArrayValue`, the base of every tensor value.
"""

from __future__ import annotations

from s4tf.arrays import indexing
from s4tf.arrays import numpy_api as np_api
from s4tf.staging.tensor import Tensor


def _swapped(function):
    return lambda self, other: function(other, self)


_BINARY = {
    "floordiv": np_api.floor_divide,
    "mod": np_api.remainder,
    "matmul": np_api.matmul,
    "and": np_api.bitwise_and,
    "or": np_api.bitwise_or,
}


def _reshape(self, *shape):
    """``x.reshape(2, 3)`` or ``x.reshape((2, 3))``, as NumPy's method."""
    return np_api.reshape(self, shape[0] if len(shape) == 1 else shape)


def attach() -> None:
    """Give :class:`Tensor` its operators; called once when ``s4tf`` is imported."""
    for name, function in _BINARY.items():
        setattr(Tensor, f"__{name}__", function)
        setattr(Tensor, f"__r{name}__", _swapped(function))
    Tensor.__pos__ = lambda self: self
    Tensor.__abs__ = np_api.abs
    Tensor.__invert__ = np_api.invert
    Tensor.__getitem__ = indexing.getitem
    Tensor.__setitem__ = indexing.no_setitem
    Tensor.at = property(indexing.at)
    Tensor.T = property(np_api.transpose)
    Tensor.reshape = _reshape
    Tensor.transpose = np_api.transpose
    Tensor.astype = np_api.astype
    Tensor.sum = np_api.sum
    Tensor.mean = np_api.mean
    Tensor.max = np_api.max
    Tensor.min = np_api.min
    Tensor.argmax = np_api.argmax
