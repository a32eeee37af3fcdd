"""Reductions over axes: sum, max, min, mean, and argmax.

```mlir
%0 = "s4tf.reduce_sum"(%x) {axes = array<i64: 1>, keepdims = false} : (tensor<4x3xf32>) -> tensor<4xf32>
```
"""

from __future__ import annotations

import numpy as np


from s4tf.dialects import hlo
from s4tf.dialects.attribute_roles import Axes, Axis
from s4tf.dialects.attributes import BOOL, DTYPE, INT, INT_ARRAY
from s4tf.dialects.derivative_helpers import mask
from s4tf.dialects.op_def import Op
from s4tf.dialects.shape_ops import check_axis
from s4tf.dialects.types import TensorType, is_float, is_integer, to_numpy_dtype
from s4tf.core.errors import DTypeError, OpAttributeError
from s4tf.core.mlir import ir


def reduced_shape(shape, axes, keepdims) -> tuple:
    if keepdims:
        return tuple(1 if i in axes else d for i, d in enumerate(shape))
    return tuple(d for i, d in enumerate(shape) if i not in axes)


def _check_axes(x: TensorType, axes) -> None:
    for axis in axes:
        check_axis(axis, x.rank)
    if len(set(axes)) != len(axes):
        raise OpAttributeError(f"axes {list(axes)} repeat an axis")


def _identity(body: str, dtype: str):
    """The initial value of a reduction with ``body`` over ``dtype``."""
    if body == "add":
        return 0
    if body == "multiply":
        return 1
    if dtype == "i1":
        return body == "minimum"
    if is_integer(dtype):
        info = np.iinfo(to_numpy_dtype(dtype))
        return info.min if body == "maximum" else info.max
    return -np.inf if body == "maximum" else np.inf


class ReduceOp(Op):
    """Reduce ``x`` over ``axes``; ``keepdims`` keeps them as size-1 axes.

    ```mlir
    %0 = "s4tf.{name}"(%x) {axes = array<i64: 1>, keepdims = false} : (tensor<4x3xf32>) -> tensor<4xf32>
    ```
    """

    operands = ("x",)
    attributes = {"axes": Axes(INT_ARRAY), "keepdims": BOOL}
    numpy = None
    body = ""

    @classmethod
    def infer(cls, x, *, axes, keepdims):
        _check_axes(x, axes)
        return TensorType(reduced_shape(x.shape, axes, keepdims), x.dtype)

    @classmethod
    def reference(cls, x, *, axes, keepdims):
        return cls.numpy(x, axis=tuple(axes), keepdims=keepdims)

    @classmethod
    def lower(cls, lowering, x, *, axes, keepdims):
        x_type = lowering.operand_types[0]
        init = hlo.scalar(_identity(cls.body, x_type.dtype), x_type.dtype)
        if cls.body == "add":
            reduced = _sum_axis_by_axis(x, x_type, init, axes)
        else:
            reduced = hlo.reduce(x, x_type, init, cls.body, axes)
        if keepdims:
            reduced = hlo.value("reshape", [reduced], lowering.result_type)
        return reduced


def _merged_axes(shape, axes) -> tuple[tuple, tuple]:
    """``(shape, axes)`` with each run of adjacent reduced ``axes`` merged into one axis
    (the shape unchanged where a dimension is dynamic: a reshape needs static sizes)."""
    if None in shape:
        return tuple(shape), tuple(sorted(axes))
    merged_shape, merged_axes = [], []
    for axis, size in enumerate(shape):
        if axis in axes and axis - 1 in axes:
            merged_shape[-1] *= size
        else:
            if axis in axes:
                merged_axes.append(len(merged_shape))
            merged_shape.append(size)
    return tuple(merged_shape), tuple(merged_axes)


def _sum_axis_by_axis(x: ir.Value, x_type: TensorType, init: ir.Value, axes) -> ir.Value:
    """A sum over ``axes`` as single-axis ``stablehlo.reduce`` ops: adjacent axes are merged
    by a reshape first, and the merged axes are summed from the innermost out, each float
    one in blocks (``_blocked_sum``).

    IREE-3.13-WORKAROUND: IREE 3.13's CPU backend can fail ("'vector.contract' op invalid accumulator/result
    vector shape") on a sum over two or more axes of a product with a broadcast factor,
    such as ``sum(t * b)`` with ``t`` of shape ``(4, 5)`` and ``b`` of ``(5,)``: it fuses
    them into one contraction, with a summed axis that ``b`` lacks, which it cannot
    vectorize. Sums over one axis compiled in every case tried
    (``tests/dialects/test_fused_contractions.py``).
    """
    shape, axes = _merged_axes(x_type.shape, axes)
    if shape != tuple(x_type.shape):
        x_type = TensorType(shape, x_type.dtype)
        x = hlo.value("reshape", [x], x_type)
    if not axes:
        return hlo.reduce(x, x_type, init, "add", ())
    for axis in reversed(axes):
        if is_float(x_type.dtype):
            x, x_type = _blocked_sum(x, x_type, init, axis)
        x = hlo.reduce(x, x_type, init, "add", (axis,))
        x_type = TensorType(reduced_shape(x_type.shape, (axis,), False), x_type.dtype)
    return x


LONGEST = 64
"""Float sums add at most ``LONGEST`` elements one after the other (see ``_blocked_sum``)."""


def _block(n: int) -> int:
    """The block length for summing ``n`` elements: a divisor of ``n`` from 16 to ``LONGEST``,
    the one nearest 32, or 32 where ``n`` has none."""
    return min((b for b in range(16, LONGEST + 1) if n % b == 0), key=lambda b: abs(b - 32), default=32)


def _blocked_sum(x: ir.Value, x_type: TensorType, init: ir.Value, axis: int) -> tuple[ir.Value, TensorType]:
    """``x`` with its ``axis`` summed down to at most ``LONGEST`` partial sums, and their type.

    IREE-3.13-WORKAROUND: IREE adds the elements of a ``stablehlo.reduce`` one after the other, whose float32
    error grows with their number (5e-6 relative for 32768 elements). Here the extent
    ``n`` of ``axis`` is split into ``n // b`` blocks of ``b = _block(n)`` elements by a
    reshape and the blocks are summed, the sum of the ``n % b`` elements left over (sliced
    off, as padding would copy ``x``) appended; and so on until ``LONGEST`` or fewer sums
    are left: a tree of sums of ``b`` elements, ``log(n) / log(b)`` levels deep.
    ``block_sums`` is the same in NumPy.
    """
    while None not in x_type.shape and x_type.shape[axis] > LONGEST:  # a reshape needs static sizes
        n = x_type.shape[axis]
        b = _block(n)
        blocks, rest = divmod(n, b)
        split = TensorType(x_type.shape[:axis] + (blocks, b) + x_type.shape[axis + 1:], x_type.dtype)
        head, _ = _part(x, x_type, axis, 0, blocks * b)
        sums = hlo.reduce(hlo.value("reshape", [head], split), split, init, "add", (axis + 1,))
        sums_type = TensorType(reduced_shape(split.shape, (axis + 1,), False), x_type.dtype)
        if rest:
            tail, tail_type = _part(x, x_type, axis, blocks * b, n)
            tail = hlo.reduce(tail, tail_type, init, "add", (axis,))
            tail = hlo.value("reshape", [tail], TensorType(reduced_shape(x_type.shape, (axis,), True), x_type.dtype))
            sums_type = TensorType(sums_type.shape[:axis] + (blocks + 1,) + sums_type.shape[axis + 1:], x_type.dtype)
            sums = hlo.value("concatenate", [sums, tail], sums_type, dimension=INT.to_mlir(axis))
        x, x_type = sums, sums_type
    return x, x_type


def _part(x: ir.Value, x_type: TensorType, axis: int, start: int, limit: int) -> tuple[ir.Value, TensorType]:
    """Elements ``start`` to ``limit`` of ``x`` along ``axis``, and their type."""
    if (start, limit) == (0, x_type.shape[axis]):
        return x, x_type
    part_type = TensorType(x_type.shape[:axis] + (limit - start,) + x_type.shape[axis + 1:], x_type.dtype)
    starts = [start if i == axis else 0 for i in range(x_type.rank)]
    limits = [limit if i == axis else d for i, d in enumerate(x_type.shape)]
    part = hlo.value("slice", [x], part_type, start_indices=hlo.i64_array(starts),
                     limit_indices=hlo.i64_array(limits), strides=hlo.i64_array([1] * x_type.rank))
    return part, part_type


def block_sums(x: np.ndarray, axes) -> np.ndarray:
    """``x`` summed over ``axes`` as the lowering sums floats (``_blocked_sum``), the reduced
    elements of each result element taken in row-major order."""
    kept = [a for a in range(x.ndim) if a not in axes]
    x = np.transpose(x, kept + sorted(axes))
    x = x.reshape(x.shape[:len(kept)] + (-1,))
    while x.shape[-1] > LONGEST:
        b = _block(x.shape[-1])
        blocks, rest = divmod(x.shape[-1], b)
        sums = x[..., :blocks * b].reshape(x.shape[:-1] + (blocks, b)).sum(axis=-1)
        x = np.concatenate([sums, x[..., blocks * b:].sum(axis=-1, keepdims=True)], axis=-1) if rest else sums
    return x.sum(axis=-1)


def _shaped(reduced: np.ndarray, x: np.ndarray, axes, keepdims) -> np.ndarray:
    """``reduced`` with the reduced axes kept as size 1 where ``keepdims``."""
    return np.reshape(reduced, reduced_shape(x.shape, axes, True)) if keepdims else reduced


def _kept(ops, reduced, x, axes):
    """``reduced`` reshaped to keep the reduced axes as size 1, so it broadcasts against ``x``."""
    return ops.reshape(reduced, reduced_shape(x.shape, axes, True))


class ReduceSum(ReduceOp):
    """Sum over ``axes``."""

    name = "reduce_sum"
    numpy = staticmethod(np.sum)
    linear = True
    body = "add"

    @classmethod
    def infer(cls, x, *, axes, keepdims):
        if not (is_float(x.dtype) or is_integer(x.dtype)):  # an i1 add would be a xor
            raise DTypeError(f"sum needs a number operand, got {x.dtype}")
        return super().infer(x, axes=axes, keepdims=keepdims)

    @classmethod
    def reference(cls, x, *, axes, keepdims):
        if not np.issubdtype(x.dtype, np.floating):
            return super().reference(x, axes=axes, keepdims=keepdims)
        return _shaped(block_sums(x, axes), x, axes, keepdims)

    @classmethod
    def transpose(cls, ops, cotangent, operands, linear, *, axes, keepdims):
        x = operands[0]
        return [ops.broadcast_to(_kept(ops, cotangent, x, axes), x.shape)]


class _ExtremumReduction(ReduceOp):
    """Max/min: the derivative is shared evenly among the elements equal to the extremum."""

    @classmethod
    def jvp(cls, ops, primals, tangents, result, *, axes, keepdims):
        x = primals[0]
        hits = mask(ops, x == _kept(ops, result, x, axes), x.dtype)
        return ops.sum(tangents[0] * hits, axis=axes, keepdims=keepdims) / ops.sum(hits, axis=axes, keepdims=keepdims)


class ReduceMax(_ExtremumReduction):
    """Maximum over ``axes``."""

    name = "reduce_max"
    numpy = staticmethod(np.max)
    body = "maximum"


class ReduceMin(_ExtremumReduction):
    """Minimum over ``axes``."""

    name = "reduce_min"
    numpy = staticmethod(np.min)
    body = "minimum"


class ReduceMean(ReduceOp):
    """Arithmetic mean over ``axes`` (float dtypes)."""

    name = "reduce_mean"
    numpy = staticmethod(np.mean)
    linear = True
    body = "add"

    @classmethod
    def infer(cls, x, *, axes, keepdims):
        if not is_float(x.dtype):
            raise DTypeError(f"mean needs a float operand, got {x.dtype}")
        return super().infer(x, axes=axes, keepdims=keepdims)

    @classmethod
    def reference(cls, x, *, axes, keepdims):
        count = np.asarray(np.prod([x.shape[a] for a in axes]), x.dtype)
        return _shaped(block_sums(x, axes) / count, x, axes, keepdims)

    @classmethod
    def lower(cls, lowering, x, *, axes, keepdims):
        total = super().lower(lowering, x, axes=axes, keepdims=keepdims)
        count = int(np.prod([lowering.operand_types[0].shape[a] for a in axes]))
        result_type = lowering.result_type
        divisor = hlo.splat(count, result_type)
        return hlo.value("divide", [total, divisor], result_type)

    @classmethod
    def transpose(cls, ops, cotangent, operands, linear, *, axes, keepdims):
        x = operands[0]
        count = int(np.prod([x.shape[a] for a in axes]))
        return [ops.broadcast_to(_kept(ops, cotangent, x, axes), x.shape) / count]


class ReduceProd(ReduceOp):
    """Product over ``axes``. Its derivative holds where elements are zero: the derivative
    in each element is the product of the others (before it times after it, two cumulative
    products, no division)."""

    name = "reduce_prod"
    numpy = staticmethod(np.prod)
    body = "multiply"

    @classmethod
    def infer(cls, x, *, axes, keepdims):
        if not (is_float(x.dtype) or is_integer(x.dtype)):  # an i1 product would be an and
            raise DTypeError(f"prod needs a number operand, got {x.dtype}")
        return super().infer(x, axes=axes, keepdims=keepdims)

    @classmethod
    def jvp(cls, ops, primals, tangents, result, *, axes, keepdims):
        x, dx = primals[0], tangents[0]
        kept = [a for a in range(len(x.shape)) if a not in axes]
        count = int(np.prod([x.shape[a] for a in axes]))
        if count == 0:
            return ops.op("reduce_sum", dx, axes=axes, keepdims=keepdims)
        rows = tuple(x.shape[a] for a in kept) + (count,)
        flat = ops.reshape(ops.transpose(x, kept + list(axes)), rows)
        d_flat = ops.reshape(ops.transpose(dx, kept + list(axes)), rows)
        others = _exclusive_products(ops, flat, reverse=False) * _exclusive_products(ops, flat, reverse=True)
        tangent = ops.sum(d_flat * others, axis=len(kept))
        return ops.reshape(tangent, result.shape)


def _exclusive_products(ops, x, reverse):
    """Products along the last axis of the elements before each (after it, with ``reverse``)."""
    rank, n = len(x.shape), x.shape[-1]
    inclusive = ops.op("cumprod", x, axis=rank - 1, reverse=reverse)
    start, limit = [0] * rank, list(x.shape)
    low, high = [0] * rank, [0] * rank
    if reverse:
        start[-1], high[-1] = 1, 1
    else:
        limit[-1], low[-1] = n - 1, 1
    shifted = ops.op("slice", inclusive, start=tuple(start), limit=tuple(limit), stride=(1,) * rank)
    one = ops.op("constant", value=np.ones((), x.dtype))
    return ops.op("pad", shifted, one, low=tuple(low), high=tuple(high), interior=(0,) * rank)


class Argmax(Op):
    """Index of the first maximum along ``axis``, as ``dtype`` (an integer type).

    ```mlir
    %0 = "s4tf.argmax"(%x) {axis = 1 : i64, keepdims = false, dtype = i32} : (tensor<4x3xf32>) -> tensor<4xi32>
    ```
    """

    name = "argmax"
    operands = ("x",)
    attributes = {"axis": Axis(INT), "keepdims": BOOL, "dtype": DTYPE}

    @staticmethod
    def infer(x, *, axis, keepdims, dtype):
        check_axis(axis, x.rank)
        if not is_integer(dtype):
            raise DTypeError(f"index dtype must be an integer type, got {dtype}")
        return TensorType(reduced_shape(x.shape, (axis,), keepdims), dtype)

    @staticmethod
    def reference(x, *, axis, keepdims, dtype):
        return np.argmax(x, axis=axis, keepdims=keepdims)

    @staticmethod
    def lower(lowering, x, *, axis, keepdims, dtype):
        """A two-operand ``stablehlo.reduce`` over (value, index) pairs keeping the first maximum."""
        x_type = lowering.operand_types[0]
        index_type = x_type.with_dtype(dtype)
        indices = hlo.value("iota", [], index_type, iota_dimension=INT.to_mlir(axis))
        value_init = hlo.scalar(_identity("maximum", x_type.dtype), x_type.dtype)
        index_init = hlo.scalar(0, dtype)
        reduced_value = TensorType(reduced_shape(x_type.shape, (axis,), False), x_type.dtype)
        reduced_index = reduced_value.with_dtype(dtype)
        reduce_op = hlo.op(
            "reduce",
            [x, indices, value_init, index_init],
            [reduced_value, reduced_index],
            regions=1,
            dimensions=hlo.i64_array([axis]),
        )
        value_scalar, index_scalar = TensorType((), x_type.dtype), TensorType((), dtype)
        block = reduce_op.regions[0].blocks.append(
            value_scalar.to_mlir(), index_scalar.to_mlir(), value_scalar.to_mlir(), index_scalar.to_mlir()
        )
        with ir.InsertionPoint(block):
            value_a, index_a, value_b, index_b = block.arguments
            pred_type = TensorType((), "i1")
            a_greater = hlo.compare(value_a, value_b, "GT", x_type.dtype, pred_type)
            a_nan = hlo.compare(value_a, value_a, "NE", x_type.dtype, pred_type)
            values_equal = hlo.compare(value_a, value_b, "EQ", x_type.dtype, pred_type)
            a_first = hlo.compare(index_a, index_b, "LT", dtype, pred_type)
            take_a = hlo.value(
                "or",
                [hlo.value("or", [a_greater, a_nan], pred_type), hlo.value("and", [values_equal, a_first], pred_type)],
                pred_type,
            )
            best_value = hlo.value("select", [take_a, value_a, value_b], value_scalar)
            best_index = hlo.value("select", [take_a, index_a, index_b], index_scalar)
            hlo.op("return", [best_value, best_index], [])
        result = reduce_op.results[1]
        if keepdims:
            result = hlo.value("reshape", [result], lowering.result_type)
        return result
