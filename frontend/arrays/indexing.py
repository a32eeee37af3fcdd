"""Indexing as NumPy's, and JAX's functional updates: ``x[idx]``, ``s4tf.take``,
``s4tf.take_along_axis``, ``x.at[idx].set(v)`` (and ``add``, ``multiply``, ``min``, ``max``).

Basic indices (ints, slices of any step, ``None``, ``...``) become ``s4tf.slice`` and
``s4tf.reverse`` (eagerly, ints are a gather's index operand, so that ``x[i]`` in a loop
compiles one module, not one per ``i``); integer arrays (in any positions, broadcast together, placed as NumPy
places them) become one ``s4tf.gather``, and updates through them one ``s4tf.scatter``.
A boolean mask known on the host (a NumPy array, an eager tensor) is its ``nonzero()``
indices; a traced mask has no static count of elements, so reading through it is an
error suggesting ``s4tf.where``, while updating through it is a ``where``.

Out-of-range indices: known on the host, they are an :class:`IndexingError` (as in
NumPy); traced, a read clamps them into range and an update drops them (as in JAX).
Negative indices count from the end in both cases.

```python
x = s4tf.asarray(np.arange(12.0).reshape(3, 4))
x[[2, 0], ::-2]                      # rows 2 and 0, every other column from the end
x.at[:, 1].add(10.0)                 # a new tensor; x is unchanged
```
"""

from __future__ import annotations

import builtins
import operator
from dataclasses import dataclass

import numpy as np

from s4tf.lazy_tensors import mode as lazy_mode
from s4tf.arrays import numpy_api as np_api
from s4tf.dialects.composition import current_builder
from s4tf.dialects.types import BOOL_DTYPE, canonical_dtype, is_integer, to_numpy_dtype
from s4tf.staging import dispatch
from s4tf.core.errors import S4tfError, ShapeError
from s4tf.core.locations import user_location
from s4tf.staging.tensor import Tensor, Tracer

#: ``x.at[idx].<kind>(v)``: the scatter kind of each update method.
UPDATE_KINDS = ("set", "add", "multiply", "min", "max")


class IndexingError(ShapeError, IndexError):
    """An index s4tf cannot apply: of an unsupported type, out of range, or too many."""


class ImmutableTensorError(S4tfError, TypeError):
    """``x[idx] = v`` on a tensor outside a staged function's local variables."""


def _error(message: str) -> IndexingError:
    return IndexingError(message, str(user_location() or "") or None)


# -- reading an index ---------------------------------------------------------------------


@dataclass
class _Plan:
    """``x[index]`` taken apart: ``shape`` is ``x``'s with the ``None`` axes inserted, and
    ``items`` holds one entry per axis of it: a ``slice``, an ``int`` or an index array."""

    shape: tuple[int, ...]
    items: list

    @property
    def arrays(self) -> list[int]:
        return [axis for axis, item in enumerate(self.items) if _is_array(item)]


def _is_array(item) -> bool:
    return isinstance(item, (np.ndarray, Tensor))


def _host_mask(item):
    """A boolean index whose value the host knows (a NumPy array, an eager tensor), or None."""
    if isinstance(item, Tensor) and not isinstance(item, Tracer) and item.tensor_type.dtype == BOOL_DTYPE:
        return np.asarray(item)
    if isinstance(item, (list, tuple, np.ndarray)):
        array = np.asarray(item)
        return array if array.dtype == np.bool_ else None
    return None


def _host_bound(bound):
    """A slice bound as an int where the host knows it: a 0-d integer eager tensor or
    NumPy array is one (as in NumPy); a traced one is left for the error."""
    if isinstance(bound, (Tensor, np.ndarray)) and not isinstance(bound, Tracer) and bound.shape == ():
        if is_integer(canonical_dtype(bound.dtype)):
            return int(np.asarray(bound))
    return bound


def _read_item(item):
    """One index entry as a slice, an int, None, Ellipsis, or an integer array (or several,
    for a boolean mask known on the host)."""
    if item is None or item is Ellipsis:
        return [item]
    if isinstance(item, builtins.slice):
        item = builtins.slice(*(_host_bound(bound) for bound in (item.start, item.stop, item.step)))
        for bound in (item.start, item.stop, item.step):
            if bound is not None and not isinstance(bound, (int, np.integer)):
                raise _error(
                    f"slice bounds must be Python ints, got {bound!r}: a slice of a size known only at run time "
                    "has no static shape; index with an array (x[s4tf.arange(n) + start]) or use s4tf.take"
                )
        if item.step == 0:
            raise _error("slice step cannot be zero")
        return [item]
    if isinstance(item, (bool, np.bool_)):  # a 0-d mask, as in NumPy
        return [("mask", np.asarray(item))]
    if isinstance(item, (int, np.integer)):
        return [int(item)]
    mask = _host_mask(item)
    if mask is not None:
        return [("mask", mask)]
    if isinstance(item, Tensor):
        dtype = item.tensor_type.dtype
        if dtype == BOOL_DTYPE:
            raise _error(
                f"a traced boolean mask {item.tensor_type} selects a number of elements known only at run time, so "
                "x[mask] has no static shape; use s4tf.where(mask, x, fill) to keep x's shape, "
                "or x.at[mask].set(v) to update the selected elements"
            )
        if not is_integer(dtype):
            raise _error(f"index arrays must be integers or booleans, got a tensor of {dtype}")
        return [item]
    if isinstance(item, (list, tuple, np.ndarray)):
        array = np.asarray(item)
        if array.size == 0 and array.dtype == np.float64:  # [] is an empty integer index in NumPy
            array = array.astype(np.int64)
        if not np.issubdtype(array.dtype, np.integer):
            raise _error(f"index arrays must be integers or booleans, got {array.dtype}")
        return [array]
    raise _error(
        f"index {item!r} of type {type(item).__name__} is not supported: s4tf indexing takes ints, slices, ..., None, "
        "integer arrays and boolean masks"
    )


def plan(shape, index) -> _Plan:
    """``index`` (anything ``x[index]`` takes) read against a tensor of ``shape``."""
    index = index if isinstance(index, tuple) else (index,)
    items = [read for item in index for read in _read_item(item)]
    if builtins.sum(1 for i in items if i is Ellipsis) > 1:
        raise _error("an index can only have one ellipsis ('...')")
    consumed = builtins.sum(
        item[1].ndim if isinstance(item, tuple) else 1 for item in items if item is not None and item is not Ellipsis
    )
    if consumed > len(shape):
        raise _error(f"too many indices ({consumed}) for a tensor of shape {tuple(shape)}")
    fill = [builtins.slice(None)] * (len(shape) - consumed)
    at = next((i for i, item in enumerate(items) if item is Ellipsis), len(items))
    items = items[:at] + fill + items[at + 1:]
    expanded, result, axis = [], [], 0
    for item in items:
        if item is None:
            expanded.append(1)
            result.append(builtins.slice(None))
            continue
        if isinstance(item, tuple) and item[1].ndim == 0:  # x[True], x[False]: a new axis of 1 or 0 elements
            expanded.append(1)
            result.append(np.flatnonzero(item[1]))
            continue
        if isinstance(item, tuple):  # a boolean mask: its nonzero() positions, one array per axis
            mask = item[1]
            if mask.shape != tuple(shape[axis:axis + mask.ndim]):
                raise _error(
                    f"boolean index of shape {mask.shape} does not match axes {axis}..{axis + mask.ndim - 1} of "
                    f"shape {tuple(shape)}"
                )
            for positions in np.nonzero(mask):
                expanded.append(shape[axis])
                result.append(positions)
                axis += 1
            continue
        expanded.append(shape[axis])
        result.append(item)
        axis += 1
    return _Plan(tuple(expanded), result)


def _basic(plan_: _Plan, ints_as_arrays: bool):
    """The strided window the slices (and ints) pick: ``start``, ``limit``, ``stride`` and the
    reversed axes of the expanded tensor, and each axis' count of elements."""
    start, limit, stride, reversed_axes, counts = [], [], [], [], []
    for axis, (item, size) in enumerate(zip(plan_.items, plan_.shape)):
        if isinstance(item, builtins.slice):
            lo, hi, step = item.indices(size)
            count = len(range(lo, hi, step))
            if step < 0:  # the same elements, read forwards from the reversed axis
                reversed_axes.append(axis)
                lo, step = size - 1 - lo, -step
            start.append(lo), limit.append(lo + (count - 1) * step + 1 if count else lo), stride.append(step)
            counts.append(count)
        elif isinstance(item, int) and not ints_as_arrays:
            if not -size <= item < size:
                raise _error(f"index {item} is out of bounds for axis {axis} with size {size}")
            position = item % size
            start.append(position), limit.append(position + 1), stride.append(1)
            counts.append(1)
        else:  # an index array (or an int read as one): the whole axis
            start.append(0), limit.append(size), stride.append(1)
            counts.append(size)
    return tuple(start), tuple(limit), tuple(stride), tuple(reversed_axes), tuple(counts)


def _window(x, shape, start, limit, stride, reversed_axes):
    result = dispatch.apply1("reverse", x, axes=reversed_axes) if reversed_axes else x
    if (start, limit, stride) != ((0,) * len(shape), tuple(shape), (1,) * len(shape)):
        result = dispatch.apply1("slice", result, start=start, limit=limit, stride=stride)
    return result


def _index_arrays(plan_: _Plan, sizes):
    """The index arrays of ``plan_`` (ints as 0-d arrays) with negative entries wrapped,
    broadcast together and stacked on a last axis: the ``indices`` of a gather or scatter,
    and the broadcast shape. Host indices out of range are an error."""
    axes = [a for a, item in enumerate(plan_.items) if _is_array(item) or isinstance(item, int)]
    arrays = []
    for axis in axes:
        item, size = plan_.items[axis], sizes[axis]
        if isinstance(item, Tensor):
            arrays.append(np_api.where(np_api.less(item, 0), np_api.add(item, size), item))
            continue
        array = np.asarray(item, dtype=np.int64)
        if array.size and (array.min() < -size or array.max() >= size):
            bad = array[(array < -size) | (array >= size)].flat[0]
            raise _error(f"index {bad} is out of bounds for axis {axis} with size {size}")
        arrays.append(np.where(array < 0, array + size, array))
    try:
        batch = tuple(np.broadcast_shapes(*(tuple(a.shape) for a in arrays)))
    except ValueError:
        raise _error(
            "shape mismatch: indexing arrays could not be broadcast together with shapes "
            + " ".join(str(tuple(a.shape)) for a in arrays)
        ) from None
    traced = [a for a in arrays if isinstance(a, Tensor)]
    dtype = "i64" if any(a.tensor_type.dtype == "i64" for a in traced) or builtins.max(sizes, default=0) >= 2**31 else "i32"
    if not traced:
        indices = np.stack([np.broadcast_to(a, batch) for a in arrays], axis=-1).astype(to_numpy_dtype(dtype))
        return axes, batch, np_api.asarray(indices)
    columns = [np_api.reshape(np_api.broadcast_to(np_api.astype(a, dtype), batch), batch + (1,)) for a in arrays]
    return axes, batch, np_api.concatenate(columns, axis=-1)


def _batch_position(axes) -> int | None:
    """Where NumPy puts the broadcast index axes among the result's: at the first indexed
    axis if the indexed axes are adjacent, else first (``None``)."""
    return axes[0] if list(axes) == list(range(axes[0], axes[0] + len(axes))) else None


def _batch_to(result, batch_rank: int, position: int | None):
    """A gather's result (batch axes first) with its batch axes moved to ``position``."""
    if not position:
        return result
    rank = len(result.shape)
    order = list(range(batch_rank, batch_rank + position)) + list(range(batch_rank)) + list(range(batch_rank + position, rank))
    return np_api.transpose(result, order)


def _batch_from(value, batch_rank: int, position: int | None):
    """The inverse of :func:`_batch_to`: the batch axes of ``value`` moved first."""
    if not position:
        return value
    rank = len(value.shape)
    order = list(range(position, position + batch_rank)) + list(range(position)) + list(range(position + batch_rank, rank))
    return np_api.transpose(value, order)


# -- reading ------------------------------------------------------------------------------


def _runs_eagerly() -> bool:
    """Whether ops run on the device at once here (no trace, not lazy mode): then an int
    index is a gather's index operand, so ``x[i]`` compiles once for every ``i`` (the
    static slice a trace gets would compile one module per index)."""
    return current_builder() is None and not lazy_mode.mode_is_lazy()



def getitem(x, index):
    """``x[index]`` as NumPy reads it (a copy): ints, slices of any step, ``None``, ``...``,
    integer arrays in any positions, and boolean masks the host knows."""
    x = np_api._tensor(x)
    plan_ = plan(x.shape, index)
    expanded = np_api.reshape(x, plan_.shape)
    if not plan_.arrays and not (_runs_eagerly() and any(isinstance(item, int) for item in plan_.items)):
        start, limit, stride, reversed_axes, counts = _basic(plan_, ints_as_arrays=False)
        window = _window(expanded, plan_.shape, start, limit, stride, reversed_axes)
        return np_api.reshape(window, [c for c, item in zip(counts, plan_.items) if not isinstance(item, int)])
    start, limit, stride, reversed_axes, counts = _basic(plan_, ints_as_arrays=True)
    window = _window(expanded, plan_.shape, start, limit, stride, reversed_axes)
    axes, batch, indices = _index_arrays(plan_, counts)
    result = dispatch.apply1("gather", window, indices, axes=tuple(axes))
    return _batch_to(result, len(batch), _batch_position(axes))


def take(x, indices, axis=None, mode=None):
    """``np.take``: elements of ``x`` at ``indices`` along ``axis`` (of the flattened ``x``
    when ``None``). ``mode``: ``None`` (as indexing: host indices out of range are an error,
    traced ones are clamped), ``"clip"`` or ``"wrap"``."""
    x = np_api._tensor(x)
    if axis is None:
        x, axis = np_api.reshape(x, -1), 0
    axis = np_api._normalize_axis(axis, len(x.shape))
    size = x.shape[axis]
    if mode not in (None, "clip", "wrap"):
        raise _error(f"take mode must be None, 'clip' or 'wrap', got {mode!r}")
    if mode is not None:
        if isinstance(indices, Tensor):
            indices = np_api.clip(indices, 0, size - 1) if mode == "clip" else np_api.remainder(indices, size)
        else:
            indices = np.asarray(indices)
            indices = np.clip(indices, 0, size - 1) if mode == "clip" else np.remainder(indices, size)
    return getitem(x, (builtins.slice(None),) * axis + (_as_index(indices),))


def _as_index(indices):
    """An index array (a scalar index stays an int)."""
    if isinstance(indices, (Tensor, int, np.integer)):
        return indices
    return np.asarray(indices)


def take_along_axis(x, indices, axis):
    """``np.take_along_axis``: ``result[..., j, ...] = x[..., indices[..., j, ...], ...]``
    along ``axis``; the other axes of ``indices`` and ``x`` broadcast."""
    x = np_api._tensor(x)
    if axis is None:
        x, axis = np_api.reshape(x, -1), 0
    rank = len(x.shape)
    axis = np_api._normalize_axis(axis, rank)
    if len(np_api.shape_of(indices)) != rank:
        raise _error(f"take_along_axis needs indices of the rank of x ({rank}), got shape {tuple(np_api.shape_of(indices))}")
    index = tuple(
        _as_index(indices) if d == axis else np.arange(size).reshape([size if e == d else 1 for e in range(rank)])
        for d, size in enumerate(x.shape)
    )
    return getitem(x, index)


# -- updating -----------------------------------------------------------------------------


def _combine(kind: str, x, value):
    return {
        "set": lambda: value, "add": lambda: np_api.add(x, value), "multiply": lambda: np_api.multiply(x, value),
        "min": lambda: np_api.minimum(x, value), "max": lambda: np_api.maximum(x, value),
    }[kind]()


def update(x, index, value, kind: str):
    """``x`` with the elements ``x[index]`` replaced by (``set``) or combined with (``add``,
    ``multiply``, ``min``, ``max``) ``value``, broadcast to their shape; ``x`` is unchanged.
    Repeated indices all count for the accumulating kinds (``x.at[[0, 0]].add(1)`` adds 2);
    for ``set`` one of them wins."""
    x = np_api._tensor(x)
    dtype = x.tensor_type.dtype
    if kind not in UPDATE_KINDS:
        raise _error(f"update kind must be one of {', '.join(UPDATE_KINDS)}, got {kind!r}")
    value = np_api._tensor(np_api._as_operand(value, dtype))
    mask = index[0] if isinstance(index, tuple) and len(index) == 1 else index
    if isinstance(mask, Tracer) and mask.tensor_type.dtype == BOOL_DTYPE:
        return _masked_update(x, mask, value, kind)
    if dtype == BOOL_DTYPE and kind in ("add", "multiply"):
        kind = "max" if kind == "add" else "min"  # NumPy's loops for bools: or, and
    plan_ = plan(x.shape, index)
    expanded = np_api.reshape(x, plan_.shape)
    if not plan_.arrays:
        return np_api.reshape(_basic_update(expanded, plan_, value, kind), x.shape)
    start, limit, stride, reversed_axes, counts = _basic(plan_, ints_as_arrays=True)
    window = _window(expanded, plan_.shape, start, limit, stride, reversed_axes)
    axes, batch, indices = _index_arrays(plan_, counts)
    rest = [c for a, c in enumerate(counts) if a not in axes]
    position = _batch_position(axes)
    read_shape = list(batch) + rest if not position else rest[:position] + list(batch) + rest[position:]
    updates = _batch_from(_broadcast_value(value, read_shape), len(batch), position)
    scattered = dispatch.apply1("scatter", window, indices, updates, axes=tuple(axes), kind=kind)
    outer = _Plan(plan_.shape, [item if isinstance(item, builtins.slice) else builtins.slice(None) for item in plan_.items])
    if all(item == builtins.slice(None) for item in outer.items):
        return np_api.reshape(scattered, x.shape)
    return np_api.reshape(_basic_update(expanded, outer, scattered, "set"), x.shape)


#: The most elements of a tensor whose update through ints and slices is a ``select``
#: rather than a scatter: IREE fuses the select with the ops around it (a chain of small
#: updates, as a pose built element by element, is one dispatch instead of one a scatter),
#: but it writes the whole tensor, where a scatter of one row into a large stack (a loop's
#: outputs, unrolled) writes the row, and its mask is computed over the tensor's shape.
SELECTED_UPDATE_ELEMENTS = 4096


def _basic_update(x, plan_: _Plan, value, kind: str):
    """An update through ints and slices: a select (:func:`_selected_update`) of a tensor of
    at most :data:`SELECTED_UPDATE_ELEMENTS`, else one scatter at the positions they pick
    (in ``x``'s own order, so negative steps need no reversal), whole axes left as windows."""
    positions, shape = [], []
    for axis, (item, size) in enumerate(zip(plan_.items, plan_.shape)):
        if isinstance(item, int):
            if not -size <= item < size:
                raise _error(f"index {item} is out of bounds for axis {axis} with size {size}")
            positions.append(np.array([item % size]))
            continue
        picked = np.arange(size)[item]
        shape.append(len(picked))
        positions.append(None if len(picked) == size and np.array_equal(picked, np.arange(size)) else picked)
    one = value if int(np.prod(value.shape, dtype=np.int64)) == 1 else None
    value = _broadcast_value(value, shape)
    if all(p is None for p in positions):
        return np_api.broadcast_to(value, x.shape) if kind == "set" else _combine(kind, x, value)
    counts = [size if p is None else len(p) for p, size in zip(positions, plan_.shape)]
    if int(np.prod(plan_.shape, dtype=np.int64)) <= SELECTED_UPDATE_ELEMENTS:
        number = None if one is None else np_api.reshape(one, ())
        return _selected_update(x, positions, np_api.reshape(value, counts), number, kind)
    axes = [a for a, p in enumerate(positions) if p is not None]
    grid = np.meshgrid(*(positions[a] for a in axes), indexing="ij")
    indices = np_api.asarray(np.stack(grid, axis=-1).astype(np.int64 if builtins.max(plan_.shape) >= 2**31 else np.int32))
    order = axes + [a for a in range(len(counts)) if a not in axes]
    updates = np_api.transpose(np_api.reshape(value, counts), order)
    return dispatch.apply1("scatter", x, indices, updates, axes=tuple(axes), kind=kind)


def _selected_update(x, positions, value, number, kind: str):
    """The update of :func:`_basic_update` as ``where(mask, update, x)`` with a ``mask`` of
    the positions (``positions[a]``: ``None`` for a whole axis, else the evenly
    stepped positions an int or a slice picks); the update is ``value`` padded to ``x``'s
    shape (``number``, the one value it was broadcast from, broadcast), combined with ``x``
    for kinds other than ``set``."""
    window = []
    for axis, picked in enumerate(positions):
        if picked is None:
            window.append((0, 1, x.shape[axis]))
            continue
        if len(picked) == 0:
            return x
        if len(picked) > 1 and picked[1] < picked[0]:  # a negative step: the same positions, ascending
            picked, value = picked[::-1], np_api.flip(value, axis)
        window.append((int(picked[0]), int(picked[1] - picked[0]) if len(picked) > 1 else 1, len(picked)))
    mask = _positions_mask(x.shape, window)
    if number is not None:
        padded = np_api.broadcast_to(number, x.shape)
    else:
        padded = dispatch.apply1(
            "pad", value, np_api._tensor(np_api._as_operand(0, x.tensor_type.dtype)),
            low=tuple(start for start, _, _ in window),
            high=tuple(size - start - step * (count - 1) - 1 for (start, step, count), size in zip(window, x.shape)),
            interior=tuple(step - 1 for _, step, _ in window),
        )
    updated = _combine(kind, x, padded)
    return updated if mask is None else np_api.where(mask, updated, x)


def _positions_mask(shape, window):
    """Whether each position of ``shape`` is in the windows ``(start, step, count)`` of every
    axis (``None``: every position is), computed from iotas (IREE fuses them with the
    select). IREE-3.13-WORKAROUND: a select on a constant boolean mask of more than one value
    gives wrong results on ``android-arm64`` (the mask's true positions read as false:
    ``x.at[5].set(v)``, a reversed ``scan``'s first row)."""
    mask = None
    for axis, (start, step, count) in enumerate(window):
        if (start, step, count) == (0, 1, shape[axis]):
            continue
        at = np_api.iota(tuple(shape), dimension=axis, dtype=np.int32)
        picked = np_api.logical_and(at >= start, at <= start + step * (count - 1))
        if step > 1:
            picked = np_api.logical_and(picked, (at - start) % step == 0)
        mask = picked if mask is None else np_api.logical_and(mask, picked)
    return mask


def _broadcast_value(value, shape):
    try:
        return np_api.broadcast_to(value, tuple(shape))
    except S4tfError:
        raise _error(f"value of shape {tuple(value.shape)} cannot be broadcast to the indexed shape {tuple(shape)}") from None


def _masked_update(x, mask, value, kind):
    """An update through a traced boolean mask: a ``where``, so the shape stays static;
    ``value`` must broadcast to ``x``'s shape (a scalar, usually)."""
    if tuple(mask.shape) != tuple(x.shape[: len(mask.shape)]):
        raise _error(f"boolean mask of shape {tuple(mask.shape)} does not match the leading axes of {tuple(x.shape)}")
    mask = np_api.reshape(mask, tuple(mask.shape) + (1,) * (len(x.shape) - len(mask.shape)))
    try:
        value = np_api.broadcast_to(value, x.shape)
    except S4tfError:
        raise _error(
            f"with a traced boolean mask the value must broadcast to the whole shape {tuple(x.shape)} (a scalar, usually), "
            f"got shape {tuple(value.shape)}: the number of selected elements is known only at run time"
        ) from None
    if x.tensor_type.dtype == BOOL_DTYPE and kind in ("add", "multiply"):
        kind = "max" if kind == "add" else "min"
    return np_api.where(mask, _combine(kind, x, value), x)


class _IndexUpdateRef:
    """``x.at[index]``: its methods return updated copies of ``x``."""

    def __init__(self, x, index):
        self.x, self.index = x, index

    def get(self):
        return getitem(self.x, self.index)

    def set(self, value):
        return update(self.x, self.index, value, "set")

    def add(self, value):
        return update(self.x, self.index, value, "add")

    def multiply(self, value):
        return update(self.x, self.index, value, "multiply")

    def min(self, value):
        return update(self.x, self.index, value, "min")

    def max(self, value):
        return update(self.x, self.index, value, "max")


class _IndexUpdateHelper:
    """``x.at``: ``x.at[index].set(v)`` and friends, as JAX's."""

    def __init__(self, x):
        self.x = x

    def __getitem__(self, index):
        return _IndexUpdateRef(self.x, index)


def at(x) -> _IndexUpdateHelper:
    return _IndexUpdateHelper(x)


def no_setitem(x, index, value):
    """``Tensor.__setitem__``: tensors are values, never changed in place."""
    raise ImmutableTensorError(
        "s4tf tensors are values and cannot be changed in place (other names may refer to this one); write "
        "x = x.at[index].set(value) (or .add, .multiply, .min, .max). Inside @s4tf.function, `x[index] = value` "
        "and `x[index] += value` on a local variable do this for you",
        str(user_location() or "") or None,
    )


# -- the rewrite of `x[index] = value` in staged functions ---------------------------------


def setitem(target, index, value):
    """``target[index] = value`` for :mod:`s4tf.staging.autograph.convert`: a tensor is rebound to its
    updated copy, anything else (a list, a dict, a NumPy array) is assigned in place."""
    if isinstance(target, Tensor):
        return update(target, index, value, "set")
    target[index] = value
    return target


def augmented_setitem(target, index, value, operator_name: str):
    """``target[index] op= value``: read, combine with the ``operator`` module's
    ``operator_name`` (``"iadd"``...), write back, as Python does (so repeated indices do
    not accumulate, as in NumPy)."""
    combine = getattr(operator, operator_name)
    if isinstance(target, Tensor):
        return update(target, index, combine(getitem(target, index), value), "set")
    target[index] = combine(target[index], value)
    return target


def _leading(indices, axes) -> tuple:
    return tuple(range(np_api.shape_of(indices)[-1])) if axes is None else tuple(axes)


def gather(x, indices, axes=None):
    """``s4tf.gather``: ``indices[..., j]`` is the coordinate along ``axes[j]`` (default: the
    leading axes); coordinates out of range are clamped."""
    return dispatch.apply1("gather", np_api._tensor(x), np_api._tensor(indices), axes=_leading(indices, axes))


def scatter(x, indices, updates, axes=None, kind="add"):
    """``s4tf.scatter`` of ``kind`` (``set``, ``add``, ``multiply``, ``min``, ``max``) at the
    coordinates ``indices`` as :func:`gather` reads them; updates out of range are dropped."""
    x = np_api._tensor(x)
    updates = np_api._tensor(np_api._as_operand(updates, x.tensor_type.dtype))
    return dispatch.apply1("scatter", x, np_api._tensor(indices), updates, axes=_leading(indices, axes), kind=kind)


__all__ = ["IndexingError", "ImmutableTensorError", "gather", "scatter", "take", "take_along_axis"]
