"""``s4tf-scatter-updates-through-barriers``: the updates of each ``stablehlo.scatter`` are read
through a ``stablehlo.optimization_barrier``; for the ``cuda`` target.

IREE-3.13-WORKAROUND: IREE 3.13's CUDA code generator fails on a scatter whose updates it
fuses with the code computing them ("'func.func' op failed to apply fusion + hoisting
patterns (set 1)"): reverse mode of a `fori_loop` updating rows (`grad`, `jacrev`,
`hessian`, `vmap` of `grad`, `jvp` of `grad`), `jacfwd` of nested scans, `hessian` of
Newton's `while_loop`, fourteen programs of the loop sweep, where s4tf's scatters select
their updates (the last of duplicate indices wins). Behind a barrier the updates are a
buffer of their own and the scatter compiles (a barrier on the scattered operand or on the
indices does not help).

```mlir
%u = stablehlo.select %p, %a, %b : tensor<12xi1>, tensor<12xf32>
%s = "stablehlo.scatter"(%x, %i, %u) ...
// becomes
%u = stablehlo.select %p, %a, %b : tensor<12xi1>, tensor<12xf32>
%b = stablehlo.optimization_barrier %u : tensor<12xf32>
%s = "stablehlo.scatter"(%x, %i, %b) ...
```
"""

from __future__ import annotations

from dataclasses import dataclass

from s4tf.core.mlir import ir
from s4tf.dialects import hlo
from s4tf.passes.ir_walk import collect, defining_op
from s4tf.passes.registry import ModulePass, register

SCATTER, BARRIER = "stablehlo.scatter", "stablehlo.optimization_barrier"


@register
@dataclass(frozen=True)
class ScatterUpdatesThroughBarriers(ModulePass):
    name = "s4tf-scatter-updates-through-barriers"
    description = "Read the updates of each stablehlo.scatter through an optimization barrier (cuda)"

    def apply(self, module: ir.Operation) -> None:
        for scatter in collect(module, lambda op: op.name == SCATTER):
            half = len(scatter.operands) // 2  # operands..., indices, updates... (as many updates as operands)
            for index in range(half + 1, len(scatter.operands)):
                updates = scatter.operands[index]
                producer = defining_op(updates)
                if producer is None or producer.name == BARRIER:
                    continue
                with ir.InsertionPoint(scatter), scatter.location:
                    scatter.operands[index] = hlo.barrier(updates)
