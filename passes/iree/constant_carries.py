"""``s4tf-constant-carries``: a ``stablehlo.while`` carry that starts from a constant and
that the body yields unchanged is that constant throughout: the condition, the body and the
loop's result read the constant; the carry stays, unread, as a pass-through. Then a scalar
read from a constant by a ``gather`` leaves the ``optimization_barrier`` the lowering of
one-element gathers puts around it (dialects/indexing_ops.py, ``Gather.lower``): no run-time
data flows there.

IREE-3.13-WORKAROUND: a barrier around an element of a pass-through carry that starts from
zeros (the tangent of a constant, in ``jvp`` of ``jvp`` of a ``while_loop`` that indexes
the data) compiled to a module that failed at run time ("binding table slot requires a
buffer but none was provided";
tests/lit/iree_reproducers/while_barrier_of_a_zero_carry_element.mlir): IREE's VM register
allocator emptied the loop's buffer, which s4tf-distinct-branch-refs mends at its cause
(passes/iree/branch_refs.py). The constant read in place of the carry still spares each
trip the carry's read.

```mlir
%r:2 = stablehlo.while(%i = %c0, %t = %zeros) ... do {
    %g = "stablehlo.gather"(%t, %idx) ...
    %b = stablehlo.optimization_barrier %g : tensor<f32>
    stablehlo.return %i2, %t }
// becomes
%r:2 = stablehlo.while(%i = %c0, %t = %zeros) ... do {
    %g = "stablehlo.gather"(%zeros, %idx) ...
    stablehlo.return %i2, %t }
```
"""

from __future__ import annotations

from dataclasses import dataclass

from s4tf.core.mlir import ir
from s4tf.passes.ir_walk import collect, defining_op, has_uses, is_hlo_constant
from s4tf.passes.iree.unroll_host_loops import BARRIER, WHILE
from s4tf.passes.registry import ModulePass, register


@register
@dataclass(frozen=True)
class ConstantCarries(ModulePass):
    name = "s4tf-constant-carries"
    description = "Read loops' constant pass-through carries as the constants; no barrier around a gather of a constant"

    def apply(self, module: ir.Operation) -> None:
        constant_carries(module)


def constant_carries(module: ir.Operation) -> None:
    for loop in collect(module, lambda op: op.name == WHILE):
        condition, body = (region.blocks[0] for region in loop.regions)
        terminator = list(body.operations)[-1]
        for index, carried in enumerate(body.arguments):
            initial = loop.operands[index]
            if terminator.operands[index] != carried or not is_hlo_constant(initial):
                continue
            for argument in (carried, condition.arguments[index]):
                for owner, number in [(use.owner, use.operand_number) for use in argument.uses if use.owner != terminator]:
                    owner.operands[number] = initial
            if has_uses(loop.results[index]):
                loop.results[index].replace_all_uses_with(initial)
    for barrier in collect(module, lambda op: op.name == BARRIER and len(op.operands) == 1):
        gathered = defining_op(barrier.operands[0])
        if gathered is not None and gathered.name == "stablehlo.gather" and is_hlo_constant(gathered.operands[0]):
            barrier.results[0].replace_all_uses_with(barrier.operands[0])
            barrier.erase()
