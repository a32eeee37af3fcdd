"""``s4tf-lower-to-stablehlo``: replace every s4tf op by the StableHLO its definition emits.

```mlir
%0 = "s4tf.add"(%x, %y) : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
// becomes
%0 = stablehlo.broadcast_in_dim %y, dims = [1] : (tensor<3xf32>) -> tensor<4x3xf32>
%1 = stablehlo.add %x, %0 : tensor<4x3xf32>
```
"""

from __future__ import annotations

from dataclasses import dataclass

from s4tf.dialects.hlo import Lowering
from s4tf.dialects.op_def import lookup, read_attributes
from s4tf.dialects.types import TensorType
from s4tf.core.mlir import ir
from s4tf.passes.ir_walk import s4tf_ops
from s4tf.passes.registry import ModulePass, PassFailed, emit_error, register
from s4tf.passes.verify import verify_module


def lower_op(operation: ir.Operation) -> None:
    op = lookup(operation.name)
    if op.regions:
        op.lower_operation(operation)
        return
    lowering = Lowering(
        tuple(TensorType.from_mlir(v.type) for v in operation.operands),
        tuple(TensorType.from_mlir(r.type) for r in operation.results),
    )
    with ir.InsertionPoint(operation), operation.location:
        replacement = op.lower(lowering, *operation.operands, **read_attributes(op, operation))
    replacements = replacement if isinstance(replacement, (list, tuple)) else [replacement]
    for result, new_value in zip(operation.results, replacements):
        result.replace_all_uses_with(new_value)
    operation.erase()


@register
@dataclass(frozen=True)
class LowerToStablehlo(ModulePass):
    name = "s4tf-lower-to-stablehlo"
    description = "Lower every s4tf op to StableHLO (verifies first)"

    def apply(self, module: ir.Operation) -> None:
        lower_to_stablehlo(module)


def lower_to_stablehlo(module: ir.Operation) -> None:
    verify_module(module)
    host_ops = [operation for operation in s4tf_ops(module) if lookup(operation.name).host]
    for operation in host_ops:
        emit_error(operation, f"'{operation.name}' runs on the host; stage with @s4tf.function(extract=True) "
                   "or run s4tf-partition first")
    if host_ops:
        raise PassFailed()
    for operation in s4tf_ops(module):
        lower_op(operation)
