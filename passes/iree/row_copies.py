"""``s4tf-row-copies-through-barriers``: a ``stablehlo.dynamic_update_slice`` of a tensor with
a slice of that same tensor (one row copied to another, in place) takes the slice through a
``stablehlo.optimization_barrier``; for the GPU targets.

IREE-3.13-WORKAROUND: IREE 3.13 fuses such a copy into one dispatch that reads and writes
the tensor's buffer, which its GPU code generators refuse: on ``vulkan`` "failed to legalize
operation 'hal.interface.binding.subspan' that was explicitly marked illegal" (a
``readwrite`` binding), on ``cuda`` "LLVM Translation failed for operation:
builtin.unrealized_conversion_cast". Reverse mode of a data-dependent ``while`` makes such
copies when it thins its checkpoints (row ``2 i`` of the tape to row ``i``:
tests/lit/iree_reproducers/row_copy_in_place_gpu.mlir). Behind the barrier the row is read
into a buffer of its own first, and the update writes the tape in place.

```mlir
%row = stablehlo.dynamic_slice %tape, %j, %c0, sizes = [1, 64] : (tensor<1009x64xf32>, ...) -> tensor<1x64xf32>
%new = stablehlo.dynamic_update_slice %tape, %row, %i, %c0 : (tensor<1009x64xf32>, tensor<1x64xf32>, ...) -> ...
// becomes
%row = stablehlo.dynamic_slice %tape, %j, %c0, sizes = [1, 64] : ...
%b = stablehlo.optimization_barrier %row : tensor<1x64xf32>
%new = stablehlo.dynamic_update_slice %tape, %b, %i, %c0 : ...
```
"""

from __future__ import annotations

from dataclasses import dataclass

from s4tf.core.mlir import ir
from s4tf.dialects import hlo
from s4tf.passes.ir_walk import collect, defining_op
from s4tf.passes.registry import ModulePass, register

UPDATE, SLICE = "stablehlo.dynamic_update_slice", "stablehlo.dynamic_slice"
#: Ops through which a row read stays the same row of numbers.
_SAME_ELEMENTS = ("stablehlo.reshape", "stablehlo.convert", "stablehlo.bitcast_convert")


@register
@dataclass(frozen=True)
class RowCopiesThroughBarriers(ModulePass):
    name = "s4tf-row-copies-through-barriers"
    description = "Read a slice copied into the tensor it comes from through an optimization barrier (GPU targets)"

    def apply(self, module: ir.Operation) -> None:
        for update in collect(module, lambda op: op.name == UPDATE and _reads_itself(op)):
            with ir.InsertionPoint(update), update.location:
                update.operands[1] = hlo.barrier(update.operands[1])


def _reads_itself(update: ir.Operation) -> bool:
    """Whether ``update``'s new elements are a slice of the tensor it updates."""
    producer = defining_op(update.operands[1])
    while producer is not None and producer.name in _SAME_ELEMENTS:
        producer = defining_op(producer.operands[0])
    return producer is not None and producer.name == SLICE and producer.operands[0] == update.operands[0]
