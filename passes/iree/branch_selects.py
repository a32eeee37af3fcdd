"""``s4tf-branches-to-selects``: a ``stablehlo.if`` inside a host-stepped loop whose branches
are straight-line code that cannot fail computes both branches and ``select``s their results.

A host-stepped loop (one ``s4tf-loops-to-dispatch`` left on IREE's host VM) reads each
branch's predicate back on the host: a wait for the device in every iteration. And
IREE-3.13-WORKAROUND: IREE 3.13 gets such loops wrong when they also update a large tape in
place, the loop's results depending on which of its other results are used (wrong values, or
a loop that never ends: reverse mode of a ``switch`` in a ``fori_loop`` over 100,000
elements, whose recording loop writes every state to its tape;
tests/lit/iree_reproducers/while_tape_beside_an_if.mlir). Both branches computed and one
result selected is one submission per iteration, and right.

```mlir
%r = "stablehlo.if"(%p) ({ %a = stablehlo.multiply %v, %c1 ...; stablehlo.return %a ... },
                         { %b = stablehlo.sine %v ...; stablehlo.return %b ... })
// becomes
%a = stablehlo.multiply %v, %c1 ...
%b = stablehlo.sine %v ...
%r = stablehlo.select %p, %a, %b : tensor<i1>, tensor<100000xf32>
```

A branch qualifies when (innermost branches first) its ops have no regions, and none is a
matrix product or convolution (computing the branch not taken would cost more than the wait
it saves), a custom call, or an integer division or remainder (which may trap on the branch
not taken: ``lax.cond(n != 0, lambda: k // n, ...)``). Float ops of the branch not taken
may make infinities or NaNs; the select drops them.
"""

from __future__ import annotations

from dataclasses import dataclass

from s4tf.core.mlir import ir
from s4tf.passes.iree.unroll_host_loops import in_dispatch_region
from s4tf.passes.ir_walk import collect
from s4tf.passes.registry import ModulePass, register

IF, WHILE = "stablehlo.if", "stablehlo.while"

#: Ops a branch computed whether or not it is taken may not hold.
_NOT_SPECULATED = ("stablehlo.dot_general", "stablehlo.dot", "stablehlo.convolution", "stablehlo.custom_call",
                   "stablehlo.rng", "stablehlo.rng_bit_generator")
_INTEGER_DIVISIONS = ("stablehlo.divide", "stablehlo.remainder")


@register
@dataclass(frozen=True)
class BranchesToSelects(ModulePass):
    name = "s4tf-branches-to-selects"
    description = "Compute both straight-line branches of each stablehlo.if in a host-stepped loop and select the results"

    def apply(self, module: ir.Operation) -> None:
        for branch in collect(module, lambda op: op.name == IF and _in_host_loop(op)):  # innermost first
            if all(_speculated(region.blocks[0]) for region in branch.regions):
                _select(branch)


def _in_host_loop(operation: ir.Operation) -> bool:
    parent = operation.parent
    while parent is not None and parent.name != "func.func":
        if parent.name == WHILE:
            return not in_dispatch_region(parent)
        parent = parent.parent
    return False


def _speculated(block: ir.Block) -> bool:
    """Whether ``block``'s ops may run when the branch is not taken."""
    for op in block.operations:
        op = op.operation
        if op.regions or op.name in _NOT_SPECULATED or not op.name.startswith("stablehlo."):
            return False
        if op.name in _INTEGER_DIVISIONS and not isinstance(ir.RankedTensorType(op.results[0].type).element_type, ir.FloatType):
            return False
    return True


def _select(branch: ir.Operation) -> None:
    """Move both branches' ops before ``branch``; its results become selects of theirs."""
    returned = []
    for region in branch.regions:
        block = region.blocks[0]
        ops = [op.operation for op in block.operations]
        *body, terminator = ops
        for op in body:
            op.move_before(branch)
        returned.append(list(terminator.operands))
    predicate = branch.operands[0]
    with ir.InsertionPoint(branch), branch.location:
        for result, on_true, on_false in zip(branch.results, *returned):
            selected = ir.Operation.create("stablehlo.select", results=[result.type],
                                           operands=[predicate, on_true, on_false]).results[0]
            result.replace_all_uses_with(selected)
    branch.erase()
