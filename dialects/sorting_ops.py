"""Sorting: ``s4tf.sort`` orders a tensor of values as a tensor of keys sorts.

```mlir
%0 = "s4tf.sort"(%keys, %values) {axis = 1 : i64, descending = false} : (tensor<4x3xf32>, tensor<4x3xi32>) -> tensor<4x3xi32>
```

``sort(x, x)`` sorts ``x``; ``sort(x, iota)`` is ``argsort``. The sort is stable; NaN keys
count as greater than every number (last ascending, first descending). One result keeps
the derivative rules those of a single-result op: the values' tangents are sorted by the
same keys, and the transpose sorts the cotangent by the permutation, which inverts it.
"""

from __future__ import annotations

import numpy as np

from s4tf.dialects import hlo
from s4tf.dialects.attribute_roles import Axis
from s4tf.dialects.attributes import BOOL, INT
from s4tf.dialects.op_def import Op
from s4tf.dialects.shape_ops import check_axis
from s4tf.dialects.types import BOOL_DTYPE, TensorType, is_float, to_numpy_dtype
from s4tf.core.errors import ShapeError
from s4tf.core.mlir import ir


def sort_order(keys: np.ndarray, axis: int, descending: bool) -> np.ndarray:
    """The stable permutation along ``axis`` that sorts ``keys`` (NaN greatest). bfloat16
    keys are sorted as float32 (exactly): NumPy's sort of ml_dtypes' bfloat16 misplaces NaN."""
    if keys.dtype == to_numpy_dtype("bf16"):
        keys = keys.astype(np.float32)
    if not descending:
        return np.argsort(keys, axis=axis, kind="stable")
    size = keys.shape[axis]
    return size - 1 - np.flip(np.argsort(np.flip(keys, axis), axis=axis, kind="stable"), axis)


class Sort(Op):
    """``values`` reordered along ``axis`` as a stable sort orders ``keys`` (of one shape).

    ```mlir
    %0 = "s4tf.sort"(%keys, %values) {axis = 0 : i64, descending = true} : (tensor<5xf32>, tensor<5xi32>) -> tensor<5xi32>
    ```
    """

    name = "sort"
    operands = ("keys", "values")
    attributes = {"axis": Axis(INT), "descending": BOOL}
    nondifferentiable_operands = (0,)
    linear = True

    @staticmethod
    def infer(keys, values, *, axis, descending):
        check_axis(axis, keys.rank)
        if keys.shape != values.shape:
            raise ShapeError(f"keys {keys} and values {values} must have one shape")
        return values

    @staticmethod
    def reference(keys, values, *, axis, descending):
        return np.take_along_axis(np.asarray(values), sort_order(np.asarray(keys), axis, descending), axis=axis)

    @staticmethod
    def lower(lowering, keys, values, *, axis, descending):
        """A ``stablehlo.sort`` of keys and positions, whose sorted positions then gather the
        values. Ties are broken by position, since IREE's CPU sort is not stable even when
        asked to be; and only the positions are used sorted, since IREE sorts in place in the
        buffer of a function argument whose sorted result is used. IREE-3.13-WORKAROUND: the
        positions are an iota copied by :func:`s4tf.dialects.hlo.unshared`: in a loop's body
        IREE 3.13 sorted in place in the iota that the gather reads again (``cse`` merges
        ``argsort``'s values, an equal iota, with the positions), so ``argsort`` in a
        ``fori_loop`` of a run-time trip count gave wrong indices. (With IREE's hoisting of
        constant expressions turned off, sorts go wrong outside loops too, copy or not.)"""
        keys_type, values_type = lowering.operand_types
        if 0 in keys_type.shape:  # nothing to order (IREE's gather of no positions would not verify)
            return values
        positions_type = keys_type.with_dtype("i32")
        positions = hlo.unshared(hlo.value("iota", [], positions_type, iota_dimension=INT.to_mlir(axis)), positions_type)
        sort = hlo.op(
            "sort", [keys, positions], [keys_type, positions_type], regions=1,
            dimension=INT.to_mlir(axis), is_stable=ir.BoolAttr.get(True),
        )
        scalars = [TensorType((), t.dtype).to_mlir() for t in (keys_type, positions_type)]
        block = sort.regions[0].blocks.append(*(s for s in scalars for _ in range(2)))
        with ir.InsertionPoint(block):
            key_a, key_b, position_a, position_b = block.arguments
            flag = TensorType((), BOOL_DTYPE)
            a_first = _precedes(key_a, key_b, keys_type.dtype, descending)
            b_first = _precedes(key_b, key_a, keys_type.dtype, descending)
            earlier = hlo.compare(position_a, position_b, "LT", "i32", flag)
            tie_won = hlo.value("and", [hlo.value("not", [b_first], flag), earlier], flag)
            hlo.op("return", [hlo.value("or", [a_first, tie_won], flag)], [])
        return hlo.take_along_axis(values, values_type, sort.results[1], "i32", axis)

    @staticmethod
    def transpose(ops, cotangent, operands, linear, *, axis, descending):
        keys = operands[0]
        positions = ops.op("iota", shape=tuple(keys.shape), dimension=axis, dtype="i32")
        permutation = ops.op("sort", keys, positions, axis=axis, descending=descending)
        return [None, ops.op("sort", permutation, cotangent, axis=axis, descending=False)]


def _precedes(a, b, dtype: str, descending: bool):
    """Whether key ``a`` goes before key ``b``: ``a < b`` (``a > b`` descending), NaN greatest."""
    flag = TensorType((), BOOL_DTYPE)
    first = hlo.compare(a, b, "GT" if descending else "LT", dtype, flag)
    if not is_float(dtype):
        return first
    a_nan, b_nan = hlo.compare(a, a, "NE", dtype, flag), hlo.compare(b, b, "NE", dtype, flag)
    nan_first = (a_nan, b_nan) if descending else (b_nan, a_nan)  # the NaN side goes first (descending) or last
    not_other = hlo.value("not", [nan_first[1]], flag)
    return hlo.value("or", [first, hlo.value("and", [nan_first[0], not_other], flag)], flag)
