"""Cumulative sums and products along an axis (inclusive; ``reverse`` runs from the end).

```mlir
%0 = "s4tf.cumsum"(%x) {axis = 1 : i64, reverse = false} : (tensor<4x3xf32>) -> tensor<4x3xf32>
```

Both lower to a ``stablehlo.reduce_window`` whose window covers the whole axis, padded on
one side, as XLA lowers them on CPU.
"""

from __future__ import annotations

import numpy as np

from s4tf.dialects import hlo
from s4tf.dialects.attribute_roles import Axis
from s4tf.dialects.attributes import BOOL, INT
from s4tf.dialects.op_def import Op
from s4tf.dialects.shape_ops import check_axis
from s4tf.dialects.types import is_float, is_integer
from s4tf.core.errors import DTypeError


class CumulativeOp(Op):
    """Inclusive scan of ``x`` along ``axis`` with one binary op; ``reverse`` scans from the end.

    ```mlir
    %0 = "s4tf.{name}"(%x) {axis = 0 : i64, reverse = false} : (tensor<5xf32>) -> tensor<5xf32>
    ```
    """

    operands = ("x",)
    attributes = {"axis": Axis(INT), "reverse": BOOL}
    numpy = None
    body = ""
    identity = 0

    @classmethod
    def infer(cls, x, *, axis, reverse):
        check_axis(axis, x.rank)
        if not (is_float(x.dtype) or is_integer(x.dtype)):
            raise DTypeError(f"needs a number operand, got {x.dtype}")
        return x

    @classmethod
    def reference(cls, x, *, axis, reverse):
        if reverse:
            return np.flip(cls.numpy(np.flip(x, axis), axis=axis), axis)
        return cls.numpy(x, axis=axis)

    @classmethod
    def lower(cls, lowering, x, *, axis, reverse):
        x_type = lowering.operand_types[0]
        size = x_type.shape[axis]
        window = [size if a == axis else 1 for a in range(x_type.rank)]
        padding = [((0, size - 1) if reverse else (size - 1, 0)) if a == axis else (0, 0) for a in range(x_type.rank)]
        init = hlo.scalar(cls.identity, x_type.dtype)
        return hlo.reduce_window(x, x_type, init, cls.body, x_type, window, [1] * x_type.rank, padding)


class CumSum(CumulativeOp):
    """Cumulative sum along ``axis``."""

    name = "cumsum"
    numpy = staticmethod(np.cumsum)
    linear = True
    body = "add"

    @classmethod
    def transpose(cls, ops, cotangent, operands, linear, *, axis, reverse):
        return [ops.op(cls.name, cotangent, axis=axis, reverse=not reverse)]


class CumProd(CumulativeOp):
    """Cumulative product along ``axis``. Its derivative holds where elements are zero:
    result ``i``'s derivative in element ``j <= i`` is the product of the others up to ``i``
    (``n**2`` products for an axis of ``n``, not a division by ``x``)."""

    name = "cumprod"
    numpy = staticmethod(np.cumprod)
    body = "multiply"
    identity = 1

    @classmethod
    def jvp(cls, ops, primals, tangents, result, *, axis, reverse):
        x, dx = primals[0], tangents[0]
        rank, n = len(x.shape), x.shape[axis]
        order = [a for a in range(rank) if a != axis] + [axis]
        back = [order.index(a) for a in range(rank)]
        x_last, dx_last = ops.transpose(x, order), ops.transpose(dx, order)
        rows = ops.op("iota", shape=(n, n), dimension=0, dtype="i32")
        columns = ops.op("iota", shape=(n, n), dimension=1, dtype="i32")
        # others[..., j, k]: x[..., k], with x[..., j] replaced by 1
        others = ops.where(rows == columns, 1.0, ops.reshape(x_last, x_last.shape[:-1] + (1, n)))
        others = ops.astype(others, x.dtype)
        partial = ops.op(cls.name, ops.broadcast_to(others, x_last.shape[:-1] + (n, n)), axis=rank, reverse=reverse)
        reached = (rows >= columns) if reverse else (rows <= columns)  # j's products reach result i
        weights = partial * ops.stop_gradient(ops.astype(reached, x.dtype))
        tangent = ops.sum(ops.reshape(dx_last, dx_last.shape + (1,)) * weights, axis=rank - 1)
        return ops.transpose(tangent, back)
