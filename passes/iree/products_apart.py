"""``s4tf-products-apart``: where elementwise code combines the results of two or more
products (``stablehlo.dot_general``, ``stablehlo.convolution``), all but the first are read
through a ``stablehlo.optimization_barrier``; for the ``vulkan`` target.

IREE-3.13-WORKAROUND: IREE 3.13 fuses such products into one dispatch, and its SPIR-V code
for it races: on Mesa's lavapipe, `dot(a, x) + dot(b, x)` of 4x4 by 4x6 matrices came back
wrong in about one run of 30 (rows summed over other rows), and so did the gradient of
`sum(x @ x.T)` in the test suite. Behind a barrier each product is a dispatch of its own,
wrong in about one run of 200 under load (a race left in IREE's SPIR-V code or in lavapipe:
tests/lit/iree_reproducers/transposed_product_vulkan.mlir). With
``s4tf-transposed-products`` before it (a product read transposed was wrong more often).

```mlir
%p = stablehlo.dot_general %a, %x, contracting_dims = [1] x [0] : ...
%q = stablehlo.dot_general %b, %x, contracting_dims = [1] x [0] : ...
%s = stablehlo.add %p, %q : tensor<4x6xf32>
// becomes
%p = stablehlo.dot_general %a, %x, contracting_dims = [1] x [0] : ...
%q = stablehlo.dot_general %b, %x, contracting_dims = [1] x [0] : ...
%r = stablehlo.optimization_barrier %q : tensor<4x6xf32>
%s = stablehlo.add %p, %r : tensor<4x6xf32>
```

Products are followed through ops without regions (elementwise ops, broadcasts, reshapes,
transposes), the code IREE fuses with them.
"""

from __future__ import annotations

from dataclasses import dataclass

from s4tf.core.mlir import ir
from s4tf.dialects import hlo
from s4tf.passes.ir_walk import collect, defining_op
from s4tf.passes.registry import ModulePass, register

PRODUCTS = ("stablehlo.dot_general", "stablehlo.convolution")


@register
@dataclass(frozen=True)
class ProductsApart(ModulePass):
    name = "s4tf-products-apart"
    description = "Read all but one of the products that elementwise code combines through optimization barriers (vulkan)"

    def apply(self, module: ir.Operation) -> None:
        """The products to read through barriers are found first and barred once each after:
        a Python ``ir.Operation`` may hash differently once ops are inserted beside it, so
        the walk does not change the module."""
        fed: dict = {}  # op -> the products its value is computed from through fusable ops, in order
        barred: list = []  # products to read through a barrier, in order, once each
        for operation in collect(module, lambda op: True, pre_order=True):
            if operation.name in PRODUCTS or operation.regions or len(operation.results) != 1:
                continue
            products = []
            for operand in operation.operands:
                producer = defining_op(operand)
                if producer is None:
                    continue
                for product in ([producer] if producer.name in PRODUCTS else fed.get(producer, [])):
                    if product not in products:
                        products.append(product)
            barred += [product for product in products[1:] if product not in barred]
            fed[operation] = products[:1]
        for product in barred:
            hlo.read_through_barrier(product.results[0])
