"""``s4tf.<name>``: the Array API's creation and manipulation functions beyond
:mod:`s4tf.arrays.numpy_api`'s: ``eye``, ``linspace``, ``empty``, ``meshgrid``, ``tril``, ``triu``,
``repeat``, ``tile``, ``roll``, ``moveaxis``, ``swapaxes``, ``permute_dims``, ``unstack``,
``broadcast_arrays``, ``concat``, and JAX's ``device_put``.

```python
import numpy as np, s4tf

np.asarray(s4tf.tril(s4tf.ones((3, 3)))), np.asarray(s4tf.roll(np.arange(5), 2))
```

All are compositions of existing ops (``iota``, ``select``, ``slice``, ``concatenate``,
``broadcast_in_dim``, ``reshape``, ``transpose``), so they are differentiable where their
inputs are.
"""

from __future__ import annotations

import builtins

import numpy as np

from s4tf.dialects.types import canonical_dtype, is_float
from s4tf.core.errors import DeviceError
from s4tf.core.locations import shape_error, user_location
from s4tf.arrays.numpy_api import (  # noqa: A004  (NumPy's names: slice)
    DEFAULT_FLOAT, _normalize_axis, _result_dtype, _tensor, add, asarray, astype, broadcast_to, concatenate,
    dtype_of, equal, expand_dims, full, iota, less_equal, minimum, multiply, reshape, shape_of, subtract, sum,
    transpose, where, zeros,
)
from s4tf.arrays.indexing import take
from s4tf.pytree import tree_map
from s4tf.arrays.statistics import cumsum
from s4tf.arrays.numpy_api import _check_device
from s4tf.arrays.numpy_api import slice as _slice
from s4tf.runtime.device import to_device
from s4tf.runtime.targets import TARGETS
from s4tf.staging.tensor import Tensor


def eye(n_rows, n_cols=None, k=0, dtype=None, device=None):
    """Ones on the ``k``-th diagonal of an ``n_rows`` by ``n_cols`` matrix, zeros elsewhere."""
    _check_device(device, "eye")
    shape = (int(n_rows), int(n_rows if n_cols is None else n_cols))
    on_diagonal = equal(subtract(iota(shape, 1), iota(shape, 0)), k)
    return astype(on_diagonal, DEFAULT_FLOAT if dtype is None else dtype)


def linspace(start, stop, num, dtype=None, device=None, endpoint=True):
    """``num`` evenly spaced numbers from ``start`` to ``stop`` (included with ``endpoint``)."""
    _check_device(device, "linspace")
    dtype = canonical_dtype(dtype) if dtype is not None else DEFAULT_FLOAT
    num = int(num)
    if num < 0:
        raise shape_error(f"linspace: num must be >= 0, got {num}")
    divisions = (num - 1) if endpoint else num
    step = (stop - start) / divisions if divisions > 0 else 0.0
    compute = dtype if is_float(dtype) else "f64"
    positions = iota((num,), 0, compute)
    values = add(multiply(positions, step), start)
    if endpoint and num > 1:
        values = where(equal(positions, num - 1), stop, values)
    return astype(values, dtype)


def empty(shape, dtype=None, device=None):
    """A tensor of ``shape`` (filled with zeros: s4tf has no uninitialized memory to offer)."""
    return zeros(shape, dtype, device=device)


def empty_like(x, dtype=None, device=None):
    return zeros(shape_of(x), dtype_of(x) if dtype is None else dtype, device=device)


def meshgrid(*arrays, indexing="xy"):
    """Coordinate matrices from tensors (flattened first, as NumPy's); ``"xy"`` swaps the
    first two axes (NumPy's)."""
    if indexing not in ("xy", "ij"):
        raise shape_error(f"meshgrid: indexing must be 'xy' or 'ij', got {indexing!r}")
    arrays = [reshape(_tensor(a), (-1,)) for a in arrays]
    sizes = [a.shape[0] for a in arrays]
    if indexing == "xy" and len(arrays) > 1:
        sizes[0], sizes[1] = sizes[1], sizes[0]
    grids = []
    for index, a in enumerate(arrays):
        axis = (1 - index if index < 2 else index) if indexing == "xy" and len(arrays) > 1 else index
        shape = [1] * len(arrays)
        shape[axis] = a.shape[0]
        grids.append(broadcast_to(reshape(a, shape), sizes))
    return grids


def _band(x, k, lower: bool):
    x = _tensor(x)
    if len(x.shape) == 1:  # NumPy's: the vector as every row of a square matrix
        x = broadcast_to(x, (x.shape[0], x.shape[0]))
    if len(x.shape) < 2:
        raise shape_error(f"{'tril' if lower else 'triu'} needs a tensor of rank >= 1, got shape {tuple(x.shape)}")
    shape = tuple(x.shape[-2:])
    offset = subtract(iota(shape, 1), iota(shape, 0))  # column - row
    keep = less_equal(offset, k) if lower else less_equal(k, offset)
    return where(keep, x, full((), 0, dtype_of(x)))


def tril(x, k=0):
    """``x`` with the elements above the ``k``-th diagonal zeroed (of the last two axes)."""
    return _band(x, k, lower=True)


def triu(x, k=0):
    """``x`` with the elements below the ``k``-th diagonal zeroed (of the last two axes)."""
    return _band(x, k, lower=False)


def repeat(x, repeats, axis=None, *, total_repeat_length=None):
    """Each element repeated ``repeats`` times along ``axis`` (flattened when ``None``);
    ``repeats`` is an int or, one per element, ints known when staging. With
    ``total_repeat_length`` (JAX's), the length of the result along ``axis``, ``repeats``
    may be a traced tensor: repeats past that length are dropped, and the last element
    repeated fills a shortfall (an int ``repeats`` too, as in JAX)."""
    x = _tensor(x)
    if axis is None:
        x, axis = reshape(x, -1), 0
    axis = _normalize_axis(axis, len(x.shape))
    size = x.shape[axis]
    if total_repeat_length is not None and (isinstance(repeats, Tensor) or np.ndim(repeats)
                                            or int(repeats) * size != total_repeat_length):
        return _repeat_to_length(x, repeats, axis, int(total_repeat_length))
    if isinstance(repeats, Tensor) and not isinstance(repeats, np.ndarray):
        repeats = np.asarray(repeats)  # a traced tensor raises a located error here
    if np.ndim(repeats) and np.size(repeats) not in (1, size):
        raise shape_error(f"repeat: {np.size(repeats)} repeats for an axis of size {size}")
    counts = np.broadcast_to(np.asarray(repeats, dtype=np.int64).reshape(-1), (size,)) if np.ndim(repeats) else None
    if counts is None:
        count = int(repeats)
        expanded = expand_dims(x, axis + 1)
        shape = list(expanded.shape)
        shape[axis + 1] = count
        result_shape = list(x.shape)
        result_shape[axis] = size * count
        return reshape(broadcast_to(expanded, shape), result_shape)
    pieces = []
    for index, count in enumerate(counts):
        if count:
            piece = _take_slice(x, axis, index, index + 1)
            shape = list(piece.shape)
            shape[axis] = int(count)
            pieces.append(broadcast_to(piece, shape))
    if not pieces:
        shape = list(x.shape)
        shape[axis] = 0
        return zeros(shape, dtype_of(x))
    return concatenate(pieces, axis=axis) if len(pieces) > 1 else pieces[0]


def _repeat_to_length(x, repeats, axis: int, length: int):
    """``x`` with element ``j`` repeated ``repeats[j]`` times along ``axis``, ``length`` in
    all: entry ``p`` is element ``min(#{j: repeats[0] + ... + repeats[j] <= p}, size - 1)``."""
    size = x.shape[axis]
    repeats = _tensor(repeats)
    if repeats.shape not in ((), (1,), (size,)):
        raise shape_error(f"repeat: repeats of shape {tuple(repeats.shape)} for an axis of size {size}")
    if size == 0 or length < 0:
        raise shape_error(f"repeat: total_repeat_length={length} of an axis of size {size}")
    ends = cumsum(broadcast_to(astype(repeats, "int32"), (size,)))
    passed = less_equal(reshape(ends, (1, size)), iota((length, 1), 0))  # entry p is past element j
    return take(x, minimum(sum(astype(passed, "int32"), axis=1), size - 1), axis=axis)


def _take_slice(x, axis, start, limit):
    starts, limits = [0] * len(x.shape), list(x.shape)
    starts[axis], limits[axis] = start, limit
    return _slice(x, starts, limits)


def tile(x, repetitions):
    """``x`` repeated ``repetitions[i]`` times along each axis (NumPy's ``tile``)."""
    x = _tensor(x)
    reps = (int(repetitions),) if isinstance(repetitions, (int, np.integer)) else tuple(int(r) for r in repetitions)
    rank = builtins.max(len(reps), len(x.shape))
    reps = (1,) * (rank - len(reps)) + reps
    shape = (1,) * (rank - len(x.shape)) + tuple(x.shape)
    interleaved = reshape(x, [d for size in shape for d in (1, size)])
    spread = broadcast_to(interleaved, [d for r, size in zip(reps, shape) for d in (r, size)])
    return reshape(spread, [r * size for r, size in zip(reps, shape)])


def roll(x, shift, axis=None):
    """Elements shifted by ``shift`` along ``axis`` (of the flattened tensor when ``None``),
    those leaving one end coming back at the other."""
    x = _tensor(x)
    if axis is None:
        return reshape(roll(reshape(x, -1), shift, 0), x.shape)
    shifts = (shift,) if isinstance(shift, (int, np.integer)) else tuple(shift)
    axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    if len(shifts) != len(axes):
        shifts = shifts * len(axes) if len(shifts) == 1 else shifts
        if len(shifts) != len(axes):
            raise shape_error(f"roll: {len(shifts)} shifts for {len(axes)} axes")
    for s, a in zip(shifts, axes):
        a = _normalize_axis(a, len(x.shape))
        size = x.shape[a]
        if size == 0:
            continue
        s = int(s) % size
        if s:
            x = concatenate([_take_slice(x, a, size - s, size), _take_slice(x, a, 0, size - s)], axis=a)
    return x


def permute_dims(x, axes):
    return transpose(x, tuple(axes))


def moveaxis(x, source, destination):
    """``x`` with axes ``source`` moved to positions ``destination`` (others keep their order)."""
    x = _tensor(x)
    rank = len(x.shape)
    sources = [_normalize_axis(a, rank) for a in ((source,) if isinstance(source, (int, np.integer)) else source)]
    targets = [_normalize_axis(a, rank) for a in ((destination,) if isinstance(destination, (int, np.integer)) else destination)]
    if len(sources) != len(targets):
        raise shape_error(f"moveaxis: {len(sources)} source axes for {len(targets)} destinations")
    order = [a for a in range(rank) if a not in sources]
    for target, source_axis in sorted(zip(targets, sources)):
        order.insert(target, source_axis)
    return transpose(x, order)


def swapaxes(x, axis1, axis2):
    x = _tensor(x)
    rank = len(x.shape)
    order = list(range(rank))
    a, b = _normalize_axis(axis1, rank), _normalize_axis(axis2, rank)
    order[a], order[b] = order[b], order[a]
    return transpose(x, order)


def matrix_transpose(x):
    """The last two axes swapped (``x.mT``)."""
    x = _tensor(x)
    if len(x.shape) < 2:
        raise shape_error(f"matrix_transpose needs a tensor of rank >= 2, got shape {tuple(x.shape)}")
    return swapaxes(x, -1, -2)


def unstack(x, axis=0):
    """The slices of ``x`` along ``axis``, as a tuple."""
    x = _tensor(x)
    axis = _normalize_axis(axis, len(x.shape))
    shape = [d for i, d in enumerate(x.shape) if i != axis]
    return tuple(reshape(_take_slice(x, axis, i, i + 1), shape) for i in range(x.shape[axis]))


def broadcast_arrays(*arrays):
    shape = np.broadcast_shapes(*(tuple(shape_of(a)) for a in arrays))
    return [broadcast_to(_tensor(a), shape) for a in arrays]


def concat(arrays, axis=0):
    """Join tensors along ``axis``; ``axis=None`` flattens them first."""
    arrays = list(arrays)
    if axis is None:
        return concatenate([reshape(_tensor(a), -1) for a in arrays], axis=0)
    dtype = _result_dtype(*arrays)
    return concatenate([astype(_tensor(a), dtype) for a in arrays], axis=axis)


def device_put(x, device=None):
    """``x`` (an array or a pytree of them) as tensors on the device s4tf creates them on
    (``"cpu"``), or on the device of the target ``device`` names (``"cuda"``, ``"vulkan"``),
    where functions staged for that target read them without a copy, as ``jax.device_put``."""
    if device is None or device == "cpu":
        return tree_map(asarray, x)
    if device not in TARGETS:
        raise DeviceError(f"device_put: unknown device {device!r}; s4tf puts tensors on the device of a target: {', '.join(TARGETS)}",
                          str(user_location() or "") or None)
    return tree_map(lambda a: Tensor(to_device(np.asarray(a), device), device), x)


__all__ = [
    "broadcast_arrays", "concat", "device_put", "empty", "empty_like", "eye", "linspace", "matrix_transpose", "meshgrid", "moveaxis",
    "permute_dims", "repeat", "roll", "swapaxes", "tile", "tril", "triu", "unstack",
]
