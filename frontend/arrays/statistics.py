"""``s4tf.<name>``: reductions and scans beyond :mod:`s4tf.arrays.numpy_api`'s: ``prod``, ``var``,
``std``, ``all``, ``any``, ``argmin``, ``count_nonzero``, cumulative sums and products,
``diff``.

```python
import numpy as np, s4tf

x = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], np.float32)
np.asarray(s4tf.cumulative_sum(x, axis=1)), np.asarray(s4tf.var(x, axis=0, correction=1))
```

Integer sums and products of integers narrower than s4tf's default integer (int32) are
computed in it, and those of bools too, as the Array API asks.
"""

from __future__ import annotations

from s4tf.dialects.composition import accumulator_dtype
from s4tf.dialects.types import BOOL_DTYPE, is_float
from s4tf.staging.dispatch import apply1
from s4tf.core.errors import DTypeError
from s4tf.core.locations import shape_error
from s4tf.arrays.numpy_api import (  # noqa: A004  (NumPy's names: max, min, sum)
    DEFAULT_INT, _axes, _float_operand, _normalize_axis, _tensor, argmax, astype, concatenate, dtype_of, full,
    invert, logical_not, mean, negative, not_equal, reshape, sqrt, subtract, sum,
)
from s4tf.arrays.numpy_api import max as amax, min as amin  # NumPy's other names of the reductions
from s4tf.arrays.numpy_api import slice as _slice


def prod(x, axis=None, dtype=None, keepdims=False):
    """Product over ``axis`` (all axes when ``None``); the product of nothing is 1."""
    x = _tensor(x)
    x = astype(x, accumulator_dtype(x, dtype))
    return apply1("reduce_prod", x, axes=_axes(axis, len(x.shape)), keepdims=bool(keepdims))


def var(x, axis=None, correction=0.0, keepdims=False, ddof=None):
    """Variance over ``axis``, divided by ``N - correction`` (NumPy's ``ddof``)."""
    x = _float_operand(_tensor(x))
    correction = correction if ddof is None else ddof
    axes = _axes(axis, len(x.shape))
    count = 1
    for a in axes:
        count *= x.shape[a]
    centred = subtract(x, mean(x, axis=axes, keepdims=True))
    squares = sum(centred * centred, axis=axes, keepdims=keepdims)
    return squares / max(count - correction, 0)


def std(x, axis=None, correction=0.0, keepdims=False, ddof=None):
    """Standard deviation: the square root of :func:`var`."""
    return sqrt(var(x, axis=axis, correction=correction, keepdims=keepdims, ddof=ddof))


def _truth(x):
    x = _tensor(x)
    return x if dtype_of(x) == BOOL_DTYPE else not_equal(x, 0)


def all(x, axis=None, keepdims=False):  # noqa: A001  (NumPy's name)
    """Whether every element along ``axis`` is true (nonzero); ``True`` for none."""
    x = _truth(x)
    return apply1("reduce_min", x, axes=_axes(axis, len(x.shape)), keepdims=bool(keepdims))


def any(x, axis=None, keepdims=False):  # noqa: A001  (NumPy's name)
    """Whether some element along ``axis`` is true (nonzero); ``False`` for none."""
    x = _truth(x)
    return apply1("reduce_max", x, axes=_axes(axis, len(x.shape)), keepdims=bool(keepdims))


def count_nonzero(x, axis=None, keepdims=False):
    return sum(astype(_truth(x), DEFAULT_INT), axis=axis, keepdims=keepdims)


def argmin(x, axis=None, keepdims=False, dtype=None):
    """Index of the first minimum (of the first NaN, as NumPy's); ``axis=None`` looks at the
    flattened tensor. Computed as the first maximum of an order-reversing map of ``x``."""
    x = _tensor(x)
    source = dtype_of(x)
    reversed_order = negative(x) if is_float(source) else (logical_not(x) if source == BOOL_DTYPE else invert(x))
    if axis is None and keepdims:
        flat = argmax(reversed_order, axis=None, dtype=dtype or DEFAULT_INT)
        return reshape(flat, (1,) * len(x.shape))
    return argmax(reversed_order, axis=axis, keepdims=keepdims, dtype=dtype or DEFAULT_INT)


def _scan(op_name, x, axis, dtype, include_initial, identity):
    x = _tensor(x)
    if axis is None:
        if len(x.shape) > 1:
            raise shape_error(f"a cumulative {op_name[3:]} of a tensor of rank {len(x.shape)} needs an axis")
        if len(x.shape) == 0:
            x = reshape(x, (1,))
        axis = 0
    axis = _normalize_axis(axis, len(x.shape))
    x = astype(x, accumulator_dtype(x, dtype))
    result = apply1(op_name, x, axis=axis, reverse=False) if x.shape[axis] else x
    if include_initial:
        shape = list(x.shape)
        shape[axis] = 1
        result = concatenate([full(shape, identity, dtype_of(x)), result], axis=axis)
    return result


def cumulative_sum(x, axis=None, dtype=None, include_initial=False):
    """Running sums along ``axis`` (needed unless ``x`` is 1-D); ``include_initial`` puts
    the empty sum, 0, first."""
    return _scan("cumsum", x, axis, dtype, include_initial, 0)


def cumulative_prod(x, axis=None, dtype=None, include_initial=False):
    """Running products along ``axis`` (needed unless ``x`` is 1-D); ``include_initial``
    puts the empty product, 1, first."""
    return _scan("cumprod", x, axis, dtype, include_initial, 1)


def cumsum(x, axis=None, dtype=None):
    """``np.cumsum``: with no axis, of the flattened tensor."""
    x = _tensor(x)
    return cumulative_sum(reshape(x, -1) if axis is None else x, axis=axis, dtype=dtype)


def cumprod(x, axis=None, dtype=None):
    """``np.cumprod``: with no axis, of the flattened tensor."""
    x = _tensor(x)
    return cumulative_prod(reshape(x, -1) if axis is None else x, axis=axis, dtype=dtype)


def diff(x, axis=-1, n=1, prepend=None, append=None):
    """``n``-th differences along ``axis`` (``x[1:] - x[:-1]``, ``n`` times)."""
    x = _tensor(x)
    if len(x.shape) == 0:
        raise shape_error("diff needs a tensor of rank >= 1")
    if n < 0:
        raise DTypeError(f"diff: n must be >= 0, got {n}")
    axis = _normalize_axis(axis, len(x.shape))
    parts = [p for p in (prepend, x, append) if p is not None]
    if len(parts) > 1:
        x = concatenate([_tensor(p) if len(getattr(p, "shape", ())) else _edge(p, x, axis) for p in parts], axis=axis)
    for _ in range(n):
        size = x.shape[axis]
        if size == 0:
            break
        x = _difference(x, axis)
    return x


def _edge(value, x, axis):
    shape = list(x.shape)
    shape[axis] = 1
    return full(shape, value, dtype_of(x))


def _difference(x, axis):
    rank = len(x.shape)
    start_hi, limit_lo = [0] * rank, list(x.shape)
    start_hi[axis], limit_lo[axis] = 1, x.shape[axis] - 1
    upper = _slice(x, start_hi, list(x.shape))
    lower = _slice(x, [0] * rank, limit_lo)
    return not_equal(upper, lower) if dtype_of(x) == BOOL_DTYPE else subtract(upper, lower)


__all__ = [
    "all", "amax", "amin", "any", "argmin", "count_nonzero", "cumprod", "cumsum", "cumulative_prod", "cumulative_sum", "diff",
    "prod", "std", "var",
]
