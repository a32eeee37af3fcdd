"""``s4tf-materialize-conv-filters``: a StableHLO convolution whose filter is a transpose or
reverse of another tensor reads it through a ``stablehlo.optimization_barrier``.

IREE-3.13-WORKAROUND: IREE 3.13 folds such a transpose into the convolution's indexing maps. The
result is not a convolution its CPU backend recognizes but a generic loop nest, which it
runs several times slower (the input gradient of LeNet-5's second convolution, which
convolves with the flipped filter whose channels are swapped; figures: docs/benchmarks.md,
"LeNet-5 training step"). Behind the
barrier the transposed filter is computed once into its own small buffer and the
convolution keeps its named form.

```mlir
%t = stablehlo.transpose %r, dims = [0, 1, 3, 2] : (tensor<5x5x6x16xf32>) -> tensor<5x5x16x6xf32>
%y = stablehlo.convolution(%x, %t) ...
// becomes
%t = stablehlo.transpose %r, dims = [0, 1, 3, 2] : ...
%b = stablehlo.optimization_barrier %t : tensor<5x5x16x6xf32>
%y = stablehlo.convolution(%x, %b) ...
```
"""

from __future__ import annotations

from dataclasses import dataclass

from s4tf.core.mlir import ir
from s4tf.passes.ir_walk import collect, defining_op
from s4tf.passes.registry import ModulePass, register

CONVOLUTION = "stablehlo.convolution"
BARRIER = "stablehlo.optimization_barrier"
#: Producers IREE folds into a convolution's filter indexing.
LAYOUT_OPS = ("stablehlo.transpose", "stablehlo.reverse")


@register
@dataclass(frozen=True)
class MaterializeConvFilters(ModulePass):
    name = "s4tf-materialize-conv-filters"
    description = "Read transposed or reversed convolution filters through an optimization barrier"

    def apply(self, module: ir.Operation) -> None:
        materialize_conv_filters(module)


def materialize_conv_filters(module: ir.Operation) -> None:
    barriers: dict = {}  # one barrier per filter value, shared by the convolutions reading it
    for convolution in collect(module, lambda op: op.name == CONVOLUTION):
        filter_value = convolution.operands[1]
        producer = defining_op(filter_value)
        if producer is None or producer.name not in LAYOUT_OPS:
            continue
        barrier = barriers.get(producer)
        if barrier is None:
            with ir.InsertionPoint.after(producer), producer.location:
                barrier = barriers[producer] = ir.Operation.create(BARRIER, results=[filter_value.type], operands=[filter_value])
        convolution.operands[1] = barrier.results[0]
