"""Tapes: fixed-size device buffers of rows written and read at a run-time index, for
reverse mode through loops.

A tape of ``K`` rows of type ``tensor<S>`` is a ``tensor<KxS>`` (made with
``s4tf.zeros``); loop derivatives write checkpoints of the carried state into it
(``passes/autodiff/region_derivatives.py``).

```mlir
%t1 = "s4tf.tape_write"(%t0, %i, %x) : (tensor<8x3xf32>, tensor<i32>, tensor<3xf32>) -> tensor<8x3xf32>
%r = "s4tf.tape_read"(%t1, %i) : (tensor<8x3xf32>, tensor<i32>) -> tensor<3xf32>
```

They lower to ``stablehlo.dynamic_update_slice``/``dynamic_slice``. IREE-3.13-WORKAROUND: tapes have
static shapes because IREE 3.13 was unreliable with loop-carried ``tensor<?x...>`` tapes: grown by
doubling (``tensor.empty``/``insert_slice`` under ``scf.if``) or allocated from a counted
trip count, their rows came back as zeros or stale values once the loops that write and
read them shared one function, and a dynamically shaped ``dynamic_update_slice`` does not
compile.
"""

from __future__ import annotations

from s4tf.dialects import hlo
from s4tf.dialects.batching_helpers import batch_size, with_batch
from s4tf.dialects.indexing_ops import with_lane_coordinate
from s4tf.dialects.op_def import MissingDerivativeRule, Op
from s4tf.dialects.types import INT_DTYPES, TensorType, canonical_dtype, is_integer
from s4tf.core.errors import DTypeError, ShapeError


class _TapeOp(Op):
    """Tape ops are not folded or erased by canonicalization. They are linear in the tape
    and the row: their forward-mode rules (forward over a loop's reverse mode:
    ``s4tf.hessian``) are derived; they have no transpose rule."""

    pure = False
    nondifferentiable_operands = (1,)  # the index
    linear = True

    @classmethod
    def transpose(cls, ops, cotangent, operands, linear, **attrs):
        raise MissingDerivativeRule(
            f"'{cls.full_name()}' has no transpose rule: the reverse mode of a while loop (which records its "
            "state on a tape) has no reverse mode of its own; for second derivatives through a loop take forward "
            "mode over reverse (s4tf.hessian(f), or s4tf.jvp of s4tf.grad(f)) or reverse over forward, e.g. "
            "s4tf.grad(lambda x: s4tf.jvp(f, (x,), (v,))[1])"
        )


def _row_type(tape: TensorType) -> TensorType:
    if not tape.shape or None in tape.shape:
        raise ShapeError(f"a tape must be a tensor with static rows and a leading axis, got {tape.mlir_text}")
    return TensorType(tape.shape[1:], tape.dtype)


def _check_index(index: TensorType, what: str) -> None:
    if index.shape != () or index.dtype not in INT_DTYPES:
        raise DTypeError(f"the {what} must be an integer scalar, got {index.mlir_text}")


def _offsets(index, index_type: TensorType, row: TensorType) -> list:
    """Start indices of row ``index``: the index, then zeros of its type."""
    return [index] + [hlo.scalar(0, index_type.dtype) for _ in row.shape]


class TapeWrite(_TapeOp):
    """``tape`` with row ``index`` set to ``value``.

    ```mlir
    %0 = "s4tf.tape_write"(%t, %i, %x) : (tensor<8x3xf32>, tensor<i32>, tensor<3xf32>) -> tensor<8x3xf32>
    ```
    """

    name = "tape_write"
    operands = ("tape", "index", "value")

    @staticmethod
    def infer(tape, index, value):
        row = _row_type(tape)
        _check_index(index, "index of a tape write")
        if value != row:
            raise ShapeError(f"wrote {value.mlir_text} into a tape of {row.mlir_text} rows")
        return tape

    @staticmethod
    def reference(tape, index, value):
        tape = tape.copy()
        tape[int(index)] = value
        return tape

    @staticmethod
    def batch(ops, operands, batch_dims):
        """One index: a tape of rows with the batch axis (axis 1). An index per example
        (a batched ``while`` whose lanes stop at different iterations): a scatter at
        ``(example, index)``; into an integer tape (a loop's booleans, its counters), an
        ``add`` of each row's difference from the row it replaces (exact: integers wrap).
        IREE-3.13-WORKAROUND: a ``set`` scatter replaces rows out of range by a copy of the
        last row in range, read from the updates at a run-time position, and for int8 rows
        gathered from the same tape (halving a tape of booleans, under ``vmap`` of
        ``hessian`` through a ``while``) IREE 3.13's tiling of that dispatch never ends
        (tests/lit/iree_reproducers/scatter_set_i8_tiling_hangs.mlir)."""
        size = batch_size(operands, batch_dims)
        (tape, index, value), (tape_dim, index_dim, value_dim) = operands, batch_dims
        value = with_batch(ops, value, value_dim, size)
        if index_dim is None:
            return [ops.op("tape_write", _batch_in_rows(ops, tape, tape_dim, size), index, value)], [1]
        coordinates = with_lane_coordinate(ops, ops.reshape(index, (size, 1)))
        tape = with_batch(ops, tape, tape_dim, size)
        if is_integer(canonical_dtype(tape.dtype)):
            old = ops.op("gather", tape, coordinates, axes=(0, 1))
            return [ops.op("scatter", tape, coordinates, value - old, axes=(0, 1), kind="add")], [0]
        return [ops.op("scatter", tape, coordinates, value, axes=(0, 1), kind="set")], [0]

    @staticmethod
    def lower(lowering, tape, index, value):
        tape_type, index_type, row = lowering.operand_types
        update = hlo.value("reshape", [value], TensorType((1, *row.shape), row.dtype))
        return hlo.value("dynamic_update_slice", [tape, update, *_offsets(index, index_type, row)], tape_type)


class TapeRead(_TapeOp):
    """Row ``index`` of ``tape``.

    ```mlir
    %0 = "s4tf.tape_read"(%t, %i) : (tensor<8x3xf32>, tensor<i32>) -> tensor<3xf32>
    ```
    """

    name = "tape_read"
    operands = ("tape", "index")

    @staticmethod
    def infer(tape, index):
        _check_index(index, "index of a tape read")
        return _row_type(tape)

    @staticmethod
    def reference(tape, index):
        return tape[int(index)]

    @staticmethod
    def batch(ops, operands, batch_dims):
        """One index: a row of the tape with the batch axis in its rows. An index per
        example: a gather at ``(example, index)``."""
        size = batch_size(operands, batch_dims)
        (tape, index), (tape_dim, index_dim) = operands, batch_dims
        if index_dim is None:
            return [ops.op("tape_read", _batch_in_rows(ops, tape, tape_dim, size), index)], [0]
        coordinates = with_lane_coordinate(ops, ops.reshape(index, (size, 1)))
        return [ops.op("gather", with_batch(ops, tape, tape_dim, size), coordinates, axes=(0, 1))], [0]

    @staticmethod
    def lower(lowering, tape, index):
        _, index_type = lowering.operand_types
        row = lowering.result_type
        window = hlo.value(
            "dynamic_slice", [tape, *_offsets(index, index_type, row)], TensorType((1, *row.shape), row.dtype),
            slice_sizes=hlo.i64_array([1, *row.shape]),
        )
        return hlo.value("reshape", [window], row)


def _batch_in_rows(ops, tape, batch_dim, size: int):
    """A batched tape ``(size, K, ...)`` as a tape of batched rows ``(K, size, ...)``."""
    tape = with_batch(ops, tape, batch_dim, size)
    return ops.transpose(tape, (1, 0, *range(2, len(tape.shape))))
