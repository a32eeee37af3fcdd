"""``s4tf.<name>``: sorting and searching: ``sort``, ``argsort``, ``top_k``,
``searchsorted``, and the ``unique_*`` functions (on concrete tensors only: their shapes
depend on the values).

```python
import numpy as np, s4tf

x = np.array([3.0, 1.0, 2.0, 5.0], np.float32)
values, indices = s4tf.top_k(x, 2)
np.asarray(s4tf.sort(x)), np.asarray(indices), np.asarray(s4tf.searchsorted(s4tf.sort(x), 2.5))
```

All are the one op ``s4tf.sort`` (stable; NaN greatest) and slices of its results;
``sort`` and ``top_k`` are differentiable in their values.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from s4tf.dialects.types import canonical_dtype
from s4tf.staging.dispatch import apply1
from s4tf.core.errors import StagingError
from s4tf.core.locations import shape_error, user_location
from s4tf.arrays.numpy_api import (  # noqa: A004  (NumPy's names: sum)
    DEFAULT_INT, _as_operand, _normalize_axis, _result_dtype, _tensor, asarray, astype, equal, expand_dims,
    logical_and, logical_not, logical_or, less, not_equal, sum,
)
from s4tf.arrays.numpy_api import slice as _slice
from s4tf.staging.tensor import Tracer


def _sorted_by(keys, values, axis, descending):
    keys = _tensor(keys)
    if len(keys.shape) == 0:
        raise shape_error("sorting needs a tensor of rank >= 1")
    axis = _normalize_axis(axis, len(keys.shape))
    return apply1("sort", keys, values if values is not None else keys, axis=axis, descending=bool(descending))


def sort(x, axis=-1, descending=False, stable=True):
    """``x`` sorted along ``axis`` (stably; NaN last, or first when ``descending``)."""
    return _sorted_by(x, None, axis, descending)


def argsort(x, axis=-1, descending=False, stable=True, dtype=None):
    """The indices that sort ``x`` along ``axis``; equal elements keep their order."""
    x = _tensor(x)
    if len(x.shape) == 0:
        raise shape_error("argsort needs a tensor of rank >= 1")
    axis = _normalize_axis(axis, len(x.shape))
    positions = apply1("iota", shape=tuple(x.shape), dimension=axis, dtype=canonical_dtype(dtype or DEFAULT_INT))
    return _sorted_by(x, positions, axis, descending)


TopK = namedtuple("TopK", ["values", "indices"])


def top_k(x, k):
    """The ``k`` largest elements along the last axis, largest first, and their indices
    (of equal elements, the first comes first), as ``jax.lax.top_k``."""
    x = _tensor(x)
    if len(x.shape) == 0 or not 0 <= k <= x.shape[-1]:
        raise shape_error(f"top_k: k={k} is out of range for a tensor of shape {tuple(x.shape)}")
    start, limit = [0] * len(x.shape), list(x.shape)
    limit[-1] = k
    return TopK(_slice(sort(x, descending=True), start, limit), _slice(argsort(x, descending=True), start, limit))


def _before(a, b):
    """``a < b`` with NaN greatest, as the sort orders them."""
    return logical_or(less(a, b), logical_and(not_equal(b, b), equal(a, a)))


def searchsorted(x1, x2, side="left", sorter=None):
    """Where each of ``x2`` would go in the sorted 1-D ``x1`` to keep it sorted: the count
    of its elements before (``side="left"``) or not after (``"right"``) it."""
    if side not in ("left", "right"):
        raise shape_error(f"searchsorted: side must be 'left' or 'right', got {side!r}")
    x1 = _tensor(x1)
    if len(x1.shape) != 1:
        raise shape_error(f"searchsorted needs a 1-D sorted tensor, got shape {tuple(x1.shape)}")
    if sorter is not None:
        x1 = apply1("sort", _tensor(sorter), x1, axis=0, descending=False)
    dtype = _result_dtype(x1, x2)
    x1, x2 = _tensor(_as_operand(x1, dtype)), _tensor(_as_operand(x2, dtype))
    column = expand_dims(x2, -1)
    hits = _before(x1, column) if side == "left" else logical_not(_before(column, x1))
    return sum(astype(hits, DEFAULT_INT), axis=-1)


UniqueAll = namedtuple("UniqueAll", ["values", "indices", "inverse_indices", "counts"])
UniqueCounts = namedtuple("UniqueCounts", ["values", "counts"])
UniqueInverse = namedtuple("UniqueInverse", ["values", "inverse_indices"])


def _host(x, name):
    if isinstance(x, Tracer):
        raise StagingError(
            f"{name}: the number of unique elements depends on the values, so the result has no static shape "
            "inside a staged function; call it outside, or use s4tf.sort and masks of a fixed size",
            str(user_location() or ""),
        )
    return np.asarray(x)


def _unique(x, name):
    array = _host(x, name)
    values, indices, inverse, counts = np.unique(
        array.reshape(-1), return_index=True, return_inverse=True, return_counts=True, equal_nan=False
    )
    index = canonical_dtype(DEFAULT_INT)
    return (
        asarray(values.astype(array.dtype)), asarray(indices.astype(np.int64), index),
        asarray(inverse.reshape(array.shape).astype(np.int64), index), asarray(counts.astype(np.int64), index),
    )


def unique_values(x):
    """The distinct elements of ``x``, sorted (each NaN is distinct); computed on the host."""
    return _unique(x, "unique_values")[0]


def unique_counts(x):
    values, _, _, counts = _unique(x, "unique_counts")
    return UniqueCounts(values, counts)


def unique_inverse(x):
    values, _, inverse, _ = _unique(x, "unique_inverse")
    return UniqueInverse(values, inverse)


def unique_all(x):
    return UniqueAll(*_unique(x, "unique_all"))


def nonzero(x):
    """The indices of the nonzero elements, one tensor per axis; computed on the host."""
    array = _host(x, "nonzero")
    if array.ndim == 0:
        raise shape_error("nonzero needs a tensor of rank >= 1")
    return tuple(asarray(i.astype(np.int64), DEFAULT_INT) for i in np.nonzero(array))


__all__ = [
    "argsort", "nonzero", "searchsorted", "sort", "top_k", "unique_all", "unique_counts", "unique_inverse",
    "unique_values",
]
