"""NumPy-style operators and methods on :class:`s4tf.Tensor` (and so on tracers).

```python
y = (x @ w + b).T.reshape(-1)[:3] * 2 ** x.sum(axis=0, keepdims=True)
```

Each operator calls the ``s4tf.<name>`` function of the same meaning, so staged and
eager code share one definition.
"""

from __future__ import annotations

from s4tf import indexing
from s4tf import numpy_api as np_api
from s4tf.tensor import Tensor


def _swapped(function):
    return lambda self, other: function(other, self)


_BINARY = {
    "add": np_api.add,
    "sub": np_api.subtract,
    "mul": np_api.multiply,
    "truediv": np_api.divide,
    "floordiv": np_api.floor_divide,
    "mod": np_api.remainder,
    "pow": np_api.power,
    "matmul": np_api.matmul,
    "and": np_api.bitwise_and,
    "or": np_api.bitwise_or,
}
_COMPARISONS = {
    "eq": np_api.equal,
    "ne": np_api.not_equal,
    "lt": np_api.less,
    "le": np_api.less_equal,
    "gt": np_api.greater,
    "ge": np_api.greater_equal,
}


def _reshape(self, *shape):
    return np_api.reshape(self, *shape)


def attach() -> None:
    """Give :class:`Tensor` its operators; called once when ``s4tf`` is imported."""
    for name, function in _BINARY.items():
        setattr(Tensor, f"__{name}__", function)
        setattr(Tensor, f"__r{name}__", _swapped(function))
    for name, function in _COMPARISONS.items():
        setattr(Tensor, f"__{name}__", function)
    Tensor.__hash__ = object.__hash__  # tensors stay usable as dict keys despite __eq__
    Tensor.__neg__ = np_api.negative
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
