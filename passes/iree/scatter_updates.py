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

The scatters of one block read their updates through one barrier where they can (no
scatter moved past the barrier is read before it): IREE 3.13 failed to schedule six
barriers of one loop body, each a wait of its own ("failed to solve for timepoint
coverage": `hessian` of a `vmap`ped `while_loop` with a trip count per example, whose
batched tapes are scatters); one barrier for all six compiles. Scatters whose updates are
made only after an earlier scatter is read take a barrier of their own.

```mlir
%u = stablehlo.select %p, %a, %b : tensor<12xi1>, tensor<12xf32>
%s = "stablehlo.scatter"(%x, %i, %u) ...
%v = stablehlo.select %q, %c, %d : tensor<12xi1>, tensor<12xf32>
%t = "stablehlo.scatter"(%y, %i, %v) ...
// becomes
%u = stablehlo.select %p, %a, %b : tensor<12xi1>, tensor<12xf32>
%v = stablehlo.select %q, %c, %d : tensor<12xi1>, tensor<12xf32>
%bu, %bv = stablehlo.optimization_barrier %u, %v : tensor<12xf32>, tensor<12xf32>
%s = "stablehlo.scatter"(%x, %i, %bu) ...
%t = "stablehlo.scatter"(%y, %i, %bv) ...
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
        by_block: dict[ir.Block, list[ir.Operation]] = {}
        for scatter in collect(module, lambda op: op.name == SCATTER):
            if _computed_updates(scatter):
                by_block.setdefault(scatter.block, []).append(scatter)
        for block, scatters in by_block.items():
            ops = [op.operation for op in block.operations]
            position = {op: i for i, op in enumerate(ops)}
            for group, last in _groups(block, scatters, position):
                _through_one_barrier(group, ops[last] if last >= 0 else None, position)


def _computed_updates(scatter: ir.Operation) -> list[int]:
    """The operand numbers of ``scatter``'s updates that an op computes (not a block
    argument, not a barrier already)."""
    half = len(scatter.operands) // 2  # operands..., indices, updates... (as many updates as operands)
    return [index for index in range(half + 1, len(scatter.operands))
            if (producer := defining_op(scatter.operands[index])) is not None and producer.name != BARRIER]


def _in_block(operation: ir.Operation, block: ir.Block) -> ir.Operation | None:
    """``operation`` or the op of ``block`` it is nested in; ``None`` outside ``block``."""
    while operation.block != block:
        if operation.parent is None:
            return None
        operation = operation.parent.operation
    return operation


def _last_producer(scatter: ir.Operation, block: ir.Block, position) -> int:
    """The position in ``block`` of the last op making ``scatter``'s updates (-1: none there)."""
    producers = [_in_block(defining_op(scatter.operands[i]), block) for i in _computed_updates(scatter)]
    return max((position[p] for p in producers if p is not None), default=-1)


def _first_reader(scatter: ir.Operation, block: ir.Block, position) -> int:
    """The position in ``block`` of the first op reading ``scatter``'s result."""
    readers = [_in_block(use.owner.operation, block) for use in scatter.result.uses]
    return min((position[r] for r in readers if r is not None), default=len(position))


def _groups(block: ir.Block, scatters, position) -> list[tuple[list[ir.Operation], int]]:
    """``scatters`` (in order) in groups that one barrier placed after the group's last
    update producer can serve, each with that producer's position: every scatter before it
    moves after the barrier, so none may be read before it."""
    groups: list[tuple[list[ir.Operation], int]] = []
    for scatter in scatters:
        produced = _last_producer(scatter, block, position)
        if groups:
            group, last = groups[-1]
            joined = max(last, produced)
            if all(position[s] > joined or _first_reader(s, block, position) > joined for s in (*group, scatter)):
                groups[-1] = ([*group, scatter], joined)
                continue
        groups.append(([scatter], produced))
    return groups


def _through_one_barrier(group: list[ir.Operation], anchor: ir.Operation | None, position) -> None:
    """One barrier over the updates of the ``group`` of scatters, right after ``anchor``,
    their last producer (before the first scatter where none is in their block); the
    scatters before it move right after it, in order."""
    moving = [scatter for scatter in group if anchor is not None and position[scatter] < position[anchor]]
    where = ir.InsertionPoint.after(anchor) if anchor is not None else ir.InsertionPoint(group[0])
    updates = [(scatter, index) for scatter in group for index in _computed_updates(scatter)]
    with where, group[0].location:
        barred = hlo.barrier_of_all([scatter.operands[index] for scatter, index in updates])
    for (scatter, index), value in zip(updates, barred):
        scatter.operands[index] = value
    after = barred[0].owner.operation
    for scatter in moving:
        scatter.move_after(after)
        after = scatter
