"""``s4tf-canonicalize``: constant folding, algebraic identities and dead-code elimination
of pure s4tf ops, repeated until nothing changes.

```mlir
%c0 = "s4tf.constant"() {value = dense<0.0> : tensor<f32>} : () -> tensor<f32>
%0 = "s4tf.add"(%x, %c0) : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
%1 = "s4tf.neg"(%0) : (tensor<3xf32>) -> tensor<3xf32>
%2 = "s4tf.neg"(%1) : (tensor<3xf32>) -> tensor<3xf32>
return %2
// becomes
return %x
```

A reduction of one value repeated (a splat constant, or a broadcast of a one-element
constant) folds however large its operand: ``sum(zeros((1 << 40,)))`` is ``0`` without a
4 TiB tensor (``c * n`` for a sum, ``c`` for a mean, max or min, ``c ** n`` for a product).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from s4tf.dialects.attributes import ELEMENTS, is_splat_view
from s4tf.dialects.op_def import build, lookup, read_attributes
from s4tf.dialects.types import TensorType
from s4tf.core.mlir import ir
from s4tf.passes.ir_walk import defining_op, has_uses, s4tf_ops
from s4tf.passes.registry import ModulePass, register

#: Ops with operands or results larger than this many elements are not folded (keeps
#: modules small, and folding quick).
FOLD_LIMIT = 1 << 16
MAX_ROUNDS = 16


def constant_value(value: ir.Value) -> np.ndarray | None:
    owner = defining_op(value)
    if owner is None or owner.name != "s4tf.constant":
        return None
    return ELEMENTS.from_mlir(owner.attributes["value"])


def _is_splat(value: ir.Value, number) -> bool:
    array = constant_value(value)
    if array is None or array.size == 0:
        return False
    if is_splat_view(array):  # a splat attribute: its one element
        array = array[(0,) * array.ndim]
    return bool(np.all(array == number))


def _types(values: list[ir.Value]) -> list[TensorType]:
    return [TensorType.from_mlir(v.type) for v in values]


def _same_type(a: ir.Value, b: ir.Value) -> bool:
    return a.type == b.type


def identity_operand(operation: ir.Operation) -> ir.Value | None:
    """An existing value equal to ``operation``'s result, by an identity its op declares:
    a neutral operand, an involution, no change of type, attributes of the identity."""
    if len(operation.results) != 1:  # s4tf.host_call may have none or several
        return None
    op = lookup(operation.name)
    operands = list(operation.operands)
    result = operation.results[0]
    if op.neutral is not None:
        lhs, rhs = operands
        if _is_splat(rhs, op.neutral) and _same_type(lhs, result):
            return lhs
        if op.commutative and _is_splat(lhs, op.neutral) and _same_type(rhs, result):
            return rhs
    if op.noop_when_same_type and _same_type(operands[0], result):
        return operands[0]
    if op.is_identity is not None and op.is_identity(_types(operands), **read_attributes(op, operation)):
        return operands[0]
    if op.involution:
        inner = defining_op(operands[0])
        if inner is not None and inner.name == operation.name:
            return inner.operands[0]
    return None


def fold_constant(operation: ir.Operation) -> bool:
    """Replace an op whose operands are all constants by the constant it computes."""
    if operation.name == "s4tf.constant":
        return False
    inputs = [constant_value(v) for v in operation.operands]
    if any(value is None for value in inputs) or not operation.operands:
        return False
    op = lookup(operation.name)
    sizes = [value.size for value in inputs] + [np.prod(ir.RankedTensorType(r.type).shape) for r in operation.results]
    if not op.pure or max(sizes) > FOLD_LIMIT:
        return False
    with np.errstate(all="ignore"):
        results = op.evaluate(inputs, read_attributes(op, operation))
    with ir.InsertionPoint(operation):
        for result, array in zip(operation.results, results):
            folded = build(lookup("constant"), [], {"value": array}, operation.location)
            result.replace_all_uses_with(folded.results[0])
    operation.erase()
    return True


#: Reductions of one repeated value that :func:`fold_repeated_reduction` folds.
REPEATED_REDUCTIONS = ("reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod")


def repeated_value(value: ir.Value) -> np.ndarray | None:
    """The one element (0-d) of ``value`` when all its elements are one constant: a splat
    constant, or a ``broadcast_in_dim`` of a one-element or splat constant."""
    owner = defining_op(value)
    if owner is not None and owner.name == "s4tf.broadcast_in_dim":
        value = owner.operands[0]
    array = constant_value(value)
    if array is None or array.size == 0 or not (array.size == 1 or is_splat_view(array)):
        return None
    return np.asarray(array[(0,) * array.ndim])


def _wrapped(number: int, dtype: np.dtype) -> np.ndarray:
    """``number`` in the integer ``dtype``, wrapped as its arithmetic wraps."""
    bits = dtype.itemsize * 8
    return np.array(number % (1 << bits), np.uint64).astype(dtype)


def repeated_reduction(name: str, element: np.ndarray, count: int) -> np.ndarray | None:
    """``name`` (a :data:`REPEATED_REDUCTIONS`) of ``count`` copies of ``element``, as the
    reduction computes it from its initial value (0 for a sum: ``-0.0 * n`` is ``0.0``);
    ``None`` for a dtype it does not fold (bool sums, complex)."""
    dtype = element.dtype
    if name in ("reduce_max", "reduce_min"):
        return element
    if dtype.kind in "iu":
        if name == "reduce_sum":
            return _wrapped(int(element) * count, dtype)
        if name == "reduce_prod":
            return _wrapped(pow(int(element), count, 1 << (dtype.itemsize * 8)), dtype)
        return None
    if dtype.kind != "f" and dtype.name != "bfloat16":
        return None
    c = np.float64(element)
    with np.errstate(all="ignore"):
        folded = {"reduce_sum": c * count + 0.0, "reduce_mean": c, "reduce_prod": c ** count}[name]
    return np.asarray(folded).astype(dtype)


def fold_repeated_reduction(operation: ir.Operation) -> bool:
    """A reduction of one repeated constant (:func:`repeated_value`) over more than
    :data:`FOLD_LIMIT` elements becomes a splat constant (:func:`repeated_reduction`);
    smaller ones fold as any op does, by NumPy."""
    name = operation.name.removeprefix("s4tf.")
    if name not in REPEATED_REDUCTIONS:
        return False
    operand_type = ir.RankedTensorType(operation.operands[0].type)
    result_type = ir.RankedTensorType(operation.results[0].type)
    if not (operand_type.has_static_shape and result_type.has_static_shape):
        return False
    shape = operand_type.shape
    if int(np.prod(shape, dtype=object)) <= FOLD_LIMIT:
        return False
    element = repeated_value(operation.operands[0])
    if element is None:
        return False
    axes = read_attributes(lookup(operation.name), operation)["axes"]
    count = int(np.prod([shape[axis] for axis in axes], dtype=object))
    folded = repeated_reduction(name, element, count) if count else None
    if folded is None:
        return False
    with ir.InsertionPoint(operation):
        constant = build(lookup("constant"), [], {"value": np.broadcast_to(folded, result_type.shape)}, operation.location)
    operation.results[0].replace_all_uses_with(constant.results[0])
    operation.erase()
    return True


def fold_reshape_chain(operation: ir.Operation) -> bool:
    """``reshape(reshape(x))`` becomes one reshape of ``x``."""
    if operation.name != "s4tf.reshape":
        return False
    inner = defining_op(operation.operands[0])
    if inner is None or inner.name != "s4tf.reshape":
        return False
    operation.operands[0] = inner.operands[0]
    return True


def erase_dead(module: ir.Operation) -> bool:
    changed = False
    for operation in reversed(s4tf_ops(module)):
        if lookup(operation.name).pure and not any(has_uses(r) for r in operation.results):
            operation.erase()
            changed = True
    return changed


def canonicalize_round(module: ir.Operation) -> bool:
    changed = False
    for operation in s4tf_ops(module):
        replacement = identity_operand(operation)
        if replacement is not None:
            operation.results[0].replace_all_uses_with(replacement)
            changed = True
        elif fold_constant(operation) or fold_repeated_reduction(operation) or fold_reshape_chain(operation):
            changed = True
    return erase_dead(module) or changed


@register
@dataclass(frozen=True)
class Canonicalize(ModulePass):
    name = "s4tf-canonicalize"
    description = "Fold constants, apply algebraic identities, erase unused pure s4tf ops"

    def apply(self, module: ir.Operation) -> None:
        canonicalize(module)


def canonicalize(module: ir.Operation) -> None:
    for _ in range(MAX_ROUNDS):
        if not canonicalize_round(module):
            return
