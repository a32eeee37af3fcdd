"""``s4tf-bool-constants-behind-barriers``: each boolean constant that is not one repeated
value is read through a ``stablehlo.optimization_barrier``; for the aarch64 targets.

IREE-3.13-WORKAROUND: IREE 3.13 gets selects on some constant boolean masks wrong on aarch64
(android-arm64 and linux-arm64; right on x86-64): ``where(mask, x, 0)`` with a 6x3 mask whose
last row alone is true returns zeros, and so do 2x3 and 6x2 masks of that form, while 3x3,
7x3 and random masks are right (tests/lit/iree_reproducers/select_on_a_constant_mask_arm64.mlir).
An i8 constant converted or compared to booleans folds into the same constant. Behind a
barrier the mask is a buffer IREE reads instead of a constant it folds into the select, and
the select is right for every mask tried. The lowering of static updates
(``x.at[5].set(v)``) computes its masks from iotas and needs no barrier; this pass is for
the masks users write (``s4tf.where(np_mask, x, y)``) and those folding leaves.

```mlir
%m = stablehlo.constant dense<[[false, false, false], ..., [true, true, true]]> : tensor<6x3xi1>
%r = stablehlo.select %m, %x, %zeros : tensor<6x3xi1>, tensor<6x3xf32>
// becomes
%m = stablehlo.constant dense<[[false, false, false], ..., [true, true, true]]> : tensor<6x3xi1>
%b = stablehlo.optimization_barrier %m : tensor<6x3xi1>
%r = stablehlo.select %b, %x, %zeros : tensor<6x3xi1>, tensor<6x3xf32>
```

Constants inside the dispatch regions of ``s4tf-loops-to-dispatch`` are left alone (a
barrier has no meaning inside one dispatch).
"""

from __future__ import annotations

from dataclasses import dataclass

from s4tf.core.mlir import ir
from s4tf.dialects import hlo
from s4tf.passes.iree.unroll_host_loops import in_dispatch_region
from s4tf.passes.ir_walk import collect
from s4tf.passes.registry import ModulePass, register

CONSTANT = "stablehlo.constant"


@register
@dataclass(frozen=True)
class BoolConstantsBehindBarriers(ModulePass):
    name = "s4tf-bool-constants-behind-barriers"
    description = "Read each non-splat boolean constant through an optimization barrier (aarch64 targets)"

    def apply(self, module: ir.Operation) -> None:
        for constant in collect(module, _is_bool_mask):
            hlo.read_through_barrier(constant.results[0])


def _is_bool_mask(operation: ir.Operation) -> bool:
    if operation.name != CONSTANT or in_dispatch_region(operation):
        return False
    tensor = operation.results[0].type
    if not isinstance(tensor, ir.RankedTensorType) or tensor.rank == 0:
        return False
    element = tensor.element_type
    if not isinstance(element, ir.IntegerType) or element.width != 1:
        return False
    return not ir.DenseElementsAttr(operation.attributes["value"]).is_splat
