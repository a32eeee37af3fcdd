"""Ops that read or write tensor elements at computed positions: gather and scatter.

Both index ``axes`` of ``x`` with the rows of ``indices`` (an integer tensor whose last
axis holds one coordinate per entry of ``axes``) and take whole slices along the other
axes: ``gather`` reads ``x[i_0, :, i_1]``-style points, ``scatter`` writes them.
Out-of-range coordinates are clamped into range by ``gather`` and their updates are
dropped by ``scatter`` (as in XLA, and JAX's defaults), so neither ever reads or writes
outside ``x``. The transpose of a gather is a scatter-add into one buffer.

```mlir
%0 = "s4tf.gather"(%table, %ids) {axes = array<i64: 0>} : (tensor<100x8xf32>, tensor<5x1xi32>) -> tensor<5x8xf32>
```
"""

from __future__ import annotations

import numpy as np

from s4tf.dialects import hlo
from s4tf.dialects.attributes import INT_ARRAY, Choice
from s4tf.dialects.batching_helpers import batch_size, shifted, to_front, with_batch
from s4tf.dialects.derivative_helpers import mask
from s4tf.dialects.op_def import MissingDerivativeRule, Op
from s4tf.dialects.shape_ops import check_axis
from s4tf.dialects.types import BOOL_DTYPE, TensorType, is_integer, shape_str, to_numpy_dtype
from s4tf.core.errors import DTypeError, OpAttributeError, ShapeError
from s4tf.core.mlir import ir

#: How ``scatter`` combines an update with the element it lands on.
SCATTER_KINDS = ("set", "add", "multiply", "min", "max")


def _check_indices(x: TensorType, indices: TensorType, axes) -> None:
    if not is_integer(indices.dtype):
        raise DTypeError(f"indices must be integers, got {indices.dtype}")
    for axis in axes:
        check_axis(axis, x.rank)
    if len(set(axes)) != len(axes):
        raise OpAttributeError(f"axes {list(axes)} repeat an axis")
    if indices.rank < 1 or indices.shape[-1] != len(axes):
        raise ShapeError(
            f"indices {shape_str(indices.shape)} need a last axis of {len(axes)} coordinate(s), one per entry of axes {list(axes)}"
        )


def _window_shape(x: TensorType, axes) -> tuple[int, ...]:
    """The sizes of the axes of ``x`` not indexed: the slice each index row picks."""
    return tuple(d for i, d in enumerate(x.shape) if i not in axes)


def _points(x: np.ndarray, indices: np.ndarray, axes):
    """``x`` with ``axes`` moved to the front, and the coordinate arrays along them."""
    moved = np.moveaxis(x, list(axes), list(range(len(axes))))
    return moved, tuple(indices[..., j] for j in range(len(axes)))


def _bounds(shape, axes) -> np.ndarray:
    return np.array([shape[a] - 1 for a in axes], dtype=np.int64)


class Gather(Op):
    """Read the slices of ``x`` at ``indices``: ``result[b..., w...] = x`` at coordinates
    ``indices[b..., :]`` along ``axes`` and ``w...`` along the other axes (in order).
    Coordinates are clamped into ``[0, size - 1]``.

    ```mlir
    %0 = "s4tf.gather"(%x, %i) {axes = array<i64: 0>} : (tensor<5x3xf32>, tensor<4x1xi32>) -> tensor<4x3xf32>
    ```
    """

    name = "gather"
    static_shapes = True
    operands = ("x", "indices")
    attributes = {"axes": INT_ARRAY}
    nondifferentiable_operands = (1,)
    linear = True

    @staticmethod
    def infer(x, indices, *, axes):
        _check_indices(x, indices, axes)
        return TensorType(indices.shape[:-1] + _window_shape(x, axes), x.dtype)

    @staticmethod
    def reference(x, indices, *, axes):
        clamped = np.clip(indices.astype(np.int64), 0, _bounds(x.shape, axes))
        moved, points = _points(x, clamped, axes)
        return moved[points]

    @staticmethod
    def lower(lowering, x, indices, *, axes):
        """``stablehlo.gather`` of clamped coordinates (IREE's gather does not clamp). One
        element (a 0-d result: ``v[i]``, ``a[i, j]``) comes out through an
        ``optimization_barrier``. IREE-3.13-WORKAROUND: IREE fuses a gather into its
        consumer as a ``tensor.extract`` at run-time coordinates, and its vectorizer crashed
        on a scalar op reading three of them beside the reduction it consumes (a
        Gauss-Seidel sweep: ``(b[i] - (a[i] @ v - a[i, i] * v[i])) / a[i, i]``;
        tests/lit/iree_reproducers/gauss_seidel_row_update_crashes.mlir). Behind the
        barrier each element is read by a dispatch of its own. (A ``dynamic_slice`` also
        compiles, but IREE reads its start back to the host: the sweep took 1.8x as long on
        ``local-task``, and the language models' steps of tools/bench/bench_loops_real.py
        reading their rows so 1.3-1.4x.)"""
        x_type, index_type = lowering.operand_types
        result_type = lowering.result_type
        if result_type.size == 0:
            return hlo.constant(np.zeros(result_type.shape, dtype=to_numpy_dtype(result_type.dtype)))
        batch = index_type.rank - 1
        numbers = (
            f"#stablehlo.gather<offset_dims = {list(range(batch, result_type.rank))}, "
            f"collapsed_slice_dims = {sorted(axes)}, start_index_map = {list(axes)}, index_vector_dim = {batch}>"
        )
        sizes = [1 if i in axes else d for i, d in enumerate(x_type.shape)]
        clamped = _clamp(indices, index_type, _bounds(x_type.shape, axes))
        gathered = hlo.value(
            "gather", [x, clamped], result_type,
            dimension_numbers=numbers, slice_sizes=hlo.i64_array(sizes), indices_are_sorted="false",
        )
        return hlo.value("optimization_barrier", [gathered], result_type) if result_type.rank == 0 else gathered

    @staticmethod
    def batch(ops, operands, batch_dims, *, axes):
        """Only ``x`` batched: its batch axis is one more window axis (after the index
        rows' axes). Only ``indices``: more index rows. Both: each row gets its example's
        number as a first coordinate, along ``x``'s batch axis."""
        (x, indices), (x_dim, index_dim) = operands, batch_dims
        if index_dim is None:
            result = ops.op("gather", to_front(ops, x, x_dim), indices, axes=shifted(axes))
            return [result], [len(indices.shape) - 1]
        indices = to_front(ops, indices, index_dim)
        if x_dim is None:
            return [ops.op("gather", x, indices, axes=axes)], [0]
        x = to_front(ops, x, x_dim)
        return [ops.op("gather", x, with_lane_coordinate(ops, indices), axes=(0, *shifted(axes)))], [0]

    @staticmethod
    def transpose_into(ops, accumulated, cotangent, operands, *, axes):
        """Scatter-add the cotangent into ``x``'s cotangent so far, at the clamped
        coordinates the gather read: k gathers of one tensor cost one buffer."""
        x, indices = operands
        buffer = ops.zeros(x.shape, x.dtype) if accumulated is None else accumulated
        return ops.op("scatter", buffer, clamp_indices(ops, indices, x.shape, axes), cotangent, axes=axes, kind="add")


class Scatter(Op):
    """``x`` with the slices at ``indices`` combined with ``updates`` by ``kind``: ``set``
    replaces, ``add``, ``multiply``, ``min`` and ``max`` accumulate (repeated coordinates
    all count; for ``set`` one of them wins, which one is unspecified). ``updates`` has the
    shape of a gather at ``indices``; updates at out-of-range coordinates are dropped.

    ```mlir
    %0 = "s4tf.scatter"(%x, %i, %u) {axes = array<i64: 0>, kind = "add"} : (tensor<5x3xf32>, tensor<4x1xi32>, tensor<4x3xf32>) -> tensor<5x3xf32>
    ```
    """

    name = "scatter"
    static_shapes = True
    operands = ("x", "indices", "updates")
    attributes = {"axes": INT_ARRAY, "kind": Choice(*SCATTER_KINDS)}
    nondifferentiable_operands = (1,)

    @staticmethod
    def infer(x, indices, updates, *, axes, kind):
        _check_indices(x, indices, axes)
        if updates.dtype != x.dtype:
            raise DTypeError(f"x and updates must have one dtype, got {x.dtype} and {updates.dtype}")
        if x.dtype == BOOL_DTYPE and kind in ("add", "multiply"):
            raise DTypeError(f"scatter kind '{kind}' needs a number operand, got i1 (use 'max' for or, 'min' for and)")
        expected = indices.shape[:-1] + _window_shape(x, axes)
        if tuple(updates.shape) != expected:
            raise ShapeError(
                f"updates {shape_str(updates.shape)} must have shape {shape_str(expected)} "
                f"(indices {shape_str(indices.shape)} into x {shape_str(x.shape)} along axes {list(axes)})"
            )
        return x

    @staticmethod
    def reference(x, indices, updates, *, axes, kind):
        result = np.array(x, copy=True)
        moved, points = _points(result, indices.astype(np.int64), axes)
        inside = np.all((indices >= 0) & (indices <= _bounds(x.shape, axes)), axis=-1)
        points = tuple(p[inside] for p in points)
        updates = updates[inside]
        if kind == "set":  # the last of repeated coordinates wins, as IREE's CPU scatter does
            flat = np.ravel_multi_index(points, moved.shape[: len(axes)]) if points else np.zeros(0, np.int64)
            last = len(flat) - 1 - np.unique(flat[::-1], return_index=True)[1]
            moved[tuple(p[last] for p in points)] = updates[last]
        else:
            ufunc = {"add": np.add, "multiply": np.multiply, "min": np.minimum, "max": np.maximum}[kind]
            ufunc.at(moved, points, updates)
        return result

    @staticmethod
    def lower(lowering, x, indices, updates, *, axes, kind):
        """``stablehlo.scatter``. IREE's scatter does not check coordinates (an update out
        of range writes outside the buffer), so they are made safe first: an accumulating
        kind gets its neutral element as the update of such a row, at a clamped coordinate;
        ``set`` repeats a row in range in its place (:func:`_set_in_place`). Both scatter
        into ``x`` (:func:`~s4tf.dialects.hlo.unshared`), so a donated table is updated in
        place. IREE scatters along leading axes only: others are transposed to the front
        and back."""
        x_type, index_type, update_type = lowering.operand_types
        if update_type.size == 0:
            return x
        leading = tuple(range(len(axes)))
        if tuple(axes) == leading:
            return _scatter_leading(x, indices, updates, x_type, index_type, update_type, kind, unshare=True)
        # IREE's scatter takes indexed axes only in front: transpose them there and back
        order = list(axes) + [i for i in range(x_type.rank) if i not in axes]
        moved_type = TensorType([x_type.shape[i] for i in order], x_type.dtype)
        moved = hlo.value("transpose", [x], moved_type, permutation=hlo.i64_array(order))
        result = _scatter_leading(moved, indices, updates, moved_type, index_type, update_type, kind)
        return hlo.value("transpose", [result], x_type, permutation=hlo.i64_array(np.argsort(order)))


    @staticmethod
    def jvp(ops, primals, tangents, result, *, axes, kind):
        x, indices, updates = primals
        dx, _, du = tangents
        if dx is None and du is None:
            return None
        if kind in ("set", "add"):
            if kind == "add" and du is None:
                return dx
            dx = ops.zeros(x.shape, x.dtype) if dx is None else dx
            du = ops.zeros(updates.shape, updates.dtype) if du is None else du
            return ops.op("scatter", dx, indices, du, axes=axes, kind=kind)
        if kind == "multiply":
            return _multiply_jvp(ops, x, indices, updates, dx, du, axes)
        return _extremum_jvp(ops, x, indices, updates, dx, du, result, axes)

    @staticmethod
    def batch(ops, operands, batch_dims, *, axes, kind):
        """Every operand gets the batch axis in front (the unbatched ones broadcast) and
        each index row its example's number as a first coordinate, along ``x``'s batch
        axis: one scatter, whose rows of different examples never collide."""
        size = batch_size(operands, batch_dims)
        x, indices, updates = (with_batch(ops, v, d, size) for v, d in zip(operands, batch_dims))
        return [ops.op("scatter", x, with_lane_coordinate(ops, indices), updates, axes=(0, *shifted(axes)), kind=kind)], [0]

    @staticmethod
    def transpose(ops, cotangent, operands, linear, *, axes, kind):
        """For ``add``: ``x`` gets the cotangent, ``updates`` its gather (zero where dropped).
        For ``set``: ``x`` gets the cotangent except where it was overwritten, ``updates``
        the gather where their update won."""
        x, indices, updates = operands
        if kind not in ("set", "add"):
            raise MissingDerivativeRule(f"'s4tf.scatter' of kind '{kind}' is not linear: it has no transpose rule")
        ct_x = ct_updates = None
        if linear[0]:
            ct_x = cotangent if kind == "add" else ops.op(
                "scatter", cotangent, indices, ops.zeros(updates.shape, updates.dtype), axes=axes, kind="set"
            )
        if linear[2]:
            read = ops.op("gather", cotangent, indices, axes=axes)
            kept = in_range(ops, indices, x.shape, axes) if kind == "add" else _winners(ops, x, indices, updates, axes)
            ct_updates = read * _rows_mask(ops, kept, updates, indices, read.dtype)
        return [ct_x, None, ct_updates]


def _clamp(indices, index_type: TensorType, bounds: np.ndarray):
    """StableHLO clamping each coordinate of ``indices`` into ``[0, bound]``: IREE's gather
    does not clamp (it reads zeros out of range), StableHLO's specification does."""
    dtype = to_numpy_dtype(index_type.dtype)
    lower = hlo.constant(np.zeros((), dtype))
    upper = hlo.constant(bounds.astype(dtype))
    upper = hlo.value(
        "broadcast_in_dim", [upper], index_type, broadcast_dimensions=hlo.i64_array([index_type.rank - 1])
    )
    return hlo.value("clamp", [lower, indices, upper], index_type)


def _scatter_leading(x, indices, updates, x_type, index_type, update_type, kind, unshare: bool = False):
    """The lowering of a scatter along the leading ``k`` axes of ``x`` (into a copy of it
    where ``unshare``: :func:`~s4tf.dialects.hlo.unshared`)."""
    target = hlo.unshared(x, x_type) if unshare else x
    axes = tuple(range(index_type.shape[-1]))
    bounds = _bounds(x_type.shape, axes)
    inside = _rows_inside(indices, index_type, bounds)
    batch = index_type.rank - 1
    if kind != "set":
        neutral = hlo.constant(np.asarray(_neutral(kind, x_type.dtype), to_numpy_dtype(x_type.dtype)))
        neutral = hlo.value("broadcast_in_dim", [neutral], update_type, broadcast_dimensions=hlo.i64_array([]))
        row_mask = hlo.value(
            "broadcast_in_dim", [inside], update_type.with_dtype(BOOL_DTYPE), broadcast_dimensions=hlo.i64_array(range(batch))
        )
        updates = hlo.value("select", [row_mask, updates, neutral], update_type)
        return _scatter(target, _clamp(indices, index_type, bounds), updates, x_type, update_type, batch, axes, kind)
    return _set_in_place(x, target, indices, updates, inside, x_type, index_type, update_type, axes)


def _set_in_place(x, target, indices, updates, inside, x_type, index_type, update_type, axes):
    """A ``set`` scatter of ``x`` into ``target`` (``x`` or its copy; a donated ``x`` is written in place): each
    row out of range is replaced by a copy of the last row in range (coordinates and
    update: the same value written again where that row writes last anyway), or, when no
    row is in range, by ``x``'s own first window written back at the origin.

    ``rows``: the index rows flattened to ``(N, k)``, the updates to ``(N, window...)``."""
    count = int(np.prod(index_type.shape[:-1]))
    k, window = index_type.shape[-1], tuple(x_type.shape[len(axes):])
    rows_type, flat_type = TensorType((count, k), index_type.dtype), TensorType((count, *window), update_type.dtype)
    flags, positions = TensorType((count,), BOOL_DTYPE), TensorType((count,), "i32")
    rows = hlo.value("reshape", [indices], rows_type)
    flat = hlo.value("reshape", [updates], flat_type)
    inside = hlo.value("reshape", [inside], flags)
    order = hlo.value("iota", [], positions, iota_dimension=ir.IntegerAttr.get(ir.IntegerType.get_signless(64), 0))
    none = hlo.broadcast(hlo.scalar(-1, "i32"), TensorType((), "i32"), (count,))
    last = hlo.reduce(hlo.value("select", [inside, order, none], positions), positions, hlo.scalar(-1, "i32"), "maximum", [0])
    scalar_flag = TensorType((), BOOL_DTYPE)
    found = hlo.compare(last, hlo.scalar(0, "i32"), "GE", "i32", scalar_flag)
    pick = hlo.value("maximum", [last, hlo.scalar(0, "i32")], TensorType((), "i32"))
    zero = hlo.scalar(0, "i32")

    def row(source, source_type):
        one = TensorType((1, *source_type.shape[1:]), source_type.dtype)
        read = hlo.value("dynamic_slice", [source, pick] + [zero] * (source_type.rank - 1), one,
                         slice_sizes=hlo.i64_array(one.shape))
        return hlo.value("broadcast_in_dim", [read], source_type, broadcast_dimensions=hlo.i64_array(range(source_type.rank)))

    origin_type = TensorType((1,) * len(axes) + window, x_type.dtype)
    origin = hlo.value("slice", [x], origin_type, start_indices=hlo.i64_array([0] * x_type.rank),
                       limit_indices=hlo.i64_array(origin_type.shape), strides=hlo.i64_array([1] * x_type.rank))
    origin = hlo.value("broadcast_in_dim", [hlo.value("reshape", [origin], TensorType((1, *window), x_type.dtype))], flat_type,
                       broadcast_dimensions=hlo.i64_array(range(flat_type.rank)))
    fallback_rows = hlo.value("select", [found, row(rows, rows_type), hlo.broadcast(hlo.scalar(0, index_type.dtype), TensorType((), index_type.dtype), rows_type.shape)], rows_type)
    fallback_updates = hlo.value("select", [found, row(flat, flat_type), origin], flat_type)

    def per_row(value_type):
        return hlo.value("broadcast_in_dim", [inside], value_type.with_dtype(BOOL_DTYPE), broadcast_dimensions=hlo.i64_array([0]))

    safe_rows = hlo.value("select", [per_row(rows_type), rows, fallback_rows], rows_type)
    safe_updates = hlo.value("select", [per_row(flat_type), flat, fallback_updates], flat_type)
    return _scatter(target, safe_rows, safe_updates, x_type, flat_type, 1, axes, "set")


def _scatter(x, indices, updates, x_type, update_type, batch, axes, kind):
    numbers = (
        f"#stablehlo.scatter<update_window_dims = {list(range(batch, update_type.rank))}, "
        f"inserted_window_dims = {sorted(axes)}, scatter_dims_to_operand_dims = {list(axes)}, "
        f"index_vector_dim = {batch}>"
    )
    scatter = hlo.op(
        "scatter", [x, indices, updates], x_type, regions=1,
        scatter_dimension_numbers=numbers, indices_are_sorted="false", unique_indices="false",
    )
    scalar = TensorType((), x_type.dtype)
    block = scatter.regions[0].blocks.append(scalar.to_mlir(), scalar.to_mlir())
    with ir.InsertionPoint(block):
        old, new = block.arguments
        if kind == "set":
            combined = new
        else:
            name = {"add": "add", "multiply": "multiply", "min": "minimum", "max": "maximum"}[kind]
            if x_type.dtype == BOOL_DTYPE:
                name = {"minimum": "and", "maximum": "or"}[name]
            combined = hlo.value(name, [old, new], scalar)
        hlo.op("return", [combined], [])
    return scatter.result


def _rows_inside(indices, index_type: TensorType, bounds: np.ndarray):
    """Per index row (an ``i1`` tensor of the batch shape): all coordinates in range."""
    dtype = to_numpy_dtype(index_type.dtype)
    flags = index_type.with_dtype(BOOL_DTYPE)
    zero = hlo.value("broadcast_in_dim", [hlo.constant(np.zeros((), dtype))], index_type, broadcast_dimensions=hlo.i64_array([]))
    upper = hlo.value(
        "broadcast_in_dim", [hlo.constant(bounds.astype(dtype))], index_type,
        broadcast_dimensions=hlo.i64_array([index_type.rank - 1]),
    )
    above = hlo.compare(indices, zero, "GE", index_type.dtype, flags)
    below = hlo.compare(indices, upper, "LE", index_type.dtype, flags)
    both = hlo.value("and", [above, below], flags)
    return hlo.reduce(both, flags, hlo.scalar(True, BOOL_DTYPE), "and", [index_type.rank - 1])


def _neutral(kind: str, dtype: str):
    """The update that leaves an element as it is under an accumulating ``kind``."""
    if kind == "add":
        return 0
    if kind == "multiply":
        return 1
    if dtype == BOOL_DTYPE:
        return kind == "min"
    numpy_dtype = to_numpy_dtype(dtype)
    if is_integer(dtype):
        info = np.iinfo(numpy_dtype)
        return info.max if kind == "min" else info.min
    return np.inf if kind == "min" else -np.inf


def with_lane_coordinate(ops, indices):
    """Batched ``indices`` (batch axis in front) with each row's example number as its
    first coordinate: ``(size, ..., k)`` -> ``(size, ..., k + 1)``, element by element
    (column ``c`` is the lane where ``c == 0``, else coordinate ``c - 1``).
    IREE-3.13-WORKAROUND: as a ``concatenate`` of the lane column and the coordinates, two
    such in one loop (a batched gather and scatter, ``vmap`` of ``grad`` through a loop that
    reads and writes rows of its carry) shared the buffer their common lane column was
    written into, and each wrote its coordinates into it: the gather read the scatter's
    coordinates, and the gradient came back zero
    (tests/lit/iree_reproducers/concatenate_shared_prefix.mlir)."""
    shape = (*indices.shape[:-1], indices.shape[-1] + 1)
    last = len(shape) - 1
    column = ops.iota(shape, last, indices.dtype)
    coordinates = ops.iota(shape, 0, indices.dtype)
    for c in range(indices.shape[-1]):
        start, limit = [0] * len(indices.shape), list(indices.shape)
        start[last], limit[last] = c, c + 1
        coordinate = ops.broadcast_to(ops.slice(indices, start, limit), shape)
        coordinates = ops.where(ops.equal(column, c + 1), coordinate, coordinates)
    return coordinates


# -- pieces of the derivative rules ------------------------------------------------------


def clamp_indices(ops, indices, shape, axes):
    """``indices`` with each coordinate clamped into its axis (as ``gather`` reads them)."""
    dtype = indices.dtype
    return ops.minimum(ops.maximum(indices, np.zeros((), dtype)), _bounds(shape, axes).astype(dtype))


def in_range(ops, indices, shape, axes):
    """Per index row: whether all its coordinates lie inside ``shape`` (its update lands)."""
    dtype = indices.dtype
    inside = ops.logical_and(
        ops.greater_equal(indices, np.zeros((), dtype)), ops.less_equal(indices, _bounds(shape, axes).astype(dtype))
    )
    return ops.equal(ops.min(ops.astype(inside, np.int32), axis=-1), 1)


def _winners(ops, x, indices, updates, axes):
    """Per index row of a ``set`` scatter: whether its update is the one that landed (the
    row's number, scattered the same way, is what its coordinates read back). One row
    lands exactly when it is in range (``scan``'s stacked outputs: no stack of numbers)."""
    batch = tuple(indices.shape[:-1])
    if int(np.prod(batch, dtype=np.int64)) == 1:
        return ops.broadcast_in_dim(in_range(ops, indices, x.shape, axes), tuple(updates.shape), tuple(range(len(batch))))
    rows = ops.reshape(ops.iota((int(np.prod(batch)),), 0, np.int32), batch)
    rows_full = ops.broadcast_in_dim(rows, tuple(updates.shape), tuple(range(len(batch))))
    numbered = ops.op("scatter", ops.full(x.shape, -1, np.int32), indices, rows_full, axes=axes, kind="set")
    landed = ops.op("gather", numbered, indices, axes=axes)
    return ops.logical_and(ops.equal(landed, rows_full), ops.broadcast_in_dim(
        in_range(ops, indices, x.shape, axes), tuple(updates.shape), tuple(range(len(batch)))
    ))


def _rows_mask(ops, kept, updates, indices, dtype):
    """``kept`` (per index row, or per update element) as 1/0 of ``dtype`` in ``updates``' shape."""
    batch = len(indices.shape) - 1
    if len(kept.shape) == batch:
        kept = ops.broadcast_in_dim(kept, tuple(updates.shape), tuple(range(batch)))
    return mask(ops, kept, dtype)


def _multiply_jvp(ops, x, indices, updates, dx, du, axes):
    """``y = x * P`` with ``P`` the product of the updates landing on each element:
    ``dy = dx * P + x * scatter_add(du * (product of the other updates landing there))``;
    the product of the others is computed without dividing by zero."""
    dtype = updates.dtype
    product = ops.op("scatter", ops.ones(x.shape, dtype), indices, updates, axes=axes, kind="multiply")
    tangent = None if dx is None else dx * product
    if du is None:
        return tangent
    zero = ops.equal(updates, np.zeros((), dtype))
    safe = ops.where(zero, np.ones((), dtype), updates)
    zeros_there = ops.op(
        "gather", ops.op("scatter", ops.zeros(x.shape, dtype), indices, mask(ops, zero, dtype), axes=axes, kind="add"),
        indices, axes=axes,
    )
    nonzero_product = ops.op(
        "gather", ops.op("scatter", ops.ones(x.shape, dtype), indices, safe, axes=axes, kind="multiply"), indices, axes=axes
    )
    others = ops.where(
        zero,
        ops.where(ops.equal(zeros_there, np.ones((), dtype)), nonzero_product, np.zeros((), dtype)),
        ops.where(ops.equal(zeros_there, np.zeros((), dtype)), nonzero_product / safe, np.zeros((), dtype)),
    )
    spread = ops.op("scatter", ops.zeros(x.shape, dtype), indices, du * others, axes=axes, kind="add")
    term = x * spread
    return term if tangent is None else tangent + term


def _extremum_jvp(ops, x, indices, updates, dx, du, result, axes):
    """The tangent of whichever of ``x`` and the updates landing there is the result; ties
    share it equally (as JAX's reductions of ties do)."""
    dtype = updates.dtype
    from_x = mask(ops, ops.equal(x, result), dtype)
    from_update = _rows_mask(
        ops, ops.logical_and(
            ops.equal(updates, ops.op("gather", result, indices, axes=axes)),
            ops.broadcast_in_dim(in_range(ops, indices, x.shape, axes), tuple(updates.shape), tuple(range(len(indices.shape) - 1))),
        ), updates, indices, dtype,
    )
    count = from_x + ops.op("scatter", ops.zeros(x.shape, dtype), indices, from_update, axes=axes, kind="add")
    total = None if dx is None else dx * from_x
    if du is not None:
        spread = ops.op("scatter", ops.zeros(x.shape, dtype), indices, du * from_update, axes=axes, kind="add")
        total = spread if total is None else total + spread
    return total / count
