"""``s4tf.<name>``: NumPy's splitting, stacking and diagonal functions: ``split``,
``array_split``, ``vsplit``/``hsplit``/``dsplit``, ``vstack``/``hstack``/``dstack``,
``column_stack``/``row_stack``, ``atleast_1d``/``2d``/``3d``, ``append``, ``rot90``,
``diag``, ``diagonal``, ``trace``, ``ndim`` and ``array``.

```python
import numpy as np, s4tf

x = np.arange(6, dtype=np.float32).reshape(2, 3)
left, right = s4tf.hsplit(np.asarray(s4tf.hstack([x, x])), 2)
np.asarray(s4tf.vstack([x, x[0]])), np.asarray(s4tf.trace(x)), np.asarray(s4tf.diag(x[0], k=1))
```

Each is a composition of slices, concatenations, reshapes and gathers, so it is staged,
eager and differentiable as they are; split points and ``k`` are static (Python ints).
"""

from __future__ import annotations

import numpy as np

from s4tf.arrays.creation import _take_slice, eye, swapaxes
from s4tf.arrays.indexing import getitem
from s4tf.arrays.numpy_api import (  # noqa: A004  (NumPy's names: sum)
    _normalize_axis, _tensor, asarray, astype, concatenate, flip, pad, reshape, sum, transpose, where,
)
from s4tf.core.locations import shape_error
from s4tf.dialects.types import BOOL_DTYPE


# -- splitting ----------------------------------------------------------------------------


def _static_int(value, name):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise shape_error(f"{name} must be a Python int (split points are static), got {value!r}")
    return int(value)


def _split(x, indices_or_sections, axis, name, even):
    x = _tensor(x)
    if not x.shape:
        raise shape_error(f"{name} needs a tensor of rank >= 1, got a 0-d one")
    axis = _normalize_axis(axis, len(x.shape))
    size = x.shape[axis]
    if isinstance(indices_or_sections, (list, tuple, np.ndarray)):
        points = [_static_int(i, f"{name}: a split index") for i in np.asarray(indices_or_sections).tolist()]
        points = [min(max(p + size if p < 0 else p, 0), size) for p in points]
        bounds = list(zip([0, *points], [*points, size]))
    else:
        sections = _static_int(indices_or_sections, f"{name}: the number of sections")
        if sections <= 0:
            raise shape_error(f"{name}: the number of sections must be > 0, got {sections}")
        if even and size % sections:
            raise shape_error(
                f"{name}: {sections} sections do not divide axis {axis} of size {size} equally; "
                "s4tf.array_split allows unequal ones"
            )
        each, extra = divmod(size, sections)
        sizes = [each + 1] * extra + [each] * (sections - extra)
        ends = np.cumsum(sizes).tolist()
        bounds = list(zip([0, *ends[:-1]], ends))
    return [_take_slice(x, axis, max(start, 0), max(start, limit)) for start, limit in bounds]


def split(x, indices_or_sections, axis=0):
    """``x`` split along ``axis`` into equal sections (an int) or at the given indices."""
    return _split(x, indices_or_sections, axis, "split", even=True)


def array_split(x, indices_or_sections, axis=0):
    """As :func:`split`, but sections may differ in size by one (the first are larger)."""
    return _split(x, indices_or_sections, axis, "array_split", even=False)


def _split_at_least(x, indices_or_sections, rank, axis, name):
    x = _tensor(x)
    if len(x.shape) < rank:
        raise shape_error(f"{name} needs a tensor of rank >= {rank}, got shape {tuple(x.shape)}")
    return _split(x, indices_or_sections, axis, name, even=True)


def vsplit(x, indices_or_sections):
    """:func:`split` along axis 0 (rank >= 2)."""
    return _split_at_least(x, indices_or_sections, 2, 0, "vsplit")


def hsplit(x, indices_or_sections):
    """:func:`split` along axis 1 (axis 0 of a 1-D tensor)."""
    x = _tensor(x)
    return _split_at_least(x, indices_or_sections, 1, 1 if len(x.shape) > 1 else 0, "hsplit")


def dsplit(x, indices_or_sections):
    """:func:`split` along axis 2 (rank >= 3)."""
    return _split_at_least(x, indices_or_sections, 3, 2, "dsplit")


# -- ranks and stacking --------------------------------------------------------------------


def _at_least(arrays, shapes):
    results = [reshape(x, shapes[len(x.shape)](x.shape)) if len(x.shape) in shapes else x
               for x in (_tensor(a) for a in arrays)]
    return results[0] if len(results) == 1 else tuple(results)


def atleast_1d(*arrays):
    """Each input as a tensor of rank >= 1 (a 0-d one as shape ``(1,)``)."""
    return _at_least(arrays, {0: lambda s: (1,)})


def atleast_2d(*arrays):
    """Each input as a tensor of rank >= 2: ``(n,)`` as ``(1, n)``."""
    return _at_least(arrays, {0: lambda s: (1, 1), 1: lambda s: (1, *s)})


def atleast_3d(*arrays):
    """Each input as a tensor of rank >= 3: ``(n,)`` as ``(1, n, 1)``, ``(m, n)`` as ``(m, n, 1)``."""
    return _at_least(arrays, {0: lambda s: (1, 1, 1), 1: lambda s: (1, *s, 1), 2: lambda s: (*s, 1)})


def _sequence(arrays, name):
    if not isinstance(arrays, (np.ndarray, tuple, list)) or not len(arrays):
        raise shape_error(f"{name} needs a non-empty list or tuple of tensors, got {type(arrays).__name__}")
    return list(arrays)


def vstack(arrays):
    """The tensors joined along axis 0, 1-D ones as rows."""
    return concatenate([atleast_2d(a) for a in _sequence(arrays, "vstack")], axis=0)


row_stack = vstack


def hstack(arrays):
    """The tensors joined along axis 1 (1-D ones along axis 0)."""
    arrays = [atleast_1d(a) for a in _sequence(arrays, "hstack")]
    return concatenate(arrays, axis=0 if len(arrays[0].shape) == 1 else 1)


def dstack(arrays):
    """The tensors joined along axis 2, after :func:`atleast_3d`."""
    return concatenate([atleast_3d(a) for a in _sequence(arrays, "dstack")], axis=2)


def column_stack(arrays):
    """1-D tensors as columns, 2-D ones as they are, joined along axis 1."""
    columns = []
    for a in _sequence(arrays, "column_stack"):
        a = _tensor(a)
        columns.append(reshape(a, (a.shape[0] if a.shape else 1, 1)) if len(a.shape) < 2 else a)
    return concatenate(columns, axis=1)


def append(x, values, axis=None):
    """``values`` appended to ``x`` along ``axis`` (both flattened when ``None``)."""
    x, values = _tensor(x), _tensor(values)
    if axis is None:
        return concatenate([reshape(x, -1), reshape(values, -1)], axis=0)
    return concatenate([x, values], axis=axis)


def ravel(x):
    """``x``'s elements as one axis, in row-major order (``x.ravel()``)."""
    return reshape(_tensor(x), -1)


def flipud(x):
    """``x`` with its first axis reversed."""
    x = _tensor(x)
    if len(x.shape) < 1:
        raise shape_error("flipud needs a tensor of rank >= 1, got a 0-d one")
    return flip(x, axis=0)


def fliplr(x):
    """``x`` with its second axis reversed."""
    x = _tensor(x)
    if len(x.shape) < 2:
        raise shape_error(f"fliplr needs a tensor of rank >= 2, got shape {tuple(x.shape)}")
    return flip(x, axis=1)


def rot90(x, k=1, axes=(0, 1)):
    """``x`` turned by ``k`` quarter turns in the plane of ``axes``, from the first toward the second."""
    x = _tensor(x)
    rank = len(x.shape)
    if len(axes) != 2:
        raise shape_error(f"rot90: axes must be two axes, got {axes!r}")
    if rank < 2:
        raise shape_error(f"rot90 needs a tensor of rank >= 2, got shape {tuple(x.shape)}")
    first, second = (_normalize_axis(a, rank) for a in axes)
    if first == second:
        raise shape_error(f"rot90: the axes must differ, got {axes!r}")
    k = _static_int(k, "rot90: k") % 4
    if k == 0:
        return x
    if k == 2:
        return flip(x, axis=(first, second))
    if k == 1:
        return swapaxes(flip(x, axis=second), first, second)
    return flip(swapaxes(x, first, second), axis=second)


# -- diagonals ----------------------------------------------------------------------------


def diagonal(x, offset=0, axis1=0, axis2=1):
    """The ``offset``-th diagonal of the planes of ``axis1`` and ``axis2``, as the last axis."""
    x = _tensor(x)
    rank = len(x.shape)
    if rank < 2:
        raise shape_error(f"diagonal needs a tensor of rank >= 2, got shape {tuple(x.shape)}")
    a, b = _normalize_axis(axis1, rank), _normalize_axis(axis2, rank)
    if a == b:
        raise shape_error(f"diagonal: axis1 and axis2 must differ, got {axis1} and {axis2}")
    offset = _static_int(offset, "diagonal: offset")
    x = transpose(x, [i for i in range(rank) if i not in (a, b)] + [a, b])
    rows, cols = x.shape[-2:]
    length = max(0, min(rows + min(offset, 0), cols - max(offset, 0)))
    steps = np.arange(length)
    return getitem(x, (Ellipsis, steps - min(offset, 0), steps + max(offset, 0)))


def trace(x, offset=0, axis1=0, axis2=1, dtype=None):
    """The sum of :func:`diagonal`."""
    return sum(diagonal(x, offset, axis1, axis2), axis=-1, dtype=dtype)


def diag(x, k=0):
    """The ``k``-th diagonal of a 2-D tensor, or a square matrix with a 1-D tensor on it."""
    x = _tensor(x)
    k = _static_int(k, "diag: k")
    if len(x.shape) == 2:
        return diagonal(x, k)
    if len(x.shape) != 1:
        raise shape_error(f"diag needs a 1-D or 2-D tensor, got shape {tuple(x.shape)}")
    n = x.shape[0] + abs(k)
    padded = pad(x, (0, abs(k)))
    along = reshape(padded, (n, 1) if k >= 0 else (1, n))  # row i holds x[i] at column i + k
    on_diagonal = astype(eye(n, n, k), BOOL_DTYPE)
    return where(on_diagonal, along, astype(0, x.dtype))


# -- NumPy's odd ones out -----------------------------------------------------------------


def ndim(x) -> int:
    """The rank of ``x`` (a tensor, an array, a scalar or a nested list), a Python int."""
    return len(x.shape) if hasattr(x, "shape") else np.ndim(x)


def array(x, dtype=None, *, copy=True, ndmin=0):
    """``np.array``: :func:`s4tf.asarray`, with at least ``ndmin`` axes (1s in front).
    Tensors are values, so a copy is never needed: ``copy`` is accepted for NumPy's sake."""
    x = asarray(x, dtype)
    missing = int(ndmin) - len(x.shape)
    return reshape(x, (1,) * missing + tuple(x.shape)) if missing > 0 else x


__all__ = [
    "append", "array", "array_split", "atleast_1d", "atleast_2d", "atleast_3d", "column_stack", "diag", "diagonal",
    "dsplit", "dstack", "fliplr", "flipud", "hsplit", "hstack", "ndim", "ravel", "rot90", "row_stack", "split", "trace",
    "vsplit", "vstack",
]
