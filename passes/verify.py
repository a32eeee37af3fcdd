"""``s4tf-verify``: check every s4tf op against its definition.

Reports each malformed op at its location (operand count, attributes, and result types
re-inferred from the operands), then fails.

```mlir
// expected-error @+1 {{result type(s) tensor<3xf32> do not match the inferred tensor<2xf32>}}
%0 = "s4tf.neg"(%x) : (tensor<2xf32>) -> tensor<3xf32>
```
"""

from __future__ import annotations

from dataclasses import dataclass

from s4tf.dialects.op_def import verify as verify_op
from s4tf.core.mlir import ir
from s4tf.passes.ir_walk import is_s4tf, s4tf_ops
from s4tf.passes.registry import ModulePass, PassFailed, emit_error, register


def verify_module(module: ir.Operation) -> None:
    """Emit an error for every malformed s4tf op; raise :class:`PassFailed` if any."""
    failed = False
    operations = s4tf_ops(module)
    for operation in operations:
        problem = verify_op(operation)
        if problem:
            emit_error(operation, problem)
            failed = True
    for operation in unterminated(module, operations):
        emit_error(operation, f"'{operation.name}' ends its block, but s4tf ops are not terminators: the block's return is missing")
        failed = True
    if failed:
        raise PassFailed()


def unterminated(module: ir.Operation, operations: list[ir.Operation]) -> list[ir.Operation]:
    """The s4tf ops that end a function's block or a region op's. MLIR takes an unregistered
    op for a possible terminator, so a block whose return is missing parses."""
    holders = [op.operation for op in module.regions[0].blocks[0].operations] + [op for op in operations if op.regions]
    last = [block.operations[len(block.operations) - 1] for holder in holders for region in holder.regions
            for block in region.blocks if len(block.operations)]
    return [op.operation for op in last if is_s4tf(op.operation)]


@register
@dataclass(frozen=True)
class Verify(ModulePass):
    name = "s4tf-verify"
    description = "Check every s4tf op against its definition (operands, attributes, result types)"

    def apply(self, module: ir.Operation) -> None:
        verify_module(module)
