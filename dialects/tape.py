"""Tapes: growable device buffers of rows, for reverse mode through loops.

A tape of rows of type ``tensor<S>`` is a ``tensor<?xS>`` whose leading dimension is its
capacity; how many rows are filled is kept beside it (a loop counter). Pushing row ``n``
into a full tape doubles its capacity first, so ``n`` pushes copy O(n) rows in all and
the tape holds at most ``2 n`` rows. Nothing has to know the number of rows in advance.

```mlir
%t0 = "s4tf.tape_empty"(%x) : (tensor<3xf32>) -> tensor<?x3xf32>
%t1 = "s4tf.tape_push"(%t0, %n, %x) : (tensor<?x3xf32>, tensor<i32>, tensor<3xf32>) -> tensor<?x3xf32>
%r = "s4tf.tape_read"(%t1, %i) : (tensor<?x3xf32>, tensor<i32>) -> tensor<3xf32>
```

They lower to ``tensor.empty``/``insert_slice``/``extract_slice`` with an ``scf.if`` for
the growth, which IREE accepts inside ``stablehlo.while`` (a dynamically shaped
``stablehlo.dynamic_update_slice`` does not compile; ``concatenate`` came back wrong).
A new tape has no rows: the first push allocates ``INITIAL_CAPACITY``. Two tapes that
start from one identical non-empty ``tensor.empty`` (CSE merges them) and are carried by
one loop share storage in IREE 3.13, so each would see the other's rows; a tape's own
storage is only ever made by its first push, inside the loop.
"""

from __future__ import annotations

import numpy as np

from s4tf.dialects.op_def import MissingDerivativeRule, Op
from s4tf.dialects.types import INT_DTYPES, TensorType
from s4tf.errors import DTypeError, ShapeError
from s4tf.mlir import arith, ir, scf, tensor

#: Rows allocated by the first push onto a tape.
INITIAL_CAPACITY = 8


class _TapeOp(Op):
    """Tape ops are never folded or erased by canonicalization (their results are dynamic);
    their references keep the dtype and give tapes their capacity as a static size."""

    pure = False

    @classmethod
    def jvp(cls, ops, primals, tangents, result, **attrs):
        raise MissingDerivativeRule(
            f"'{cls.full_name()}' has no JVP rule: the reverse-mode derivative of a while loop (which records "
            "its state on a tape) cannot be differentiated again; for second derivatives through a loop take "
            "the reverse mode of a forward-mode derivative, e.g. s4tf.grad(lambda x: s4tf.jvp(f, (x,), (v,))[1])"
        )

    @classmethod
    def evaluate(cls, operands, attrs):
        return [np.asarray(cls.reference(*operands, **attrs))]


def _tape_type(row: TensorType) -> TensorType:
    return TensorType((None, *row.shape), row.dtype)


def _check_tape(tape: TensorType) -> TensorType:
    """The row type of ``tape``, which must have a dynamic leading dimension."""
    if not tape.shape or tape.shape[0] is not None or None in tape.shape[1:]:
        raise ShapeError(f"a tape must be a tensor<?x...> with static rows, got {tape.mlir_text}")
    return TensorType(tape.shape[1:], tape.dtype)


def _check_index(index: TensorType, what: str) -> None:
    if index.shape != () or index.dtype not in INT_DTYPES:
        raise DTypeError(f"the {what} must be an integer scalar, got {index.mlir_text}")


def _index(value: ir.Value) -> ir.Value:
    """An integer scalar tensor as an MLIR ``index``."""
    return arith.index_cast(ir.IndexType.get(), tensor.extract(value, []))


def _row_slice(row: TensorType, offset: ir.Value) -> dict:
    """Offsets, sizes and strides of row ``offset`` of a tape of ``row``s."""
    dynamic = ir.ShapedType.get_dynamic_size()
    rank = len(row.shape) + 1
    return dict(
        offsets=[offset], sizes=[], strides=[],
        static_offsets=[dynamic] + [0] * (rank - 1), static_sizes=[1, *row.shape], static_strides=[1] * rank,
    )


class TapeEmpty(_TapeOp):
    """An empty tape for rows of ``like``'s type.

    ```mlir
    %0 = "s4tf.tape_empty"(%x) : (tensor<3xf32>) -> tensor<?x3xf32>
    ```
    """

    name = "tape_empty"
    operands = ("like",)

    @staticmethod
    def infer(like):
        return _tape_type(like)

    @staticmethod
    def reference(like):
        return np.zeros((0, *like.shape), like.dtype)

    @staticmethod
    def lower(lowering, like):
        row = lowering.operand_types[0]
        return tensor.cast(lowering.result_type.to_mlir(), tensor.empty([0, *row.shape], row.to_mlir().element_type))


class TapePush(_TapeOp):
    """``tape`` with row ``count`` set to ``value``; a full tape is doubled first.

    ```mlir
    %0 = "s4tf.tape_push"(%t, %n, %x) : (tensor<?x3xf32>, tensor<i32>, tensor<3xf32>) -> tensor<?x3xf32>
    ```
    """

    name = "tape_push"
    operands = ("tape", "count", "value")

    @staticmethod
    def infer(tape, count, value):
        row = _check_tape(tape)
        _check_index(count, "count of a tape push")
        if value != row:
            raise ShapeError(f"pushed {value.mlir_text} onto a tape of {row.mlir_text} rows")
        return tape

    @staticmethod
    def reference(tape, count, value):
        count = int(count)
        if count >= len(tape):
            tape = np.concatenate([tape, np.zeros_like(tape, shape=(max(len(tape), INITIAL_CAPACITY), *tape.shape[1:]))])
        tape = tape.copy()
        tape[count] = value
        return tape

    @staticmethod
    def lower(lowering, tape, count, value):
        tape_type, _, row = lowering.operand_types
        index = _index(count)
        zero = arith.constant(ir.IndexType.get(), 0)
        capacity = tensor.dim(tape, zero)
        full = arith.cmpi(arith.CmpIPredicate.uge, index, capacity)
        grow = scf.IfOp(full, [tape.type], has_else=True)
        with ir.InsertionPoint(grow.then_block):
            doubled = arith.maxui(
                arith.muli(capacity, arith.constant(ir.IndexType.get(), 2)), arith.constant(ir.IndexType.get(), INITIAL_CAPACITY)
            )
            larger = tensor.empty([doubled, *row.shape], row.to_mlir().element_type)
            rank = len(tape_type.shape)
            copied = tensor.insert_slice(
                tape, larger, offsets=[], sizes=[capacity], strides=[],
                static_offsets=[0] * rank, static_sizes=[ir.ShapedType.get_dynamic_size(), *row.shape],
                static_strides=[1] * rank,
            )
            scf.yield_([copied])
        with ir.InsertionPoint(grow.else_block):
            scf.yield_([tape])
        return tensor.insert_slice(value, grow.results[0], **_row_slice(row, index))


class TapeRead(_TapeOp):
    """Row ``index`` of ``tape``.

    ```mlir
    %0 = "s4tf.tape_read"(%t, %i) : (tensor<?x3xf32>, tensor<i32>) -> tensor<3xf32>
    ```
    """

    name = "tape_read"
    operands = ("tape", "index")

    @staticmethod
    def infer(tape, index):
        _check_index(index, "index of a tape read")
        return _check_tape(tape)

    @staticmethod
    def reference(tape, index):
        return tape[int(index)]

    @staticmethod
    def lower(lowering, tape, index):
        row = lowering.result_type
        return tensor.extract_slice(row.to_mlir(), tape, **_row_slice(row, _index(index)))


class AsTape(_TapeOp):
    """``x`` seen as a tape: its leading dimension becomes dynamic. A tape returned to
    Python comes back with its capacity as a static size; this makes it a tape again.

    ```mlir
    %0 = "s4tf.as_tape"(%x) : (tensor<16x3xf32>) -> tensor<?x3xf32>
    ```
    """

    name = "as_tape"
    operands = ("x",)

    @staticmethod
    def infer(x):
        if not x.shape:
            raise ShapeError("as_tape needs a tensor with a leading dimension")
        return TensorType((None, *x.shape[1:]), x.dtype)

    @staticmethod
    def reference(x):
        return x

    @staticmethod
    def lower(lowering, x):
        return tensor.cast(lowering.result_type.to_mlir(), x)
