"""Small IR traversal helpers shared by the passes."""

from __future__ import annotations

from s4tf.dialects.op_def import DIALECT
from s4tf.core.mlir import ir


def collect(root: ir.Operation, predicate=lambda operation: True, pre_order: bool = False) -> list[ir.Operation]:
    """Operations nested in ``root`` (not ``root`` itself), post-order unless ``pre_order``."""
    found = []

    def visit(operation):
        operation = operation.operation
        if operation != root and predicate(operation):
            found.append(operation)
        return ir.WalkResult.ADVANCE

    order = ir.WalkOrder.PRE_ORDER if pre_order else ir.WalkOrder.POST_ORDER
    root.walk(visit, walk_order=order)
    return found


def is_s4tf(operation: ir.Operation) -> bool:
    return operation.name.startswith(f"{DIALECT}.")


def s4tf_ops(root: ir.Operation) -> list[ir.Operation]:
    """The ``s4tf.*`` operations nested in ``root``, post-order."""
    return collect(root, is_s4tf)


def defining_op(value: ir.Value) -> ir.Operation | None:
    """The operation that produces ``value``, or ``None`` for a block argument."""
    owner = value.owner
    return owner.operation if isinstance(owner, ir.OpView) or isinstance(owner, ir.Operation) else None


def is_hlo_constant(value: ir.Value) -> bool:
    """Whether ``value`` is a ``stablehlo.constant``'s result."""
    producer = defining_op(value)
    return producer is not None and producer.name == "stablehlo.constant"


def has_uses(value: ir.Value) -> bool:
    return any(True for _ in value.uses)
