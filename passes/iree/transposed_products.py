"""``s4tf-transposed-products``: a ``stablehlo.transpose`` that swaps the free dimensions of a
``stablehlo.dot_general``'s result becomes the product of the swapped operands; for the
``vulkan`` target.

IREE-3.13-WORKAROUND: IREE 3.13's SPIR-V code gives wrong numbers (garbage, some of them
1e31) for a product whose result is read transposed by an elementwise op fused with it, as
reverse mode of ``x @ x.T`` makes (``transpose(dot(x, g)) + dot(g, x)``), on Mesa's lavapipe;
the product alone, or the product and its transpose returned, are right
(tests/lit/iree_reproducers/transposed_product_vulkan.mlir). The swapped product computes
the transposed result directly and is right; it also saves the transpose.

```mlir
%p = stablehlo.dot_general %a, %b, contracting_dims = [0] x [0] : (tensor<4x6xf32>, tensor<4x4xf32>) -> tensor<6x4xf32>
%t = stablehlo.transpose %p, dims = [1, 0] : (tensor<6x4xf32>) -> tensor<4x6xf32>
// becomes
%t = stablehlo.dot_general %b, %a, contracting_dims = [0] x [0] : (tensor<4x4xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
```

A transpose qualifies when it keeps the batch dimensions in place and puts the right
operand's free dimensions before the left one's, each group in its order: the result of the
product with its operands swapped.
"""

from __future__ import annotations

from dataclasses import dataclass

from s4tf.core.mlir import ir
from s4tf.dialects.hlo import dot_dimensions
from s4tf.passes.ir_walk import collect, defining_op
from s4tf.passes.registry import ModulePass, register

DOT, TRANSPOSE = "stablehlo.dot_general", "stablehlo.transpose"


@register
@dataclass(frozen=True)
class TransposedProducts(ModulePass):
    name = "s4tf-transposed-products"
    description = "Compute a transposed stablehlo.dot_general result as the product of the swapped operands (vulkan)"

    def apply(self, module: ir.Operation) -> None:
        for transpose in collect(module, lambda op: op.name == TRANSPOSE):
            product = defining_op(transpose.operands[0])
            if product is not None and product.name == DOT and _swaps_free_dimensions(product, transpose):
                _swap(product, transpose)


def _swaps_free_dimensions(product: ir.Operation, transpose: ir.Operation) -> bool:
    dims = dot_dimensions(product)
    batch = len(dims["lhs_batching_dimensions"])
    lhs_free = ir.RankedTensorType(product.operands[0].type).rank - batch - len(dims["lhs_contracting_dimensions"])
    rhs_free = ir.RankedTensorType(product.operands[1].type).rank - batch - len(dims["rhs_contracting_dimensions"])
    swapped = [*range(batch), *range(batch + lhs_free, batch + lhs_free + rhs_free), *range(batch, batch + lhs_free)]
    return list(ir.DenseI64ArrayAttr(transpose.attributes["permutation"])) == swapped


def _swap(product: ir.Operation, transpose: ir.Operation) -> None:
    dims = dot_dimensions(product)

    def listed(name: str) -> str:
        return "[" + ", ".join(str(d) for d in dims[name]) + "]"

    numbers = (f"#stablehlo.dot<lhs_batching_dimensions = {listed('rhs_batching_dimensions')}, "
               f"rhs_batching_dimensions = {listed('lhs_batching_dimensions')}, "
               f"lhs_contracting_dimensions = {listed('rhs_contracting_dimensions')}, "
               f"rhs_contracting_dimensions = {listed('lhs_contracting_dimensions')}>")
    attributes = {"dot_dimension_numbers": ir.Attribute.parse(numbers)}
    if "precision_config" in product.attributes:  # one precision per operand
        attributes["precision_config"] = ir.ArrayAttr.get(list(ir.ArrayAttr(product.attributes["precision_config"]))[::-1])
    with ir.InsertionPoint(transpose), transpose.location:
        swapped = ir.Operation.create(DOT, results=[transpose.results[0].type],
                                      operands=[product.operands[1], product.operands[0]], attributes=attributes)
    transpose.results[0].replace_all_uses_with(swapped.results[0])
    transpose.erase()
    if not list(product.results[0].uses):
        product.erase()
