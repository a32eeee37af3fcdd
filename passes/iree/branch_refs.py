"""``s4tf-distinct-branch-refs``: a ``vm.ref`` passed more than once to one block of a VM
branch is passed as distinct values (an identity of it for every repeat); on IREE's VM
module, between ``iree-compile --compile-to=vm`` and ``--compile-from=vm``
(:func:`s4tf.runtime.compiler.compile_stablehlo`).

IREE-3.13-WORKAROUND: IREE's VM register allocator gives a block argument the register of
the value passed to it where it can, and omits that identity copy from the branch; a ref
passed to several arguments of the block is moved (its register cleared) at its last
occurrence, which empties the register of an argument coalesced with it at an earlier one.
The block then reads a null buffer: "indirect buffer reference slot 0 is out range of the
declared binding capacity of the command buffer" at run time (a null buffer reads as a
binding table's slot 0). IREE packs the small tensors a host-stepped loop carries into one
allocation, so its back edge passes that buffer once for every tensor
(tests/lit/iree_reproducers/while_carries_read_by_barriers_only.mlir, 20 lines of
StableHLO; "ref is null" there): ``jvp`` of ``grad`` through a host-stepped
data-dependent ``while`` failed so. With a distinct value for every occurrence, no
register is both kept and moved.

```mlir
vm.br ^bb1(%buffer, %buffer : !vm.ref<!hal.buffer>, !vm.ref<!hal.buffer>)
// becomes
%nonzero = vm.cmp.nz.ref %buffer : !vm.ref<!hal.buffer>
%null = vm.const.ref.zero : !vm.ref<!hal.buffer>
%same = vm.select.ref %nonzero, %buffer, %null : !vm.ref<!hal.buffer>
vm.br ^bb1(%buffer, %same : !vm.ref<!hal.buffer>, !vm.ref<!hal.buffer>)
```

The identity is a select on the ref's own non-nullness (``select(c, x, null)`` is ``x``
whatever ``c``), which IREE's folders and CSE keep: a select of ``x`` and ``x``, or two
identical selects, would fold back into one value.
"""

from __future__ import annotations

from dataclasses import dataclass

from s4tf.core.mlir import ir, load_dialects
from s4tf.passes.ir_walk import collect
from s4tf.passes.registry import ModulePass, register

BRANCHES = ("vm.br", "vm.cond_br")  # what IREE 3.13 emits for host control flow (a switch too)


@register
@dataclass(frozen=True)
class DistinctBranchRefs(ModulePass):
    name = "s4tf-distinct-branch-refs"
    description = "Pass a vm.ref given twice to one block of a VM branch as distinct values (IREE's VM modules)"

    def apply(self, module: ir.Operation) -> None:
        branches = collect(module, lambda op: op.name in BRANCHES)
        if branches:
            load_dialects(module.context, ["vm"])
        for branch in branches:
            for group in _successor_operand_positions(branch):
                seen: dict = {}
                for position in group:
                    value = branch.operands[position]
                    if not _is_ref(value.type):
                        continue
                    if value in seen:
                        seen[value] = branch.operands[position] = _identity(seen[value], branch)
                    else:
                        seen[value] = value


def _is_ref(value_type: ir.Type) -> bool:
    return str(value_type).startswith("!vm.ref")


def _identity(value: ir.Value, before: ir.Operation) -> ir.Value:
    """``value`` again as a new SSA value, built before ``before``."""
    with ir.InsertionPoint(before), before.location:
        nonzero = ir.Operation.create("vm.cmp.nz.ref", results=[ir.IntegerType.get_signless(32)], operands=[value])
        null = ir.Operation.create("vm.const.ref.zero", results=[value.type])
        same = ir.Operation.create("vm.select.ref", results=[value.type],
                                   operands=[nonzero.results[0], value, null.results[0]])
    return same.results[0]


def _successor_operand_positions(branch: ir.Operation) -> list[range]:
    """The positions among ``branch``'s operands that each successor's block receives."""
    if branch.name == "vm.br":
        return [range(len(branch.operands))]
    _, true_count, false_count = ir.DenseI32ArrayAttr(branch.attributes["operandSegmentSizes"])  # condition first
    return [range(1, 1 + true_count), range(1 + true_count, 1 + true_count + false_count)]
