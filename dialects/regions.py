"""Helpers for ops with regions: reading their blocks, checking isolation, moving ops.

Regions of s4tf ops have one block each and are isolated from above: they read only
their block arguments and values computed inside them, and end with ``stablehlo.return``
(a registered terminator, so that MLIR, and ``iree-opt --irdl-file``, accept the region).

```mlir
^bb0(%x: tensor<3xf32>):
  %0 = "s4tf.sin"(%x) : (tensor<3xf32>) -> tensor<3xf32>
  stablehlo.return %0 : tensor<3xf32>
```
"""

from __future__ import annotations

from s4tf.dialects.op_def import OPS
from s4tf.dialects.types import TensorType
from s4tf.core.mlir import ir

TERMINATOR = "stablehlo.return"


def single_block(region: ir.Region) -> ir.Block | None:
    blocks = list(region.blocks)
    return blocks[0] if len(blocks) == 1 else None


def argument_types(block: ir.Block) -> list[str]:
    return [str(a.type) for a in block.arguments]


def terminator(block: ir.Block) -> ir.Operation | None:
    operations = list(block.operations)
    if not operations or operations[-1].operation.name != TERMINATOR:
        return None
    return operations[-1].operation


def yielded_types(block: ir.Block) -> list[str]:
    return [str(v.type) for v in terminator(block).operands]


def outside_value_user(region: ir.Region) -> ir.Operation | None:
    """An op in ``region`` that reads a value defined outside it (``None`` if isolated).

    The regions of nested s4tf region ops are not entered: they are isolated themselves, and
    checked when their op is, so verifying a module looks at each op once however deep the
    nesting."""
    defined: set = {argument for block in region.blocks for argument in block.arguments}
    found = []

    def check(operation):
        operation = operation.operation
        if any(v not in defined for v in operation.operands):
            found.append(operation)
            return ir.WalkResult.INTERRUPT
        defined.update(operation.results)
        if _is_region_op(operation):
            return ir.WalkResult.SKIP
        defined.update(a for nested in operation.regions for block in nested.blocks for a in block.arguments)
        return ir.WalkResult.ADVANCE

    for block in region.blocks:
        for operation in block.operations:
            operation.operation.walk(check, walk_order=ir.WalkOrder.PRE_ORDER)
            if found:
                return found[0]
    return None


def _is_region_op(operation: ir.Operation) -> bool:
    op = OPS.get(operation.name)
    return op is not None and bool(op.regions)


def region_problem(region: ir.Region, name: str, op_name: str, arguments: list[str]) -> str | None:
    """Why ``region`` is not one isolated block with ``arguments`` ending in a terminator."""
    block = single_block(region)
    if block is None:
        return f"'{op_name}' region '{name}' must have exactly one block"
    if argument_types(block) != arguments:
        return (
            f"'{op_name}' region '{name}' takes ({', '.join(argument_types(block))}) but must take "
            f"({', '.join(arguments)})"
        )
    if terminator(block) is None:
        return f"'{op_name}' region '{name}' must end with {TERMINATOR}"
    if outside_value_user(region) is not None:
        return f"'{op_name}' region '{name}' uses a value defined outside it; pass it in as an operand"
    return None


def move_operations(source: ir.Block, target: ir.Block, replacements) -> None:
    """Move every op of ``source`` to the end of ``target``; uses of ``source``'s arguments
    become uses of ``replacements`` (values, one per argument)."""
    for argument, replacement in zip(source.arguments, replacements):
        argument.replace_all_uses_with(replacement)
    for operation in list(source.operations):
        operation = operation.operation
        operation.detach_from_parent()
        ir.InsertionPoint(target).insert(operation)


def tensor_types(values) -> list[TensorType]:
    return [TensorType.from_mlir(v.type) for v in values]


class RegionHolder:
    """The regions of a region op being built, held by a placeholder op at the end of
    ``block`` until the op can be created: its operands include the values its regions
    capture, known only once they are built. ``assemble`` creates the op before the
    holder; ``discard`` (always, in a ``finally``) removes the holder."""

    def __init__(self, block: ir.Block, count: int, context: ir.Context):
        self.context = context
        with context, ir.Location.unknown(), ir.InsertionPoint(block):
            self.holder = ir.Operation.create("s4tf.staging_regions", regions=count)

    def add_block(self, index: int, types: list[TensorType]) -> ir.Block:
        """The block of region ``index``, taking arguments of ``types``."""
        with self.context, ir.Location.unknown():
            return self.holder.regions[index].blocks.append(*[t.to_mlir() for t in types])

    def assemble(self, name: str, head: list, operands: list, result_types: list, staged: list, location: ir.Location,
                 carried: bool = False) -> ir.Operation:
        """Create ``s4tf.<name>(head..., operands..., captures...)`` before the holder and
        move into its regions the ops of the ``staged`` blocks, each given as ``(block,
        captured)``: a block whose arguments are one per operand, then one per value of the
        enclosing block it captured (``captured``, in order). The regions take the operands
        and every block's captures; ``carried``: the op is a loop, whose last region (the
        body) also yields the captures, which are also results (after ``result_types``)."""
        captures = []
        for _, captured in staged:
            captures += [v for v in captured if v not in captures]
        values = list(operands) + captures
        types = list(result_types) + ([v.type for v in captures] if carried else [])
        with self.context, location, ir.InsertionPoint(self.holder):
            operation = ir.Operation.create(f"s4tf.{name}", results=types, operands=list(head) + values, regions=len(staged))
            for (source, captured), region in zip(staged, operation.regions):
                block = region.blocks.append(*[v.type for v in values])
                arguments = list(block.arguments)
                explicit = arguments[: len(operands)]
                move_operations(source, block, explicit + [arguments[len(operands) + captures.index(v)] for v in captured])
            if carried:
                _yield_also(block, arguments[len(operands):])  # the last block: the body
        return operation

    def discard(self) -> None:
        self.holder.erase()


def _yield_also(block: ir.Block, values) -> None:
    """Append ``values`` to what ``block``'s terminator yields."""
    old = list(block.operations)[-1].operation
    with old.location, ir.InsertionPoint(old):
        ir.Operation.create(TERMINATOR, operands=list(old.operands) + list(values))
    old.erase()
