"""``s4tf-negations-out-of-sums``: a ``stablehlo.reduce`` adding up a ``stablehlo.negate``
(or reshapes of one) becomes the negation of the sum; for the ``cuda`` target.

IREE-3.13-WORKAROUND: IREE 3.13's CUDA code generator refuses a sum of negated numbers
("failed to get neutral element for reduction"; its partial-reduction tiling finds no
identity for the subtraction it folds the pair into), though ``sum(-x * y)``, ``sum(x - y)``
and sums of anything else compile (tests/lit/iree_reproducers/sum_of_a_negation_cuda.mlir).
Reverse mode makes such sums wherever a negated cotangent is summed over a broadcast
dimension: the gradient of a transformer block's LayerNorm. Negation is exact and rounding
symmetric, so ``-(sum(x) with init -c)`` is ``sum(-x) with init c`` but for the sign of a
zero result.

```mlir
%n = stablehlo.negate %x : tensor<64x32xf32>
%s = stablehlo.reduce(%n init: %zero) applies stablehlo.add across dimensions = [1] : ...
// becomes
%m = stablehlo.negate %zero : tensor<f32>
%t = stablehlo.reduce(%x init: %m) applies stablehlo.add across dimensions = [1] : ...
%s = stablehlo.negate %t : tensor<64xf32>
```
"""

from __future__ import annotations

from dataclasses import dataclass

from s4tf.core.mlir import ir
from s4tf.passes.ir_walk import collect, defining_op
from s4tf.passes.registry import ModulePass, register

REDUCE, NEGATE, ADD, RESHAPE = "stablehlo.reduce", "stablehlo.negate", "stablehlo.add", "stablehlo.reshape"


@register
@dataclass(frozen=True)
class NegationsOutOfSums(ModulePass):
    name = "s4tf-negations-out-of-sums"
    description = "Negate the sum of a stablehlo.reduce adding up negated numbers instead (cuda)"

    def apply(self, module: ir.Operation) -> None:
        for reduce in collect(module, lambda op: op.name == REDUCE and _adds(op)):
            reshapes, negation = _negation_through_reshapes(reduce.operands[0])
            if negation is None:
                continue
            with ir.InsertionPoint(reduce), reduce.location:
                summed = negation.operands[0]
                for reshape in reversed(reshapes):  # the same reshapes, of the number not negated
                    summed = ir.Operation.create(RESHAPE, results=[reshape.results[0].type], operands=[summed]).results[0]
                reduce.operands[0] = summed
                init = reduce.operands[1]
                reduce.operands[1] = ir.Operation.create(NEGATE, results=[init.type], operands=[init]).results[0]
            with ir.InsertionPoint.after(reduce), reduce.location:
                negated = ir.Operation.create(NEGATE, results=[reduce.results[0].type], operands=[reduce.results[0]])
            reduce.results[0].replace_all_uses_except(negated.results[0], negated)


def _adds(reduce: ir.Operation) -> bool:
    """Whether ``reduce`` sums one tensor."""
    body = list(reduce.regions[0].blocks[0].operations)
    return len(reduce.operands) == 2 and len(body) == 2 and body[0].name == ADD


def _negation_through_reshapes(value: ir.Value):
    """``(reshapes, negation)``: the ``stablehlo.negate`` that ``value`` reshapes (outermost
    reshape first), or ``([], None)``."""
    reshapes, producer = [], defining_op(value)
    while producer is not None and producer.name == RESHAPE:
        reshapes.append(producer)
        producer = defining_op(producer.operands[0])
    return (reshapes, producer) if producer is not None and producer.name == NEGATE else ([], None)
