"""Outlining: the regions of a region op as functions, so that they are differentiated
like any other function (calls, nesting and custom rules inside them included).

```mlir
func.func @f(...) { %0 = "s4tf.if"(%p, %x) ({ ^bb0(%a): ... stablehlo.return %1 }, { ... }) }
// outlined(module, if_op, "f_r0") adds
func.func private @f_r0_then(%a: tensor<3xf32>) -> tensor<3xf32> attributes {s4tf.outlined} { ... return %1 }
func.func private @f_r0_else(...)
```
"""

from __future__ import annotations

from s4tf.dialects.op_def import lookup
from s4tf.dialects.regions import single_block, terminator
from s4tf.dialects.types import TensorType
from s4tf.core.mlir import ir
from s4tf.passes.autodiff.functions import FunctionBuilder, find_function

#: Marks functions made from regions.
OUTLINED = "s4tf.outlined"


def outlined(module, operation: ir.Operation, prefix: str) -> list[str]:
    """The symbols ``<prefix>_<region name>`` of functions with the bodies of
    ``operation``'s regions, made on first use."""
    names = []
    for region_name, region in zip(lookup(operation.name).regions, operation.regions):
        name = f"{prefix}_{region_name}"
        if find_function(module, name) is None:
            _outline(module, single_block(region), name, operation.location)
        names.append(name)
    return names


def _outline(module, block: ir.Block, name: str, location: ir.Location) -> None:
    builder = FunctionBuilder(module, name, [TensorType.from_mlir(a.type) for a in block.arguments], location)
    values = dict(zip(block.arguments, builder.arguments))
    for operation in list(block.operations)[:-1]:
        builder.clone(operation.operation, values)
    with location.context:
        builder.finish([values[v] for v in terminator(block).operands], {OUTLINED: ir.UnitAttr.get()})
