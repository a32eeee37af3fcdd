"""``s4tf-tie-condition-carries``: a host-stepped ``stablehlo.while`` whose body replaces a
carry without reading it, or with a value that does not depend on the carries (zeros, a
constant), gets the new value through an ``optimization_barrier`` beside a value computed
from the carry it replaces (its first element, negated), so the body reads it and the
value depends on it.

IREE-3.13-WORKAROUND: IREE 3.13 rotates such a loop into an ``if`` around a do-while whose
``before`` region no longer takes that carry; its stream conversion of the ``scf.while``
then fails ("failed to legalize unresolved source materialization ... that remained live
after conversion"; "region branch point has 6 operands, but region successor needs 8
inputs") or crashes (tests/lit/iree_reproducers/while_condition_only_carry.mlir): a
``while_loop`` returning the residual it stops on, host-stepped (on ``vmvx``, or over a
vector past the one-dispatch limit on ``cpu``), did not compile, nor did its gradient,
whose backward loop sets the residual's cotangent to zero after the first step. The
barrier must hold a value an op computes from the carry: with the carry itself beside
the new value, two or more such carries compile to a module that fails at run time
("ref is null", "indirect buffer reference slot 0 is out range";
tests/lit/iree_reproducers/while_carries_read_by_barriers_only.mlir: IREE's VM register
allocator, which s4tf-distinct-branch-refs mends). A barrier's results are its operands:
the values do not change.

On ``vulkan`` (``read_after=true``) only carries read after the loop are tied:
IREE-3.13-WORKAROUND: there a tied carry that nothing reads after the loop (Newton's
residual, when the loop returns only the root) fails at run time ("Vulkan queue_dealloca
buffer was not returned by Vulkan queue_alloca"), and the loop compiles and runs untied.

```mlir
%r:2 = stablehlo.while(%err = %one, %v = %x) ... cond { %err > %eps } do {
    %w = f(%v); %m = g(%w); stablehlo.return %m, %w }
// becomes, in the body
    %read = stablehlo.negate %err : tensor<f32>
    %t:2 = stablehlo.optimization_barrier %m, %read : tensor<f32>, tensor<f32>
    stablehlo.return %t#0, %w
```
"""

from __future__ import annotations

from dataclasses import dataclass

from s4tf.core.mlir import ir
from s4tf.dialects import hlo
from s4tf.dialects.types import TensorType, is_float
from s4tf.passes.iree.unroll_host_loops import BARRIER, WHILE, in_dispatch_region
from s4tf.passes.ir_walk import collect
from s4tf.passes.registry import ModulePass, register


@register
@dataclass(frozen=True)
class TieConditionCarries(ModulePass):
    name = "s4tf-tie-condition-carries"
    description = "Make host-stepped loops' bodies read the carries they replace (IREE 3.13)"
    #: Tie only the carries whose results are read after the loop (vulkan: below).
    read_after: bool = False

    def apply(self, module: ir.Operation) -> None:
        tie_condition_carries(module, self.read_after)


def _varies(value: ir.Value, loop: ir.Operation, body: ir.Block) -> bool:
    """Whether ``value`` depends on the body's carries (not on values from outside alone); an
    op holding regions counts as depending on them."""
    pending, seen = [value], set()
    while pending:
        owner = pending.pop().owner
        if isinstance(owner, ir.Block):
            if owner == body:
                return True
            continue
        if owner in seen:
            continue
        seen.add(owner)
        parent = owner.parent
        while parent is not None and parent != loop:
            parent = parent.parent
        if parent is None:  # computed outside the loop
            continue
        if len(owner.regions):
            return True
        pending.extend(owner.operands)
    return False


def tie_condition_carries(module: ir.Operation, read_after: bool = False) -> None:
    for loop in collect(module, lambda op: op.name == WHILE and not in_dispatch_region(op)):
        body = loop.regions[1].blocks[0]
        terminator = list(body.operations)[-1]
        for index, carried in enumerate(body.arguments):
            replaced = terminator.operands[index]
            if replaced == carried or (list(carried.uses) and _varies(replaced, loop, body)):
                continue
            if read_after and not list(loop.results[index].uses):
                continue
            with ir.InsertionPoint(terminator), terminator.location:
                read = _read(carried)
                tied = ir.Operation.create(BARRIER, results=[replaced.type, read.type], operands=[replaced, read])
            terminator.operands[index] = tied.results[0]


def _read(carried: ir.Value) -> ir.Value:
    """A value one op computes from ``carried``: its first element negated (``not`` for
    integers and booleans)."""
    carried_type = TensorType.from_mlir(carried.type)
    if carried_type.size > 1:
        ones = [1] * carried_type.rank
        carried_type = TensorType(tuple(ones), carried_type.dtype)
        carried = hlo.value("slice", [carried], carried_type, start_indices=hlo.i64_array([0] * len(ones)),
                            limit_indices=hlo.i64_array(ones), strides=hlo.i64_array(ones))
    return hlo.value("negate" if is_float(carried_type.dtype) else "not", [carried], carried_type)
