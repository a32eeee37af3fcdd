"""Ops that create tensors or move their elements: constant, iota, broadcast_in_dim,
reshape, transpose, reverse, slice, add_slice, concatenate, pad.

```mlir
%0 = "s4tf.transpose"(%x) {permutation = array<i64: 1, 0>} : (tensor<4x3xf32>) -> tensor<3x4xf32>
```
"""

from __future__ import annotations

import numpy as np

from s4tf.dialects.batching_helpers import batch_size, to_front, with_batch
from s4tf.dialects import hlo
from s4tf.dialects.attribute_roles import BATCH, Axes, Axis, PerAxis, Permutation, Shape
from s4tf.dialects.attributes import DTYPE, ELEMENTS, INT, INT_ARRAY
from s4tf.dialects.op_def import Op
from s4tf.dialects.types import BOOL_DTYPE, TensorType, canonical_dtype, shape_str, to_numpy_dtype
from s4tf.core.errors import DTypeError, OpAttributeError, ShapeError


def check_axis(axis: int, rank: int, what: str = "axis") -> None:
    if not 0 <= axis < rank:
        raise OpAttributeError(f"{what} {axis} is out of range for rank {rank}")


class Constant(Op):
    """A tensor known at compile time.

    ```mlir
    %0 = "s4tf.constant"() {value = dense<[1.0, 2.0]> : tensor<2xf32>} : () -> tensor<2xf32>
    ```
    """

    name = "constant"
    attributes = {"value": ELEMENTS}

    @staticmethod
    def infer(*, value):
        return TensorType(value.shape, canonical_dtype(value.dtype))

    @staticmethod
    def reference(*, value):
        return value

    @staticmethod
    def lower(lowering, *, value):
        return hlo.constant(value)


class Iota(Op):
    """Indices ``0, 1, ...`` along ``dimension`` of a tensor of ``shape``.

    ```mlir
    %0 = "s4tf.iota"() {shape = array<i64: 2, 3>, dimension = 1 : i64, dtype = i32} : () -> tensor<2x3xi32>
    ```
    """

    name = "iota"
    attributes = {"shape": INT_ARRAY, "dimension": INT, "dtype": DTYPE}

    @staticmethod
    def infer(*, shape, dimension, dtype):
        check_axis(dimension, len(shape), "dimension")
        if dtype == BOOL_DTYPE:
            raise DTypeError("iota needs a number dtype, got i1")
        return TensorType(shape, dtype)

    @staticmethod
    def reference(*, shape, dimension, dtype):
        index_shape = [1] * len(shape)
        index_shape[dimension] = shape[dimension]
        indices = np.arange(shape[dimension]).reshape(index_shape)
        return np.broadcast_to(indices, shape).astype(to_numpy_dtype(dtype))

    @staticmethod
    def lower(lowering, *, shape, dimension, dtype):
        if dtype == "bf16":  # counted in i32: IREE's CPU backend cannot link an iota in bf16
            counted = lowering.result_type.with_dtype("i32")
            indices = hlo.value("iota", [], counted, iota_dimension=INT.to_mlir(dimension))
            return hlo.convert(indices, counted, lowering.result_type)
        return hlo.value("iota", [], lowering.result_type, iota_dimension=INT.to_mlir(dimension))


class BroadcastInDim(Op):
    """Broadcast ``x`` to ``shape``; operand axis ``i`` becomes result axis ``broadcast_dimensions[i]``.

    ```mlir
    %0 = "s4tf.broadcast_in_dim"(%x) {shape = array<i64: 4, 3>, broadcast_dimensions = array<i64: 1>} : (tensor<3xf32>) -> tensor<4x3xf32>
    ```
    """

    name = "broadcast_in_dim"
    operands = ("x",)
    attributes = {"shape": Shape(INT_ARRAY), "broadcast_dimensions": Permutation(INT_ARRAY)}
    linear = True
    noop_when_same_type = True

    @staticmethod
    def infer(x, *, shape, broadcast_dimensions):
        if len(broadcast_dimensions) != x.rank:
            raise ShapeError(
                f"broadcast_dimensions {list(broadcast_dimensions)} must name one result axis per "
                f"operand axis of {shape_str(x.shape)}"
            )
        if list(broadcast_dimensions) != sorted(set(broadcast_dimensions)):
            raise OpAttributeError(f"broadcast_dimensions {list(broadcast_dimensions)} must be increasing")
        for axis, target in enumerate(broadcast_dimensions):
            check_axis(target, len(shape), "broadcast dimension")
            if x.shape[axis] not in (1, shape[target]):
                raise ShapeError(f"cannot broadcast {shape_str(x.shape)} to {shape_str(shape)}")
        return TensorType(shape, x.dtype)

    @staticmethod
    def reference(x, *, shape, broadcast_dimensions):
        expanded = [1] * len(shape)
        for axis, target in enumerate(broadcast_dimensions):
            expanded[target] = x.shape[axis]
        return np.broadcast_to(np.reshape(x, expanded), shape)

    @staticmethod
    def lower(lowering, x, *, shape, broadcast_dimensions):
        return hlo.value(
            "broadcast_in_dim", [x], lowering.result_type, broadcast_dimensions=hlo.i64_array(broadcast_dimensions)
        )

    @staticmethod
    def transpose(ops, cotangent, operands, linear, *, shape, broadcast_dimensions):
        x = operands[0]
        summed = tuple(
            axis for axis in range(len(shape))
            if axis not in broadcast_dimensions or x.shape[broadcast_dimensions.index(axis)] != shape[axis]
        )
        return [ops.reshape(ops.sum(cotangent, axis=summed), x.shape)]


class Reshape(Op):
    """The same elements, in row-major order, in a new ``shape``.

    ```mlir
    %0 = "s4tf.reshape"(%x) {shape = array<i64: 12>} : (tensor<4x3xf32>) -> tensor<12xf32>
    ```
    """

    name = "reshape"
    static_shapes = True
    operands = ("x",)
    attributes = {"shape": Shape(INT_ARRAY)}
    linear = True
    noop_when_same_type = True

    @staticmethod
    def infer(x, *, shape):
        if any(d < 0 for d in shape):
            raise ShapeError(f"target shape {shape_str(shape)} has a negative dimension")
        if int(np.prod(shape)) != x.size:
            raise ShapeError(f"cannot reshape {shape_str(x.shape)} ({x.size} elements) to {shape_str(shape)}")
        return TensorType(shape, x.dtype)

    @staticmethod
    def reference(x, *, shape):
        return np.reshape(x, shape)

    @staticmethod
    def lower(lowering, x, *, shape):
        return hlo.value("reshape", [x], lowering.result_type)

    @staticmethod
    def transpose(ops, cotangent, operands, linear, *, shape):
        return [ops.reshape(cotangent, operands[0].shape)]


class Transpose(Op):
    """Permute axes: result axis ``i`` is operand axis ``permutation[i]``.

    ```mlir
    %0 = "s4tf.transpose"(%x) {permutation = array<i64: 1, 0>} : (tensor<4x3xf32>) -> tensor<3x4xf32>
    ```
    """

    name = "transpose"
    operands = ("x",)
    attributes = {"permutation": Permutation(INT_ARRAY)}
    linear = True

    @staticmethod
    def infer(x, *, permutation):
        if sorted(permutation) != list(range(x.rank)):
            raise OpAttributeError(f"permutation {list(permutation)} is not a permutation of {x.rank} axes")
        return TensorType([x.shape[p] for p in permutation], x.dtype)

    @staticmethod
    def reference(x, *, permutation):
        return np.transpose(x, permutation)

    @staticmethod
    def lower(lowering, x, *, permutation):
        return hlo.value("transpose", [x], lowering.result_type, permutation=hlo.i64_array(permutation))

    @staticmethod
    def is_identity(operand_types, *, permutation):
        return list(permutation) == sorted(permutation)

    @staticmethod
    def batch(ops, operands, batch_dims, *, permutation):
        """One transpose that also moves the batch axis to the front (the derived rule
        would transpose twice)."""
        d = batch_dims[0]
        # the batch axis stays where it is: per-example axis p is batched axis p + (p >= d)
        moved = [p + (p >= d) for p in permutation]
        return [ops.op("transpose", operands[0], permutation=(d, *moved))], [0]

    @staticmethod
    def transpose(ops, cotangent, operands, linear, *, permutation):
        return [ops.transpose(cotangent, np.argsort(permutation))]


class Reverse(Op):
    """Reverse the order of elements along ``axes`` (``np.flip``).

    ```mlir
    %0 = "s4tf.reverse"(%x) {axes = array<i64: 0>} : (tensor<4x3xf32>) -> tensor<4x3xf32>
    ```
    """

    name = "reverse"
    operands = ("x",)
    attributes = {"axes": Axes(INT_ARRAY)}
    linear = True

    @staticmethod
    def infer(x, *, axes):
        for axis in axes:
            check_axis(axis, x.rank)
        return x

    @staticmethod
    def reference(x, *, axes):
        return np.flip(x, axis=tuple(axes))

    @staticmethod
    def lower(lowering, x, *, axes):
        return hlo.value("reverse", [x], lowering.result_type, dimensions=hlo.i64_array(axes))

    @staticmethod
    def transpose(ops, cotangent, operands, linear, *, axes):
        return [ops.op("reverse", cotangent, axes=axes)]


class Slice(Op):
    """Static strided slice ``x[start:limit:stride]`` per axis (positive strides).

    ```mlir
    %0 = "s4tf.slice"(%x) {start = array<i64: 1, 0>, limit = array<i64: 3, 3>, stride = array<i64: 1, 2>} : (tensor<4x3xf32>) -> tensor<2x2xf32>
    ```
    """

    name = "slice"
    static_shapes = True
    operands = ("x",)
    attributes = {"start": PerAxis(INT_ARRAY, 0), "limit": PerAxis(INT_ARRAY, BATCH), "stride": PerAxis(INT_ARRAY, 1)}
    linear = True
    noop_when_same_type = True

    @staticmethod
    def infer(x, *, start, limit, stride):
        if not len(start) == len(limit) == len(stride) == x.rank:
            raise ShapeError(f"start, limit and stride need {x.rank} entries for {shape_str(x.shape)}")
        shape = []
        for axis, (lo, hi, step, dim) in enumerate(zip(start, limit, stride, x.shape)):
            if step < 1 or not 0 <= lo <= hi <= dim:
                raise ShapeError(
                    f"slice {lo}:{hi}:{step} of axis {axis} is out of range for {shape_str(x.shape)}"
                )
            shape.append(-(-(hi - lo) // step))
        return TensorType(shape, x.dtype)

    @staticmethod
    def reference(x, *, start, limit, stride):
        return x[tuple(slice(lo, hi, step) for lo, hi, step in zip(start, limit, stride))]

    @staticmethod
    def lower(lowering, x, *, start, limit, stride):
        return hlo.value(
            "slice",
            [x],
            lowering.result_type,
            start_indices=hlo.i64_array(start),
            limit_indices=hlo.i64_array(limit),
            strides=hlo.i64_array(stride),
        )

    @staticmethod
    def transpose_into(ops, accumulated, cotangent, operands, *, start, limit, stride):
        """Add the cotangent into ``x``'s cotangent so far, in place (``add_slice``): k reads
        of parts of ``x`` cost one buffer and k small updates, not k padded copies of ``x``."""
        x = operands[0]
        buffer = ops.zeros(x.shape, x.dtype) if accumulated is None else accumulated
        return ops.op("add_slice", buffer, cotangent, start=start, stride=stride)


def _slice_limit(start, stride, shape) -> tuple[int, ...]:
    """The ``limit`` of a slice from ``start`` by ``stride`` with ``shape`` elements."""
    return tuple(lo + (n - 1) * step + 1 if n else lo for lo, step, n in zip(start, stride, shape))


def _add_window(x, update, update_type: TensorType, start, result_type: TensorType):
    """StableHLO for ``x`` with ``update`` added into its window at ``start`` (unit strides)."""
    limit = [lo + n for lo, n in zip(start, update_type.shape)]
    window = hlo.value(
        "slice", [x], update_type,
        start_indices=hlo.i64_array(start), limit_indices=hlo.i64_array(limit), strides=hlo.i64_array([1] * len(start)),
    )
    total = hlo.value("add", [window, update], update_type)
    offsets = [hlo.scalar(lo, "i64") for lo in start]
    return hlo.value("dynamic_update_slice", [x, total, *offsets], result_type)


class AddSlice(Op):
    """``x`` with ``update`` added into its strided slice ``x[start::stride]`` of
    ``update``'s shape: the transpose of ``slice``, accumulated in place (a scatter-add).

    ```mlir
    %0 = "s4tf.add_slice"(%x, %u) {start = array<i64: 1, 0>, stride = array<i64: 1, 2>} : (tensor<4x3xf32>, tensor<2x2xf32>) -> tensor<4x3xf32>
    ```
    """

    name = "add_slice"
    static_shapes = True
    operands = ("x", "update")
    attributes = {"start": PerAxis(INT_ARRAY, 0), "stride": PerAxis(INT_ARRAY, 1)}
    linear = True

    @staticmethod
    def infer(x, update, *, start, stride):
        if x.dtype != update.dtype:
            raise DTypeError(f"x and update must have one dtype, got {x.dtype} and {update.dtype}")
        if x.dtype == BOOL_DTYPE:
            raise DTypeError("add_slice needs a number operand, got i1")
        if not len(start) == len(stride) == x.rank == update.rank:
            raise ShapeError(
                f"start and stride need {x.rank} entries, and update the rank of x, for "
                f"{shape_str(x.shape)} and {shape_str(update.shape)}"
            )
        limit = _slice_limit(start, stride, update.shape)
        for axis, (lo, hi, step, dim) in enumerate(zip(start, limit, stride, x.shape)):
            if step < 1 or not 0 <= lo <= hi <= dim:
                raise ShapeError(
                    f"update {shape_str(update.shape)} from {list(start)} by {list(stride)} does not fit "
                    f"axis {axis} of {shape_str(x.shape)}"
                )
        return x

    @staticmethod
    def reference(x, update, *, start, stride):
        result = np.array(x, copy=True)
        limit = _slice_limit(start, stride, update.shape)
        result[tuple(slice(lo, hi, step) for lo, hi, step in zip(start, limit, stride))] += update
        return result

    @staticmethod
    def lower(lowering, x, update, *, start, stride):
        """Unit strides: the window at ``start`` plus ``update``, written back with
        ``stablehlo.dynamic_update_slice``. Strides that divide their axes become unit
        strides of a reshaped ``x`` (axis ``n`` as ``(n / stride, stride)``); other strides
        give a ``stablehlo.scatter`` with ``add`` and one index per element of ``update``.
        All cost the size of ``update``, not of ``x``."""
        result_type, update_type = lowering.result_type, lowering.operand_types[1]
        if 0 in update_type.shape:
            return x
        if all(step == 1 for step in stride):
            return _add_window(x, update, update_type, start, result_type)
        if all(dim % step == 0 for dim, step in zip(result_type.shape, stride)):
            split, split_update, split_start = [], [], []
            for dim, n, lo, step in zip(result_type.shape, update_type.shape, start, stride):
                split += [dim] if step == 1 else [dim // step, step]
                split_update += [n] if step == 1 else [n, 1]
                split_start += [lo] if step == 1 else list(divmod(lo, step))
            x_split = TensorType(split, result_type.dtype)
            update_split = TensorType(split_update, result_type.dtype)
            added = _add_window(
                hlo.value("reshape", [x], x_split), hlo.value("reshape", [update], update_split),
                update_split, split_start, x_split,
            )
            return hlo.value("reshape", [added], result_type)
        axes = [lo + step * np.arange(n) for lo, step, n in zip(start, stride, update_type.shape)]
        # 32-bit indices where they fit: vulkan's baseline shaders have no 64-bit integers.
        index_dtype = np.int32 if max(result_type.shape) < 2**31 else np.int64
        indices = hlo.constant(np.stack(np.meshgrid(*axes, indexing="ij"), axis=-1).astype(index_dtype))
        return hlo.scatter_add(x, indices, update, result_type, index_vector_dim=result_type.rank)

    @staticmethod
    def transpose(ops, cotangent, operands, linear, *, start, stride):
        update = operands[1]
        limit = _slice_limit(start, stride, update.shape)
        part = ops.op("slice", cotangent, start=start, limit=limit, stride=stride) if linear[1] else None
        return [cotangent if linear[0] else None, part]


class Concatenate(Op):
    """Join tensors along ``axis``; other dimensions must agree.

    ```mlir
    %0 = "s4tf.concatenate"(%a, %b) {axis = 0 : i64} : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<3x3xf32>
    ```
    """

    name = "concatenate"
    static_shapes = True
    operands = ("inputs*",)
    attributes = {"axis": Axis(INT)}
    linear = True

    @staticmethod
    def is_identity(operand_types, *, axis):
        return len(operand_types) == 1

    @staticmethod
    def infer(*inputs, axis):
        first = inputs[0]
        check_axis(axis, first.rank)
        for other in inputs[1:]:
            if other.dtype != first.dtype:
                raise DTypeError(f"operands must have one dtype, got {first.dtype} and {other.dtype}")
            if other.rank != first.rank or any(
                a != b for i, (a, b) in enumerate(zip(first.shape, other.shape)) if i != axis
            ):
                raise ShapeError(
                    f"shapes {shape_str(first.shape)} and {shape_str(other.shape)} differ outside axis {axis}"
                )
        shape = list(first.shape)
        shape[axis] = sum(t.shape[axis] for t in inputs)
        return TensorType(shape, first.dtype)

    @staticmethod
    def reference(*inputs, axis):
        return np.concatenate(inputs, axis=axis)

    @staticmethod
    def lower(lowering, *inputs, axis):
        return hlo.value("concatenate", list(inputs), lowering.result_type, dimension=INT.to_mlir(axis))

    @staticmethod
    def transpose(ops, cotangent, operands, linear, *, axis):
        pieces, offset = [], 0
        for operand, is_linear in zip(operands, linear):
            size = operand.shape[axis]
            if is_linear:
                start = [0] * len(operand.shape)
                start[axis] = offset
                limit = list(cotangent.shape)
                limit[axis] = offset + size
                pieces.append(ops.slice(cotangent, start, limit))
            else:
                pieces.append(None)
            offset += size
        return pieces


class Pad(Op):
    """Pad ``x`` with the scalar ``value``: ``low``/``high`` elements per axis edge and
    ``interior`` elements between neighbours. A negative ``low`` or ``high`` crops that many
    elements from the edge instead (after interior padding, as ``lax.pad``).

    ```mlir
    %0 = "s4tf.pad"(%x, %zero) {low = array<i64: 1>, high = array<i64: 2>, interior = array<i64: 0>} : (tensor<3xf32>, tensor<f32>) -> tensor<6xf32>
    ```
    """

    name = "pad"
    static_shapes = True
    operands = ("x", "value")
    attributes = {"low": PerAxis(INT_ARRAY, 0), "high": PerAxis(INT_ARRAY, 0), "interior": PerAxis(INT_ARRAY, 0)}
    linear = True

    @staticmethod
    def infer(x, value, *, low, high, interior):
        if value.rank != 0:
            raise ShapeError(f"padding value must be a scalar, got shape {shape_str(value.shape)}")
        if value.dtype != x.dtype:
            raise DTypeError(f"padding value dtype {value.dtype} differs from operand dtype {x.dtype}")
        if not len(low) == len(high) == len(interior) == x.rank:
            raise ShapeError(f"low, high and interior need {x.rank} entries for {shape_str(x.shape)}")
        if any(i < 0 for i in interior):
            raise ShapeError(f"interior padding must be non-negative, got {list(interior)}")
        shape = _padded_shape(x.shape, low, high, interior)
        for axis, size in enumerate(shape):
            if size < 0:
                raise ShapeError(
                    f"padding low={low[axis]}, high={high[axis]} crops more than the {_dilated(x.shape[axis], interior[axis])} "
                    f"elements of axis {axis} of {shape_str(x.shape)}"
                )
        return TensorType(shape, x.dtype)

    @staticmethod
    def batch(ops, operands, batch_dims, *, low, high, interior):
        """The padding widths by their roles; the scalar ``value`` is not broadcast. A
        padding value per example: pad with any value, then select each example's value
        where a padded mask of ones says the element is padding."""
        x, value = operands
        size = batch_size(operands, batch_dims)
        widths = {"low": low, "high": high, "interior": interior}
        padding = {key: Pad.attributes[key].batched(width, size) for key, width in widths.items()}
        if batch_dims[1] is None:
            return [ops.op("pad", to_front(ops, x, batch_dims[0]), value, **padding)], [0]
        x = with_batch(ops, x, batch_dims[0], size)
        padded = ops.op("pad", x, ops.zeros((), x.dtype), **padding)
        inside = ops.op("pad", ops.ones(x.shape[1:], "i32"), ops.zeros((), "i32"), **widths)
        per_example = ops.reshape(value, (size,) + (1,) * len(low))
        return [ops.where(ops.equal(inside, ops.ones((), "i32")), padded, per_example)], [0]

    @staticmethod
    def reference(x, value, *, low, high, interior):
        """Pad by the positive amounts, then crop the negative ones."""
        grown = _padded_shape(x.shape, [max(lo, 0) for lo in low], [max(hi, 0) for hi in high], interior)
        result = np.full(grown, value, dtype=x.dtype)
        starts = [max(lo, 0) for lo in low]
        result[tuple(slice(s, s + _dilated(d, i), i + 1) for s, d, i in zip(starts, x.shape, interior))] = x
        return result[tuple(slice(max(-lo, 0), size - max(-hi, 0)) for size, lo, hi in zip(grown, low, high))]

    @staticmethod
    def lower(lowering, x, value, *, low, high, interior):
        return hlo.value(
            "pad",
            [x, value],
            lowering.result_type,
            edge_padding_low=hlo.i64_array(low),
            edge_padding_high=hlo.i64_array(high),
            interior_padding=hlo.i64_array(interior),
        )

    @staticmethod
    def transpose(ops, cotangent, operands, linear, *, low, high, interior):
        """The cotangent at the operand's positions: a strided slice, after zeros are put
        back where elements were cropped (their cotangent is zero)."""
        x = operands[0]
        cropped_low, cropped_high = [max(-lo, 0) for lo in low], [max(-hi, 0) for hi in high]
        if any(cropped_low) or any(cropped_high):
            zero = ops.full((), 0, cotangent.dtype)
            cotangent = ops.op("pad", cotangent, zero, low=cropped_low, high=cropped_high, interior=(0,) * len(low))
        start = [max(lo, 0) for lo in low]
        limit = [s + _dilated(d, i) for s, d, i in zip(start, x.shape, interior)]
        inner = ops.slice(cotangent, start, limit, [i + 1 for i in interior])
        return [inner if linear[0] else None, ops.sum(cotangent) - ops.sum(inner) if linear[1] else None]


def _dilated(size: int, interior: int) -> int:
    """The length of ``size`` elements with ``interior`` elements between neighbours."""
    return size + max(size - 1, 0) * interior


def _padded_shape(shape, low, high, interior) -> list[int]:
    return [lo + hi + _dilated(d, i) for d, lo, hi, i in zip(shape, low, high, interior)]
